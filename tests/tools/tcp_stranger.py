#!/usr/bin/env python3
"""tcp_stranger.py: what a stranger (no credentials) can do to profd's TCP
listener, and whether the agents and readers with credentials are still
served meanwhile (issue 40's probe, findings 1 and 2).

    tcp_stranger.py bodies PORT --sock SOCK [--ca CA] --token W
        --read-token R [--send 170M,170M,170M,2M] [--announce 256M]
        Each stranger opens a connection, sends a head without
        credentials announcing --announce bytes of body (POST /ingest),
        then sends its --send bytes of it as fast as profd takes them,
        reading meanwhile; it stops at its reply or the end of the
        connection, else goes silent once its bytes are sent, and keeps
        the connection open.  Then an agent pushes and a reader calls
        with their credentials, each on a connection of its own.

    tcp_stranger.py idle PORT --sock SOCK [--ca CA] --token W
        --read-token R [--conns 1024] [--ask]
        Opens --conns connections (TLS handshakes done with --ca); with
        --ask each sends one request without credentials and reads its
        answer; then all stay open and silent while the agent and the
        reader are served (or not).

Prints what each side got, profd's RSS (VmRSS, VmHWM of /proc/PID from
/v1/status's pid) and the listener's counters from /v1/status; "--json"
prints the same as one JSON object.  A measurement, not a test: it
asserts nothing (the tests, tests/integration/test_tcp_stranger.sh, use
its functions and check).
"""
import argparse
import json
import os
import resource
import select
import socket
import ssl
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sockhttp import HANG_S, ask  # noqa: E402

FOLDED = b"main;agent;work 7\nmain;agent;idle 3\n"


def size(text):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * mult[text[-1]] if text[-1] in mult else \
        int(text)


def tcp_connect(port, ca=None, timeout=HANG_S):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    if ca:
        ctx = ssl.create_default_context(cafile=ca)
        s = ctx.wrap_socket(s, server_hostname="localhost")
    return s


def read_reply(s):
    """One reply (status, lower-cased headers, body); (0, {}, b"") if the
    connection ends first."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        try:
            d = s.recv(65536)
        except (ConnectionResetError, ssl.SSLError):
            d = b""
        if not d:
            return 0, {}, buf
        buf += d
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    hdrs = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    n = int(hdrs.get("content-length", "0"))
    while len(body) < n:
        d = s.recv(65536)
        if not d:
            break
        body += d
    return int(lines[0].split()[1]), hdrs, body


def ask_on(s, method, target, auth=None, body=b"", ctype=None, close=False):
    """One request on the connection s: (status, headers, body)."""
    head = "%s %s HTTP/1.1\r\nHost: localhost\r\n" % (method, target)
    if auth:
        head += "Authorization: Bearer %s\r\n" % auth
    if ctype:
        head += "Content-Type: %s\r\n" % ctype
    if close:
        head += "Connection: close\r\n"
    head += "Content-Length: %d\r\n\r\n" % len(body)
    s.sendall(head.encode() + body)
    return read_reply(s)


def request(port, ca, method, target, auth=None, body=b"", ctype=None):
    """One request on a connection of its own: (status, headers, body)."""
    s = tcp_connect(port, ca)
    r = ask_on(s, method, target, auth, body, ctype, close=True)
    s.close()
    return r


def agent_push(port, ca, token, name="agent", s=None):
    """An agent's push (on s, kept open, if given): (status, body)."""
    args = ("POST", "/ingest?name=%s.cpu&from=1700000000&until=1700000010"
            % name, token, FOLDED)
    st, _, body = ask_on(s, *args) if s else request(port, ca, *args)
    return st, body


def reader_call(port, ca, token, s=None):
    """A reader's call (on s, kept open, if given): (status, body)."""
    args = ("POST", "/querier.v1.QuerierService/ProfileTypes", token, b"{}",
            "application/json")
    st, _, body = ask_on(s, *args) if s else request(port, ca, *args)
    return st, body


class Stranger:
    """A connection that sends a head without credentials (auth: an
    Authorization value, or none), then up to `send` bytes of the body it
    announced at once after it, reading as it goes."""

    def __init__(self, port, ca, announce, send, target="/ingest?name=x.cpu",
                 auth=None):
        self.s = tcp_connect(port, ca)
        head = ("POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d"
                "\r\n" % (target, announce))
        if auth:
            head += "Authorization: %s\r\n" % auth
        self.head = (head + "\r\n").encode()
        self.s.setblocking(False)
        self.left = len(self.head) + send
        self.off = 0		# bytes the kernel took, head first
        self.got = b""
        self.eof = False	# the connection's end read
        self.broken = False	# a send failed: its end is yet to read
        self.chunk = b"\0" * 65536

    @property
    def sent(self):
        """Body bytes the kernel took."""
        return max(0, self.off - len(self.head))

    def done(self):
        return self.eof or b"\r\n\r\n" in self.got or \
            (self.left == 0 and not self.broken)

    def replied(self):
        return b"\r\n\r\n" in self.got

    def status(self):
        return int(self.got.split(b" ", 2)[1]) if self.replied() else 0

    def step(self, readable, writable):
        if readable:
            try:
                d = self.s.recv(65536)
                self.got += d
                self.eof = self.eof or d == b""
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError,
                    BlockingIOError):
                pass
            except (ConnectionResetError, ssl.SSLError):
                self.eof = True
        if writable and not self.done():
            if self.off < len(self.head):
                data = self.head[self.off:] + self.chunk
            else:
                data = self.chunk
            try:
                n = self.s.send(data[:min(self.left, 65536)])
                self.off += n
                self.left -= n
            except (ssl.SSLWantWriteError, ssl.SSLWantReadError,
                    BlockingIOError):
                pass
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                # Closed by profd: its answer may wait to be read.
                self.left = 0
                self.broken = True

    def pending(self):
        return isinstance(self.s, ssl.SSLSocket) and self.s.pending() > 0


def closed(s):
    """Read s until profd ends the connection (EOF or reset): True, or
    False past HANG_S (a bound against a hang) or with bytes on it."""
    s.setblocking(True)
    s.settimeout(HANG_S)
    try:
        while True:
            d = s.recv(65536)
            if not d:
                return True
    except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
        return True
    except socket.timeout:
        return False


def open_now(s):
    """Is s still open: nothing to read and no end seen?"""
    s.setblocking(False)
    try:
        s.recv(1)
    except (BlockingIOError, ssl.SSLWantReadError):
        return True
    except (ConnectionResetError, ssl.SSLError, OSError):
        pass
    return False


def run(strangers, until=None):
    """Step the strangers until each is done (until(): an extra end)."""
    end = time.monotonic() + HANG_S
    while not all(x.done() for x in strangers):
        if until is not None and until():
            return
        if time.monotonic() > end:
            sys.exit("gave up waiting for the strangers")
        live = [x for x in strangers if not x.done()]
        ready = [x for x in live if x.pending()]
        if ready:
            for x in ready:
                x.step(True, False)
            continue
        rl, wl, _ = select.select([x.s for x in live],
                                  [x.s for x in live if x.left > 0], [],
                                  0.1 if until else 1.0)
        for x in live:
            x.step(x.s in rl, x.s in wl)


def rss(sock):
    pid = ask(sock, "/v1/status")["pid"]
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0]) * 1024
    return out


def tcp_status(sock):
    return ask(sock, "/v1/status").get("tcp") or {}


def mib(n):
    return "%.0f MiB" % (n / (1 << 20))


def bodies(a):
    before = rss(a.sock)
    xs = [Stranger(a.port, a.ca, size(a.announce), size(n))
          for n in a.send.split(",")]
    run(xs)
    # What the kernel took of the strangers, profd reads, or refuses:
    # measured once it has (30 s at most: a measurement, not a test).
    end = time.monotonic() + 30
    while time.monotonic() < end and ask(a.sock, "/v1/health")["http"][
            "inflight_body_bytes"] < sum(x.sent for x in xs) and \
            not any(x.replied() or x.eof for x in xs):
        time.sleep(0.05)
    during = rss(a.sock)
    held = tcp_status(a.sock)
    push = agent_push(a.port, a.ca, a.token)
    read = reader_call(a.port, a.ca, a.read_token)
    out = {
        "strangers": [{"sent": x.sent, "status": x.status(),
                       "closed": x.eof} for x in xs],
        "agent_push": push[0], "reader_call": read[0],
        "rss_before": before["VmRSS"], "rss_with_strangers": during["VmRSS"],
        "hwm": during["VmHWM"],
        "strangers_read": held.get("bytes_read"),
        "tcp": tcp_status(a.sock),
        "inflight_body_bytes": ask(a.sock, "/v1/health")["http"][
            "inflight_body_bytes"],
    }
    for x in xs:
        x.s.close()
    return out


def idle(a):
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(
        resource.RLIMIT_NOFILE)[1],) * 2)
    held, answers, refused = [], {}, 0
    for i in range(a.conns):
        try:
            s = tcp_connect(a.port, a.ca)
        except (OSError, ssl.SSLError):
            refused += 1
            continue
        if a.ask:
            s.sendall(b"POST /ingest?name=x.cpu HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Length: 0\r\n\r\n")
            st = read_reply(s)[0]
            answers[st] = answers.get(st, 0) + 1
        held.append(s)
    push = agent_push(a.port, a.ca, a.token)
    read = reader_call(a.port, a.ca, a.read_token)
    # Which of ours profd has closed by now: readable at EOF.
    closed = 0
    for s in held:
        s.setblocking(False)
        try:
            closed += s.recv(1) == b""
        except (BlockingIOError, ssl.SSLWantReadError):
            pass
        except (ConnectionResetError, ssl.SSLError, OSError):
            closed += 1
    out = {"opened": len(held), "connect_failed": refused,
           "answers": answers, "closed_by_profd": closed,
           "agent_push": push[0], "reader_call": read[0],
           "tcp": tcp_status(a.sock)}
    for s in held:
        s.close()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["bodies", "idle"])
    ap.add_argument("port", type=int)
    ap.add_argument("--sock", required=True)
    ap.add_argument("--ca")
    ap.add_argument("--token", required=True)
    ap.add_argument("--read-token", required=True)
    ap.add_argument("--send", default="170M,170M,170M,2M")
    ap.add_argument("--announce", default="256M")
    ap.add_argument("--conns", type=int, default=1024)
    ap.add_argument("--ask", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out = bodies(a) if a.what == "bodies" else idle(a)
    if a.json:
        print(json.dumps(out))
        return
    for k, v in out.items():
        if k.startswith("rss") or k == "hwm":
            v = mib(v)
        print("%s: %s" % (k, v))


if __name__ == "__main__":
    main()
