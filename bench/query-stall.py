#!/usr/bin/env python3
"""query-stall.py: profd's memory while clients of a large SQL reply do not
read it (issue 11), and while one client reads such a reply whole.

    bench/query-stall.py PROFD [--clients N] [--rows N] [--seconds S]

Starts PROFD on a private socket and store, reads one reply of
about rows x 300 bytes whole (profd's peak, VmHWM, before and after: the
reply's buffers), then sends N such requests, reads none of them, and
samples profd's VmRSS every 100 ms for S seconds while asking /v1/health
every 100 ms.
Prints the figures; it decides nothing (no pass/fail).
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

SQL = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
       "WHERE x < {rows}) SELECT x, hex(zeroblob(140)) FROM c")


def proc_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def request(sock_path, method, path, body=b""):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    head = (f"{method} {path} HTTP/1.1\r\nHost: localhost\r\n"
            f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
            "\r\n").encode()
    s.sendall(head + body)
    return s


def read_all(s):
    """The whole reply: by Content-Length, chunked, or to the close."""
    data = b""
    while b"\r\n\r\n" not in data:
        b = s.recv(1 << 16)
        if not b:
            return len(data), data
        data += b
    head, rest = data.split(b"\r\n\r\n", 1)
    length = None
    chunked = False
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
        if k.strip().lower() == b"transfer-encoding" and b"chunked" in v:
            chunked = True
    n = len(data)
    tail = rest[-16:]
    got = len(rest)
    while True:
        if length is not None and got >= length:
            break
        if chunked and tail.endswith(b"\r\n0\r\n\r\n"):
            break
        b = s.recv(1 << 20)
        if not b:
            break
        n += len(b)
        got += len(b)
        tail = (tail + b)[-16:]
    return n, head


def health_ms(sock_path):
    t = time.monotonic()
    s = request(sock_path, "GET", "/v1/health")
    s.settimeout(10)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            b = s.recv(4096)
            if not b:
                break
            data += b
    except socket.timeout:
        return None
    s.close()
    return (time.monotonic() - t) * 1000 if data.startswith(b"HTTP/1.1 200") \
        else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profd")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--seconds", type=float, default=30)
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="query-stall.")
    sock = os.path.join(tmp, "profd.sock")
    log = open(os.path.join(tmp, "profd.log"), "w")
    p = subprocess.Popen([a.profd, "--foreground", "--no-config",
                          "--spool", "none", "--socket", sock,
                          "--db", os.path.join(tmp, "profd.db")],
                         stdout=log, stderr=log)
    try:
        for _ in range(200):
            if os.path.exists(sock) and health_ms(sock) is not None:
                break
            time.sleep(0.05)
        body = SQL.format(rows=a.rows).encode()
        path = "/v1/query?max_rows=1000000&timeout_ms=60000"
        hwm0 = proc_kb(p.pid, "VmHWM")
        s = request(sock, "POST", path, body)
        t = time.monotonic()
        n, first = read_all(s)
        s.close()
        print(f"one client reading: {n / 1e6:.1f} MB received in "
              f"{time.monotonic() - t:.1f} s; profd VmHWM "
              f"{hwm0 / 1024:.0f} -> {proc_kb(p.pid, 'VmHWM') / 1024:.0f} "
              f"MiB; RSS after {proc_kb(p.pid, 'VmRSS') / 1024:.0f} MiB")
        print("status line:", first.split(b"\r\n")[0].decode(errors="replace"))
        base = proc_kb(p.pid, "VmRSS")
        clients = [request(sock, "POST", path, body)
                   for _ in range(a.clients)]
        peak = 0
        worst_health = 0.0
        failed_health = 0
        end = time.monotonic() + a.seconds
        while time.monotonic() < end:
            rss = proc_kb(p.pid, "VmRSS")
            peak = max(peak, rss)
            h = health_ms(sock)
            if h is None:
                failed_health += 1
            else:
                worst_health = max(worst_health, h)
            time.sleep(0.1)
        print(f"{a.clients} clients not reading, {a.seconds:.0f} s: "
              f"RSS at start {base / 1024:.0f} MiB, peak "
              f"{peak / 1024:.0f} MiB, now "
              f"{proc_kb(p.pid, 'VmRSS') / 1024:.0f} MiB; health: worst "
              f"{worst_health:.1f} ms, {failed_health} failed")
        for c in clients:
            c.close()
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
