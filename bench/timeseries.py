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

Needs go (golang-go).  Prints a markdown table."""
import argparse
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def http(sock, path, method="GET"):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.sendall(("%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close"
               "\r\n\r\n" % (method, path)).encode())
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
    sock, db = t + "/s", t + "/db"
    d = subprocess.Popen([profd, "--foreground", "--no-config", "--spool",
                          "none", "--socket", sock, "--db", db],
                         stderr=subprocess.DEVNULL)
    try:
        while not os.path.exists(sock):
            time.sleep(0.05)
        time.sleep(0.2)
        rows = []
        for scope, extra in [("flat", ["--kind", "alloc_space=delta",
                                       "--kind", "alloc_objects=delta"]),
                             ("diff", [])]:
            t0 = time.monotonic()
            for f in files:
                subprocess.run([profctl, "--socket", sock, "push", f,
                                "--scope", scope, "--label", "instance=a"]
                               + extra, check=True,
                               stdout=subprocess.DEVNULL)
            secs = time.monotonic() - t0
            rows.append((scope, secs / len(files) * 1000))
        # Store growth: each scope's sample blocks and rollups.
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        size = {}
        for table in ("sample_block", "rollup"):
            for name, n in con.execute(
                    "SELECT sc.name, sum(length(t.data)) FROM %s t "
                    "JOIN scope sc ON sc.id = t.scope_id GROUP BY sc.name"
                    % table):
                size[name] = size.get(name, 0) + n
        con.close()
        gz = sum(os.path.getsize(f) for f in files)
        out = ["| series of %d real heap profiles (%.0f kB gzipped) | flat "
               "(before) | diff (issue 27) |" % (a.profiles, gz / 1000),
               "|---|---|---|"]
        out.append("| push, ms per profile (profctl, one at a time) | %.1f | "
                   "%.1f |" % (rows[0][1], rows[1][1]))
        out.append("| blocks and rollups, bytes per profile | %.0f | %.0f |"
                   % (size["flat"] / len(files), size["diff"] / len(files)))

        def timed(q):
            secs = []
            for _ in range(a.runs):
                t0 = time.monotonic()
                j = http(sock, q)
                secs.append(time.monotonic() - t0)
            return statistics.median(secs) * 1000, j

        for what, q in [
                ("top alloc_space (delta: rollups)",
                 "/v1/top?scope=%s&metric=alloc_space"),
                ("top alloc_space aggregate=sum (blocks)",
                 "/v1/top?scope=%s&metric=alloc_space&aggregate=sum"),
                ("top inuse_space (avg per series)",
                 "/v1/top?scope=%s&metric=inuse_space"),
                ("top inuse_space aggregate=last",
                 "/v1/top?scope=%s&metric=inuse_space&aggregate=last"),
                ("timeline inuse_space step 1s (avg per step)",
                 "/v1/timeline?scope=%s&metric=inuse_space&step=1s"),
                ("timeline alloc_space step 1s",
                 "/v1/timeline?scope=%s&metric=alloc_space&step=1s")]:
            f_ms, fj = timed(q % "flat")
            d_ms, dj = timed(q % "diff")
            out.append("| %s, ms (total %s / %s) | %.1f | %.1f |" % (
                what, fj.get("total"), dj.get("total"), f_ms, d_ms))
        print("\n".join(out))
    finally:
        d.terminate()
        d.wait()
        subprocess.run(["rm", "-rf", t])


if __name__ == "__main__":
    main()
