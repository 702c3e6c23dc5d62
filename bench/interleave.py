#!/usr/bin/env python3
"""interleave.py: one query timed on two profds in turn (issue 29's week
and month of real profiles, bench/results.md): before and after on copies
of the same store, one query per side in turn, the order swapped every
round, after a warm-up each whose outputs are compared.

  interleave.py CASE SCOPE SINCE ROUNDS SOCK_BEFORE PROFCTL_BEFORE \\
      SOCK_AFTER PROFCTL_AFTER QUERIES OUTDIR

QUERIES: top,tree,...  Prints per query the medians of the whole profctl
process ("wall") and of profd answering (its GET /v1/QUERY time in
/v1/health), the ratios, the fastest wall, and whether the outputs of the
two sides were identical."""
import json
import os
import socket
import statistics
import subprocess
import sys
import time


def route_ms(sock, q):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.sendall(b"GET /v1/health HTTP/1.0\r\nHost: localhost\r\n\r\n")
    b = b""
    while True:
        c = s.recv(65536)
        if not c:
            break
        b += c
    s.close()
    routes = json.loads(b.split(b"\r\n\r\n", 1)[1])["routes"]
    return routes.get("GET /v1/" + q, {}).get("ms_total", 0.0)


def one(sock, profctl, q, scope, since, out=subprocess.DEVNULL):
    a = route_ms(sock, q)
    t = time.perf_counter()
    subprocess.run([profctl, "--socket", sock, q, "--scope", scope,
                    "--since", since], stdout=out, check=True)
    return (time.perf_counter() - t) * 1e3, route_ms(sock, q) - a


def main():
    case, scope, since, rounds = sys.argv[1:4] + [int(sys.argv[4])]
    sides = [("before", sys.argv[5], sys.argv[6]),
             ("after", sys.argv[7], sys.argv[8])]
    outdir = sys.argv[10]
    med = statistics.median
    for q in sys.argv[9].split(","):
        outs = {}
        for name, sock, ctl in sides:
            path = os.path.join(outdir, "%s-%s-%s.out" % (case, q, name))
            with open(path, "w") as f:
                one(sock, ctl, q, scope, since, f)
            with open(path) as f:
                outs[name] = f.read()
        res = {n: ([], []) for n, _, _ in sides}
        for r in range(rounds):
            for name, sock, ctl in (sides if r % 2 == 0 else sides[::-1]):
                w, a = one(sock, ctl, q, scope, since)
                res[name][0].append(w)
                res[name][1].append(a)
        b, a = res["before"], res["after"]
        print("%s %s: before wall %.1f ms (answer %.1f) | after wall %.1f "
              "ms (answer %.1f) | %.1fx wall, %.1fx answer | answers %s | "
              "wall min %.1f / %.1f" % (
                  case, q, med(b[0]), med(b[1]), med(a[0]), med(a[1]),
                  med(b[0]) / med(a[0]), med(b[1]) / med(a[1]),
                  "identical" if outs["before"] == outs["after"]
                  else "DIFFER", min(b[0]), min(a[0])), flush=True)


if __name__ == "__main__":
    main()
