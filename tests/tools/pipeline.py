#!/usr/bin/env python3
"""pipeline.py: requests of varied sizes written at once on one
connection (HTTP/1.1 pipelining), their replies read after, in order.

    pipeline.py unix SOCKET [--n N]
    pipeline.py tcp PORT [--ca CAFILE] [--token T] [--read-token T] [--n N]

Each push goes to a scope of its own (pipe0, pipe1, ...) and its reply
names that scope, so a reply out of order, missing or read from the
middle of another request shows.  The mix: pushes of 38 kB (issue 40's
three), of 1 byte to 100 kB, and reads whose head carries a 48 kB
header, the largest under max-header-size (64 kB).  On the socket a read
is a GET of an unknown path, whose 404 names it; on the TCP listener a
reader's querier call (with --read-token) or GET /v1/health.  Everything
is written before any reply is read, interleaved with reading so that
neither side waits on a full buffer.  Prints one line per reply; exits 1
with "FAIL: ..." when a reply is missing, out of order or wrong.
"""
import argparse
import json
import os
import select
import socket
import ssl
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sockhttp import HANG_S  # noqa: E402

# (kind, body bytes, padding header bytes)
MIX = [("push", 38000, 0), ("push", 38000, 0), ("push", 38000, 0),
       ("read", 0, 48000), ("read", 0, 48000), ("read", 0, 48000),
       ("push", 1, 48000), ("push", 100000, 0), ("read", 0, 10),
       ("push", 70000, 30000), ("push", 7, 0), ("read", 0, 48000)]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def body_of(i, size):
    """A folded profile of whole lines, at least one, about size bytes."""
    out = []
    n = k = 0
    while n < size or k == 0:
        line = "main;pipe%d;f%d %d\n" % (i, k, k + 1)
        out.append(line)
        n += len(line)
        k += 1
    return "".join(out).encode()


def build(face, args):
    reqs = []
    for i, (kind, size, pad) in enumerate(MIX[:args.n]):
        extra = ""
        if pad:
            extra += "X-Pad: " + "p" * pad + "\r\n"
        if kind == "push":
            body = body_of(i, size)
            if face == "unix":
                target = "/v1/profiles?scope=pipe%d&format=folded" % i
            else:
                target = ("/ingest?name=pipe%d.cpu&from=1700000000"
                          "&until=1700000010" % i)
                if args.token:
                    extra += "Authorization: Bearer %s\r\n" % args.token
            want = ("push", "pipe%d" % i)
            head = "POST %s HTTP/1.1\r\nHost: localhost\r\n" % target
        elif face == "unix":
            body = b""
            path = "/v1/nope-%d" % i
            want = ("404", path)
            head = "GET %s HTTP/1.1\r\nHost: localhost\r\n" % path
        elif args.read_token:
            body = b"{}"
            want = ("querier", None)
            head = ("POST /querier.v1.QuerierService/ProfileTypes HTTP/1.1"
                    "\r\nHost: localhost\r\nContent-Type: application/json"
                    "\r\nAuthorization: Bearer %s\r\n" % args.read_token)
        else:
            body = b""
            want = ("health", None)
            head = "GET /v1/health HTTP/1.1\r\nHost: localhost\r\n"
        if body:
            extra += "Content-Length: %d\r\n" % len(body)
        reqs.append(((head + extra + "\r\n").encode() + body, want))
    return reqs


def connect(args):
    if args.face == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(HANG_S)
        s.connect(args.where)
        return s
    s = socket.create_connection(("127.0.0.1", int(args.where)),
                                 timeout=HANG_S)
    if args.ca:
        ctx = ssl.create_default_context(cafile=args.ca)
        s = ctx.wrap_socket(s, server_hostname="localhost")
    return s


class Replies:
    """Replies parsed off a byte stream by their Content-Length."""

    def __init__(self):
        self.buf = b""
        self.done = []

    def feed(self, data):
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buf[:end].decode("latin-1").split("\r\n")
            n = 0
            for h in head[1:]:
                k, _, v = h.partition(":")
                if k.strip().lower() == "content-length":
                    n = int(v)
            if len(self.buf) < end + 4 + n:
                return
            status = int(head[0].split()[1])
            body = self.buf[end + 4:end + 4 + n]
            self.buf = self.buf[end + 4 + n:]
            if status == 100:
                continue
            self.done.append((status, body))


def exchange(s, data, nreplies):
    """Write data while reading replies until nreplies are whole (or the
    connection ends); returns the replies."""
    r = Replies()
    s.setblocking(False)
    off = 0
    eof = False
    end = time.monotonic() + HANG_S
    while len(r.done) < nreplies and not eof:
        if time.monotonic() > end:
            fail("gave up waiting: %d of %d replies" % (len(r.done),
                                                       nreplies))
        wl = [s] if off < len(data) else []
        pending = isinstance(s, ssl.SSLSocket) and s.pending()
        if not pending:
            rl, wl, _ = select.select([s], wl, [], 1.0)
        else:
            rl, wl = [s], []
        if wl:
            try:
                off += s.send(data[off:off + 65536])
            except (ssl.SSLWantWriteError, ssl.SSLWantReadError,
                    BlockingIOError):
                pass
            except (BrokenPipeError, ConnectionResetError):
                eof = True
        if rl:
            try:
                d = s.recv(65536)
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError,
                    BlockingIOError):
                continue
            except ConnectionResetError:
                d = b""
            if not d:
                eof = True
            r.feed(d)
    return r.done, off


def check(i, want, status, body):
    kind, what = want
    try:
        j = json.loads(body)
    except ValueError:
        j = None
    if kind == "push":
        ok = status in (200, 201) and j is not None and j.get("scope") == what
    elif kind == "404":
        ok = status == 404 and j is not None and what in j.get("detail", "")
    elif kind == "health":
        ok = status == 200 and j == {"status": "ok"}
    else:
        ok = status == 200 and j is not None and "profileTypes" in j
    if not ok:
        fail("reply %d: %d %r, wanted %s %s" % (i, status, body[:300],
                                               kind, what or ""))
    print("reply %d: %d %s %s" % (i, status, kind, what or ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("face", choices=["unix", "tcp"])
    ap.add_argument("where")
    ap.add_argument("--ca")
    ap.add_argument("--token")
    ap.add_argument("--read-token")
    ap.add_argument("--n", type=int, default=len(MIX))
    args = ap.parse_args()
    reqs = build(args.face, args)
    data = b"".join(r for r, _ in reqs)
    s = connect(args)
    got, sent = exchange(s, data, len(reqs))
    s.close()
    for i, (status, body) in enumerate(got):
        check(i, reqs[i][1], status, body)
    if len(got) != len(reqs):
        fail("%d replies to %d requests (%d of %d bytes written)" %
             (len(got), len(reqs), sent, len(data)))
    print("%d requests (%d bytes) written at once: %d replies in order" %
          (len(reqs), len(data), len(got)))


if __name__ == "__main__":
    main()
