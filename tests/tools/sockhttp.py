"""sockhttp.py: what the tests' own Python asks profd over its Unix socket
with, in one place: a keep-alive connection, its replies read by their
Content-Length, and a wait for a condition bounded against a hang (never
a duration to wait out).  Scripts given on standard input import it with
tests/tools on PYTHONPATH."""
import json
import socket
import sys
import time

HANG_S = 300.0		# a bound against a hang, not a speed check


def connect(path, timeout=HANG_S):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s


def reply(s):
    """The next reply on s: (status line, body)."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            sys.exit("closed before a reply: %r" % buf)
        buf += d
    head, body = buf.split(b"\r\n\r\n", 1)
    n = int([l.split(b":")[1] for l in head.split(b"\r\n")
             if l.lower().startswith(b"content-length:")][0])
    while len(body) < n:
        d = s.recv(65536)
        if not d:
            sys.exit("closed in a reply's body: %r" % head)
        body += d
    return head.split(b"\r\n")[0], body


def get(s, what):
    """GET what (bytes) on the keep-alive connection s: (status, body)."""
    s.sendall(b"GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n" % what)
    return reply(s)


def ask(path, what):
    """GET what (str) on a connection of its own, closed after: the
    reply's body as parsed JSON."""
    s = connect(path)
    s.sendall(("GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close"
               "\r\n\r\n" % what).encode())
    data = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        data += d
    s.close()
    return json.loads(data.partition(b"\r\n\r\n")[2])


def until(what, pred, fail=sys.exit, step=0.02):
    """pred() until it is true, and its value; past HANG_S, fail("gave up
    waiting for WHAT")."""
    end = time.monotonic() + HANG_S
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > end:
            fail("gave up waiting for " + what)
        time.sleep(step)
