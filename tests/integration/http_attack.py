#!/usr/bin/env python3
"""Raw-socket HTTP clients for the attack tests (test_http_*.sh).

Usage: http_attack.py SCENARIO SOCKET [ARGS...]; prints what it saw and
exits 1 with "FAIL: ..." when the daemon did not behave.  Every wait is
bounded by HANG_S: a bound against a hang, not a speed check (a loaded
machine or a sanitizer build is slow).
"""
import fcntl
import json
import os
import socket
import struct
import sys
import termios
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
from sockhttp import HANG_S, connect  # noqa: E402  (one place for both)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def read_all(s):
    """Everything until the daemon closes (or a timeout)."""
    out = b""
    while True:
        try:
            d = s.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not d:
            break
        out += d
    return out


def read_reply(s):
    """One reply: (status, headers dict (lower-case keys), body bytes)."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            fail("connection closed before a reply: %r" % buf[:200])
        buf += d
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, v = line.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    n = int(headers.get("content-length", "-1"))
    while n >= 0 and len(body) < n:
        d = s.recv(65536)
        if not d:
            break
        body += d
    if n < 0:
        body += read_all(s)
    return status, headers, body


def request(path, data):
    s = connect(path)
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass
    r = read_reply(s)
    s.close()
    return r


def check_json_error(status, headers, body, want_status, what):
    if status != want_status:
        fail("%s: status %d, expected %d: %r" % (what, status, want_status,
                                                  body[:200]))
    if not headers.get("content-type", "").startswith("application/json"):
        fail("%s: Content-Type %r" % (what, headers.get("content-type")))
    try:
        j = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("%s: body is not JSON (%s): %r" % (what, e, body[:200]))
    if not isinstance(j.get("error"), str) or not isinstance(
            j.get("detail"), str):
        fail("%s: not {error, detail}: %r" % (what, j))
    if want_status == 503 and "retry-after" not in headers:
        fail("%s: 503 without Retry-After" % what)
    print("ok: %s -> %d %s" % (what, status, j["detail"]))
    return j


def health(path):
    return request(path, b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\n"
                   b"Connection: close\r\n\r\n")


def unread(s):
    """Bytes written to s that the daemon has not read yet (SIOCOUTQ: on a
    Unix socket, what sits in the peer's queue)."""
    return struct.unpack("i", fcntl.ioctl(s.fileno(), termios.TIOCOUTQ,
                                          b"\0" * 4))[0]


def held_body(path, total=100):
    """A connection that sent its head and part of its body, and waits."""
    s = connect(path)
    s.sendall(b"POST /v1/profiles?scope=held HTTP/1.1\r\nHost: localhost\r\n"
              b"Content-Length: %d\r\n\r\nab" % total)
    return s


def errors(path):
    """Every error libevent answers itself is the documented JSON."""
    cases = [
        (b"GARBAGE\r\n\r\n", 400, "garbage request line"),
        (b"GET /v1/health HTTP/9.9\r\n\r\n", 400, "bad version"),
        (b"GET /v1/health HTTP/0.1\r\n\r\n", 400, "version 0.1"),
        (b"GET /v1/health HTTP/1" + b"5" * 40 + b".1\r\n\r\n", 400,
         "version overflowing an int"),
        (b"GET /v1/health HTTP/1.0111111111\r\n\r\n", 400,
         "minor version overflowing a char"),
        # libevent answered "HTTP/1.2 100 Continue" before any handler
        # saw the request (found by fuzz_http).
        (b"POST /v1/query HTTP/1.2\r\nExpect: 100-continue\r\n"
         b"Content-Length: 8\r\n\r\n", 400, "version 1.2 expecting 100"),
        (b"POST /v1/query HTTP/1.-57\r\nExpect: 100-continue\r\n"
         b"Content-Length: 8\r\n\r\n", 400, "negative minor expecting 100"),
        (b"FOO /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n", 405,
         "unknown method"),
        (b"PATCH /v1/scopes HTTP/1.1\r\nHost: localhost\r\n\r\n", 405,
         "method not routed"),
        (b"POST /v1/profiles?scope=a HTTP/1.1\r\nHost: localhost\r\n"
         b"Content-Length: 999999999\r\n\r\n", 413, "body over max-body"),
        (b"POST /v1/profiles?scope=a HTTP/1.1\r\nHost: localhost\r\n"
         b"Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400,
         "broken chunked framing"),
        (b"POST /v1/profiles?scope=a HTTP/1.1\r\nHost: localhost\r\n"
         b"Content-Length: 1\r\nExpect: tea\r\n\r\n", 417,
         "unknown expectation"),
        (b"GET /v1/top?scope=\xff\xfe%ff HTTP/1.1\r\nHost: localhost\r\n\r\n", 400,
         "invalid UTF-8 in a detail"),
        (b"GET /v1/top?scope=<script>\"\\ HTTP/1.1\r\nHost: localhost\r\n\r\n",
         400, "client text echoed back"),
        (b"GET /nowhere/\xc3\x28 HTTP/1.1\r\nHost: localhost\r\n\r\n", 404,
         "invalid UTF-8 in a path"),
    ]
    for data, want, what in cases:
        check_json_error(*request(path, data), want, what)
    # HEAD is answered as its GET without the body (libevent would send
    # the body, without a length, on a connection kept open: the next
    # reply was misread); an error to HEAD too.
    for target, want in ((b"/v1/health", 200), (b"/v1/query", 405)):
        s = connect(path)
        s.sendall(b"HEAD %s HTTP/1.1\r\nHost: localhost\r\n\r\n"
                  b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\n"
                  b"Connection: close\r\n\r\n" % target)
        data = read_all(s)
        s.close()
        head, _, rest = data.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 %d" % want) or \
                b"Content-Length: " not in head or \
                not rest.startswith(b"HTTP/1.1 200"):
            fail("HEAD %s: %r" % (target.decode(), data[:300]))
        print("ok: HEAD %s -> %d, no body, the next reply follows" %
              (target.decode(), want))
    status, _, body = health(path)
    if status != 200:
        fail("health after the errors: %d" % status)


def max_connections(path, maxconn, slots):
    """max-connections held; the next ones get 503 but health gets
    through; beyond the health slots, 503 without reading."""
    held = [held_body(path) for _ in range(maxconn)]
    # Make sure the daemon has accepted them all before going on.
    end = time.monotonic() + HANG_S
    while True:
        j = json.loads(health(path)[2])
        if j["http"]["connections"] >= maxconn + 1:
            break
        if time.monotonic() > end:
            fail("the held connections were not all accepted: %r" % j)
        time.sleep(0.02)
    check_json_error(*request(path, b"GET /v1/scopes HTTP/1.1\r\nHost: localhost"
                              b"\r\n\r\n"), 503, "over max-connections")
    status, _, body = health(path)
    if status != 200:
        fail("health over max-connections: %d %r" % (status, body[:200]))
    print("ok: health over max-connections -> 200")
    held += [held_body(path) for _ in range(slots)]
    s = connect(path)
    check_json_error(*read_reply(s), 503, "beyond the health slots, unread")
    s.close()
    for h in held:
        h.close()
    # The closes reach the daemon after this side is done with them: until
    # then a health check may still find the slots taken (503).
    end = time.monotonic() + HANG_S
    while True:
        status, _, body = health(path)
        j = json.loads(body)
        if status == 200 and j["http"]["connections"] == 1:
            break
        if time.monotonic() > end:
            fail("connections not counted out: %r" % j)
        time.sleep(0.02)
    print("ok: all connections counted out")


def big_header(path, mib):
    """A head of mib MiB: refused with 431 long before it is all sent."""
    s = connect(path)
    s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
    chunk = b"a" * (1 << 20)
    sent = 0
    try:
        for _ in range(mib):
            s.sendall(chunk)
            sent += 1
    except (BrokenPipeError, ConnectionResetError):
        pass
    if sent >= mib:
        fail("the daemon read all %d MiB of the head" % mib)
    print("ok: stopped reading after %d of %d MiB" % (sent, mib))
    check_json_error(*read_reply(s), 431, "%d MiB header" % mib)


def body_budget(path, nconn, max_body, budget):
    """nconn connections each sending max_body - 1 bytes of a max_body
    body: the daemon holds at most the budget and refuses the rest."""
    conns = []
    chunk = b"x" * (1 << 20)
    refused = 0
    for i in range(nconn):
        s = connect(path)
        s.sendall(b"POST /v1/profiles?scope=b HTTP/1.1\r\nHost: localhost\r\n"
                  b"Content-Length: %d\r\n\r\n" % max_body)
        left = max_body - 1
        try:
            while left > 0:
                n = s.send(chunk[:min(left, len(chunk))])
                left -= n
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass
        # A refused body may still be sent whole (the daemon reads and
        # drops it until it closes): a reply waiting says refused.  Sent
        # is not read: until the daemon has read all of this body, the
        # next connection's bytes may come first and push this one over
        # the budget, refused after it was counted held.  Once it has,
        # the count is final, and a refusal's reply went out when it was
        # refused, at the body's first bytes past the budget.
        if left == 0:
            end = time.monotonic() + HANG_S
            while unread(s) > 0:
                if time.monotonic() > end:
                    fail("connection %d: the daemon does not read the "
                         "body (%d bytes unread)" % (i, unread(s)))
                time.sleep(0.01)
            s.settimeout(0.5)
            try:
                waiting = s.recv(1, socket.MSG_PEEK)
            except socket.timeout:
                waiting = b""
            except (ConnectionResetError, BrokenPipeError):
                waiting = b"x"
            s.settimeout(HANG_S)
        if left > 0 or waiting:
            check_json_error(*read_reply(s), 503,
                             "connection %d over max-inflight-body" % i)
            refused += 1
            s.close()
        else:
            conns.append(s)
    j = json.loads(health(path)[2])
    held = j["http"]["inflight_body_bytes"]
    if held > budget:
        fail("holding %d body bytes, budget %d" % (held, budget))
    if refused == 0:
        fail("no connection was refused")
    print("ok: %d held, %d refused, %d bytes in flight (budget %d)" %
          (len(conns), refused, held, budget))
    for s in conns:
        s.close()


def slowloris(path, seconds, body=0):
    """Trickle a head (or, with body, a body after a whole head) one byte
    at a time: closed at the deadline, not kept open by every byte.
    seconds bounds the trickle: against a hang, far past the deadline."""
    t0 = time.monotonic()
    s = connect(path)
    if body:
        s.sendall(b"POST /v1/profiles?scope=slow HTTP/1.1\r\nHost: localhost\r\n"
                  b"Content-Length: 100000\r\n\r\n")
        data = b"b" * 100000
    else:
        data = b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + \
            b"a" * 100000
    closed = False
    for i in range(len(data)):
        try:
            s.sendall(data[i:i + 1])
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        time.sleep(0.05)
        if time.monotonic() - t0 > seconds:
            fail("still open after %d s of trickling" % seconds)
    if not closed:
        fail("the whole request went through")
    print("ok: %s closed after %.1f s and %d bytes" % (
        "body" if body else "head", time.monotonic() - t0, i))
    s.close()


def hold(path, n, outfile):
    """Open up to n connections (each with a partial head), write how many
    to outfile, wait until outfile + ".release" exists, close them."""
    conns = []
    for _ in range(n):
        try:
            s = connect(path, timeout=2)
            s.sendall(b"GET /v1/he")
        except OSError:
            break
        conns.append(s)
    with open(outfile + ".tmp", "w") as f:
        f.write("%d\n" % len(conns))
    os.rename(outfile + ".tmp", outfile)
    t0 = time.monotonic()
    while not os.path.exists(outfile + ".release") and \
            time.monotonic() - t0 < 120:
        time.sleep(0.05)
    for s in conns:
        s.close()


def main():
    scenario, path = sys.argv[1], sys.argv[2]
    args = [int(a) for a in sys.argv[3:] if a.isdigit()]
    if scenario == "errors":
        errors(path)
    elif scenario == "max-connections":
        max_connections(path, *args)
    elif scenario == "big-header":
        big_header(path, *args)
    elif scenario == "body-budget":
        body_budget(path, *args)
    elif scenario == "slowloris":
        slowloris(path, *args)
    elif scenario == "hold":
        hold(path, args[0], sys.argv[4])
    else:
        fail("unknown scenario " + scenario)


if __name__ == "__main__":
    main()
