#!/usr/bin/env python3
"""querier-groups.py: what Grafana's SelectSeries costs profd (issue 40,
findings 3 and 4): a group_by on a label of many values, and a year of
points at a fine step.

    bench/querier-groups.py BUILD_DIR [--values N] [--profiles N]
                            [--db PATH] [--cases CASE,...] [--arg FLAG]...

Starts BUILD_DIR's profd on a private socket and store and pushes, with
its profctl, --profiles copies of tests/fixtures/cpu.pprof over the last
year (scopes svc-0..svc-6, push labels env e0..e3 and region r0..r3: 112
series), then a profile whose samples carry a `path` label of --values
values (tests/tools/genpprof.py --label-values).  Then it makes each
case's call alone on the socket, in proto3 JSON:

  path       SelectSeries group_by ["path"] over the last day, step 60 s
  path-top   the same with limit 10
  cross      group_by ["path", "worker"] (two sample labels), the same
  year-1s    group_by env, region, service_name over the year at a step
             of 1 s (finding 4's 200-byte request)
  year-1h    the same at a step of an hour
  year-1d    the same at a step of a day
  unread     four year-2h calls (a step of two hours) sent at once, their
             replies never read: profd's RSS 10 s later (a bench may
             wait), then the connections closed

and prints its status, reply bytes, seconds, series and points, and
profd's RSS (VmRSS) before and after and its peak (VmHWM).  --arg passes
a flag to profd (--arg=--query-max-series=5000).  --db PATH keeps the
store there and, when it exists, pushes nothing (a second build measured
on the same store).  It decides nothing (no pass/fail).
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "tests", "tools")
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures")
CPU = "process_cpu:cpu:nanoseconds:cpu:nanoseconds"
YEAR = 365 * 86400


def proc_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def call(sock_path, method, req):
    """One Connect call in JSON: (status, body bytes, seconds)."""
    body = json.dumps(req).encode()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    t = time.monotonic()
    s.sendall((f"POST /querier.v1.QuerierService/{method} HTTP/1.1\r\n"
               f"Host: localhost\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\nConnection: close\r\n"
               "\r\n").encode() + body)
    data = bytearray()
    while True:
        b = s.recv(1 << 20)
        if not b:
            break
        data += b
    s.close()
    head, _, rest = bytes(data).partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head else 0
    return status, rest, time.monotonic() - t


def health(sock_path):
    try:
        return call(sock_path, "ProfileTypes", {})[0] == 200
    except OSError:
        return False


def unread(sock_path, pid, req):
    body = json.dumps(req).encode()
    rss0 = proc_kb(pid, "VmRSS")
    hwm0 = proc_kb(pid, "VmHWM")
    conns = []
    for _ in range(4):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(sock_path)
        s.sendall((f"POST /querier.v1.QuerierService/SelectSeries "
                   f"HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                   f"application/json\r\nContent-Length: {len(body)}"
                   "\r\n\r\n").encode() + body)
        conns.append(s)
    time.sleep(10)
    print(f"unread (four year-2h calls, replies not read): RSS "
          f"{rss0 / 1024:.0f} -> {proc_kb(pid, 'VmRSS') / 1024:.0f} MiB, "
          f"peak {hwm0 / 1024:.0f} -> {proc_kb(pid, 'VmHWM') / 1024:.0f} "
          "MiB")
    first = conns[0].recv(300)
    print("  first reply begins:", first.split(b"\r\n")[0].decode(),
          first.split(b"\r\n\r\n", 1)[-1][:120].decode(errors="replace"))
    for s in conns:
        s.close()


def fill(a, profctl, env, tmp, now):
    pb = os.path.join(tmp, "p.pb")
    for i in range(a.profiles):
        t = now - YEAR + 3600 + i * ((YEAR - 7200) // a.profiles)
        subprocess.run([sys.executable,
                        os.path.join(TOOLS, "retime_pprof.py"),
                        os.path.join(FIXTURES, "cpu.pprof"), pb,
                        str(t * 10**9)], check=True)
        subprocess.run([profctl, "push", pb, "--scope", f"svc-{i % 7}",
                        "--label", f"env=e{i % 4}", "--label",
                        f"region=r{(i // 4) % 4}"],
                       check=True, env=env, stdout=subprocess.DEVNULL)
    gz = os.path.join(tmp, "path.pb.gz")
    subprocess.run([sys.executable, os.path.join(TOOLS, "genpprof.py"),
                    gz, "--samples", str(2 * a.values),
                    "--label-values", str(a.values), "--stacks", "200",
                    "--functions", "300", "--depth", "12", "--seed", "40",
                    "--time", str(now - 600)], check=True)
    subprocess.run([profctl, "push", gz, "--scope", "svc-0", "--label",
                    "env=e0", "--label", "region=r0"], check=True,
                   env=env, stdout=subprocess.DEVNULL)
    print(f"pushed {a.profiles} profiles over a year and one with "
          f"{a.values} path values")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--values", type=int, default=4095)
    ap.add_argument("--profiles", type=int, default=300)
    ap.add_argument("--db")
    ap.add_argument("--cases",
                    default="path,path-top,cross,year-1s,year-1h,year-1d,"
                    "unread")
    ap.add_argument("--arg", action="append", default=[])
    a = ap.parse_args()
    profd = os.path.join(a.build, "profd")
    profctl = os.path.join(a.build, "profctl")

    tmp = tempfile.mkdtemp(prefix="querier-groups.")
    sock = os.path.join(tmp, "profd.sock")
    db = a.db or os.path.join(tmp, "profd.db")
    fresh = not os.path.exists(db)
    log = open(os.path.join(tmp, "profd.log"), "w")
    p = subprocess.Popen([profd, "--foreground", "--no-config",
                          "--spool", "none", "--socket", sock,
                          "--db", db] + a.arg, stdout=log, stderr=log)
    env = dict(os.environ, PROFD_SOCKET=sock)
    try:
        for _ in range(400):
            if os.path.exists(sock) and health(sock):
                break
            time.sleep(0.05)
        now = int(time.time()) // 60 * 60
        if fresh:
            fill(a, profctl, env, tmp, now)
            # The store's "now", for a later run over it.
            open(db + ".now", "w").close()
            os.utime(db + ".now", (now, now))
        else:
            now = int(os.path.getmtime(db + ".now"))
        day = {"profileTypeID": CPU, "labelSelector": "{}",
               "start": str((now - 86400) * 1000), "end": str(now * 1000),
               "step": 60}
        years = {"profileTypeID": CPU, "labelSelector": "{}",
                 "start": str((now - YEAR) * 1000), "end": str(now * 1000),
                 "groupBy": ["env", "region", "service_name"]}
        cases = {
            "path": dict(day, groupBy=["path"]),
            "path-top": dict(day, groupBy=["path"], limit="10"),
            "cross": dict(day, groupBy=["path", "worker"]),
            "year-1s": dict(years, step=1),
            "year-1h": dict(years, step=3600),
            "year-1d": dict(years, step=86400),
        }
        for name in [c for c in a.cases.split(",") if c]:
            if name == "unread":
                unread(sock, p.pid, dict(years, step=7200))
                continue
            req = cases[name]
            rss0 = proc_kb(p.pid, "VmRSS")
            hwm0 = proc_kb(p.pid, "VmHWM")
            st, body, secs = call(sock, "SelectSeries", req)
            if st == 200:
                ser = json.loads(body).get("series", [])
                what = (f"{len(ser)} series, "
                        f"{sum(len(x.get('points', [])) for x in ser)} "
                        "points")
            else:
                what = body[:240].decode(errors="replace")
            print(f"{name} ({len(json.dumps(req))}-byte request): {st}, "
                  f"{len(body)} bytes, {secs:.2f} s: {what}; RSS "
                  f"{rss0 / 1024:.0f} -> "
                  f"{proc_kb(p.pid, 'VmRSS') / 1024:.0f} MiB, peak "
                  f"{hwm0 / 1024:.0f} -> "
                  f"{proc_kb(p.pid, 'VmHWM') / 1024:.0f} MiB")
    finally:
        p.terminate()
        try:
            p.wait(timeout=70)
        except subprocess.TimeoutExpired:
            p.kill()
        log.close()
        subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
