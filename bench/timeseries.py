#!/usr/bin/env python3
"""timeseries.py: what issue 27's counting costs (docs/TIME.md), on a real
series: tests/integration/heap-series/ (a Go program allocating at a
steady rate, contending on a mutex) writes N heap profiles, which are
pushed into a fresh profd as one series twice: into `diff`, where
alloc_* are cumulative and counted as differences, and into `flat`, the
same files pushed with --kind alloc_*=delta (no differences: the cost
before issue 27).  Reported: push time per profile and store growth per
profile of each; the answering time (median of --runs) of top over the
window as delta (the rollups), sum (the blocks, the values as given), a
gauge's avg (one read per series) and its timeline.

    bench/timeseries.py [--profiles N] [--runs N] [--build-dir DIR]
        [--gauge-profiles N] [--gauge-stacks N]

A gauge over a long window is timed apart: folded profiles through
/ingest as a gauge, two series, top and timeline by each aggregate.

Needs go (golang-go).  Prints a markdown table."""
import argparse
import json
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def http(sock, path, method="GET", body=b""):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.sendall(("%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close"
               "\r\nContent-Length: %d\r\n\r\n" % (method, path,
                                                    len(body))).encode()
              + body)
    data = b""
    while True:
        b = s.recv(1 << 16)
        if not b:
            break
        data += b
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n")[0]:
        sys.exit("%s: %s" % (path, data[:300]))
    if b"chunked" in head.lower():
        out, rest = b"", body
        while rest:
            n, _, rest = rest.partition(b"\r\n")
            n = int(n, 16)
            if n == 0:
                break
            out, rest = out + rest[:n], rest[n + 2:]
        body = out
    return json.loads(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profiles", type=int, default=300)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--gauge-profiles", type=int, default=1000)
    ap.add_argument("--gauge-stacks", type=int, default=2000)
    a = ap.parse_args()
    profd = os.path.join(a.build_dir, "profd")
    profctl = os.path.join(a.build_dir, "profctl")
    t = tempfile.mkdtemp(prefix="profd-bench-ts.")
    env = dict(os.environ, GOFLAGS="", GOPROXY="off", GOTOOLCHAIN="local",
               GO111MODULE="on")
    subprocess.run(["go", "build", "-trimpath", "-o", t + "/hs", "."],
                   cwd=ROOT + "/tests/integration/heap-series", env=env,
                   check=True)
    os.mkdir(t + "/p")
    subprocess.run([t + "/hs", "-out", t + "/p", "-n", str(a.profiles),
                    "-interval", "20ms"], check=True)
    files = [t + "/p/heap.%d.pprof" % i for i in range(1, a.profiles + 1)]
    gz = sum(os.path.getsize(f) for f in files)
    queries = [
        ("top alloc_space (delta: rollups)",
         "/v1/top?scope=s&metric=alloc_space"),
        ("top alloc_space aggregate=sum (blocks)",
         "/v1/top?scope=s&metric=alloc_space&aggregate=sum"),
        ("top inuse_space (avg per series)",
         "/v1/top?scope=s&metric=inuse_space"),
        ("top inuse_space aggregate=last",
         "/v1/top?scope=s&metric=inuse_space&aggregate=last"),
        ("timeline inuse_space step 1s (avg per step)",
         "/v1/timeline?scope=s&metric=inuse_space&step=1s"),
        ("timeline alloc_space step 1s",
         "/v1/timeline?scope=s&metric=alloc_space&step=1s")]
    res = {}
    # Each in a store of its own: neither pays the other's interning.
    for name, extra in [("flat", ["--kind", "alloc_space=delta",
                                  "--kind", "alloc_objects=delta"]),
                        ("diff", [])]:
        res[name] = one(a, profd, profctl, t + "/" + name, files, extra,
                        queries)
    out = ["| series of %d real heap profiles (%.0f kB gzipped) | flat "
           "(before) | diff (issue 27) |" % (a.profiles, gz / 1000),
           "|---|---|---|"]
    out.append("| push, ms per profile (profctl, one at a time) | %.1f | "
               "%.1f |" % (res["flat"]["push"], res["diff"]["push"]))
    out.append("| blocks and rollups, bytes per profile | %.0f | %.0f |" % (
        res["flat"]["bytes"] / len(files), res["diff"]["bytes"] / len(files)))
    for what, _ in queries:
        f, d = res["flat"][what], res["diff"][what]
        out.append("| %s, ms (total %s / %s) | %.1f | %.1f |" % (
            what, f[1], d[1], f[0], d[0]))
    print("\n".join(out))
    print()
    print("\n".join(gauges(a, profd, t + "/g")))
    subprocess.run(["rm", "-rf", t])


def gauges(a, profd, d):
    """A gauge over a long window: --gauge-profiles folded profiles of
    --gauge-stacks stacks, 15 s apart, two series, pushed through /ingest
    (aggregationType=average: a gauge; from: the profile's time)."""
    os.mkdir(d)
    sock = d + "/s"
    p = subprocess.Popen([profd, "--foreground", "--no-config", "--spool",
                          "none", "--socket", sock, "--db", d + "/db"],
                         stderr=subprocess.DEVNULL)
    rnd = random.Random(7)
    out = []
    try:
        while not os.path.exists(sock):
            time.sleep(0.05)
        time.sleep(0.2)
        t0 = 1700000000
        for i in range(a.gauge_profiles):
            body = "".join("main;f%d;g%d %d\n" % (k % 97, k, rnd.randint(
                1, 1 << 20)) for k in range(a.gauge_stacks)).encode()
            http(sock, "/ingest?name=g.inuse_space%%7Bpod%%3Dp%d%%7D&from=%d"
                 "&until=%d&units=bytes&aggregationType=average" % (
                     i % 2, t0 + 15 * (i // 2), t0 + 15 * (i // 2) + 10),
                 "POST", body)
        out = ["| a gauge: %d profiles of %d stacks, 2 series, 15 s apart "
               "(%.1f h) | ms |" % (a.gauge_profiles, a.gauge_stacks,
                                    a.gauge_profiles / 2 * 15 / 3600),
               "|---|---|"]
        for what, q in [("top, avg (the default)", "/v1/top?scope=g"),
                        ("top, aggregate=last", "/v1/top?scope=g&"
                         "aggregate=last"),
                        ("top, aggregate=sum", "/v1/top?scope=g&"
                         "aggregate=sum"),
                        ("top, aggregate=delta (rollups)", "/v1/top?scope=g&"
                         "aggregate=delta"),
                        ("timeline step 1m, avg", "/v1/timeline?scope=g&"
                         "step=1m")]:
            secs = []
            for _ in range(a.runs):
                t1 = time.monotonic()
                http(sock, q)
                secs.append(time.monotonic() - t1)
            out.append("| %s | %.1f |" % (what, statistics.median(secs)
                                          * 1000))
    finally:
        p.terminate()
        p.wait()
    return out


def one(a, profd, profctl, d, files, extra, queries):
    os.mkdir(d)
    sock, db = d + "/s", d + "/db"
    p = subprocess.Popen([profd, "--foreground", "--no-config", "--spool",
                          "none", "--socket", sock, "--db", db],
                         stderr=subprocess.DEVNULL)
    r = {}
    try:
        while not os.path.exists(sock):
            time.sleep(0.05)
        time.sleep(0.2)
        t0 = time.monotonic()
        for f in files:
            subprocess.run([profctl, "--socket", sock, "push", f, "--scope",
                            "s", "--label", "instance=a"] + extra,
                           check=True, stdout=subprocess.DEVNULL)
        r["push"] = (time.monotonic() - t0) / len(files) * 1000
        for what, q in queries:
            secs = []
            for _ in range(a.runs):
                t0 = time.monotonic()
                j = http(sock, q)
                secs.append(time.monotonic() - t0)
            r[what] = (statistics.median(secs) * 1000, j.get("total"))
    finally:
        p.terminate()
        p.wait()
    # Store growth: the scope's sample blocks and rollups (a block's data
    # in block_data since schema 13, stored once).
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    blocks = "sample_block"
    if con.execute("SELECT count(*) FROM sqlite_master WHERE "
                   "name = 'block_data'").fetchone()[0]:
        blocks = "block_data"
    r["bytes"] = sum(n or 0 for (n,) in con.execute(
        "SELECT sum(length(data)) FROM %s UNION ALL "
        "SELECT sum(length(data)) FROM rollup" % blocks))
    con.close()
    return r


if __name__ == "__main__":
    main()
