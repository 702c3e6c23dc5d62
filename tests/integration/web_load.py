#!/usr/bin/env python3
"""Raw TCP clients against `profctl web` under load (test_profctl_web_load.sh).

Usage: web_load.py SCENARIO PORT TOKEN [ARGS...]; prints what it saw and
exits 1 with "FAIL: ..." when profctl web did not behave.  Every wait is
bounded by BOUND seconds: a bound against a hang, not a speed target.
"""
import select
import socket
import sys
import time

BOUND = 10.0


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=BOUND)


def request(port, token, method, target, body=b""):
    """One request with the token as the page sends it (the header on
    API calls; the query for its files, whose cookie this client does not
    keep); (status, body, seconds taken)."""
    t = time.monotonic()
    s = connect(port)
    if not target.startswith("/v1/"):
        target += ("&" if "?" in target else "?") + "token=" + token
    head = ("%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
            "X-Profd-UI: 1\r\nX-Profd-Token: %s\r\n"
            "Content-Length: %d\r\n\r\n" %
            (method, target, port, token, len(body)))
    s.sendall(head.encode() + body)
    out = b""
    while True:
        try:
            d = s.recv(65536)
        except socket.timeout:
            fail("%s %s: no answer within %g s (%d bytes came)" %
                 (method, target, BOUND, len(out)))
        if not d:
            break
        out += d
        if time.monotonic() - t > BOUND:
            fail("%s %s: not done within %g s" % (method, target, BOUND))
    s.close()
    head, _, rest = out.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 "):
        fail("%s %s: no status line: %r" % (method, target, out[:200]))
    return int(head.split(b" ")[1]), rest, time.monotonic() - t


def closed_within(s, seconds):
    """Seconds until the peer closed s (reading only), or None."""
    t = time.monotonic()
    s.settimeout(seconds)
    try:
        while s.recv(4096):
            pass
    except socket.timeout:
        return None
    except ConnectionError:
        pass
    return time.monotonic() - t


def flood(port, token, index):
    """300 idle connections, half with half a head; then a UI file and an
    API call must be answered; the oldest idle ones were closed for them,
    the newest at the head deadline."""
    idle, t0 = [], time.monotonic()
    for i in range(300):
        s = connect(port)
        if i % 2:
            s.sendall(b"GET /ui/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)
        idle.append((s, time.monotonic()))
    print("300 idle connections open in %.2f s" % (time.monotonic() - t0))
    status, body, took = request(port, token, "GET", "/ui/")
    with open(index, "rb") as f:
        if status != 200 or body != f.read():
            fail("/ui/ with 300 idle connections: %d %r" % (status, body[:200]))
    print("GET /ui/ answered in %.3f s" % took)
    status, body, took = request(port, token, "GET", "/v1/scopes")
    if status != 200 or b'"fx"' not in body:
        fail("/v1/scopes with 300 idle connections: %d %r" % (status, body))
    print("GET /v1/scopes (forwarded) answered in %.3f s" % took)
    if closed_within(idle[0][0], 2.0) is None:
        fail("the oldest idle connection is still open")
    s, opened = idle[-1]
    if closed_within(s, BOUND) is None:
        fail("the newest idle connection is open %g s on" % BOUND)
    took = time.monotonic() - opened
    if took < 4.0:
        fail("the newest idle connection closed after %.2f s, before the "
             "head deadline" % took)
    print("oldest idle closed at once, newest after %.2f s" % took)
    for s, _ in idle:
        s.close()


def slowloris(port, token):
    """A head trickled a byte every 0.4 s is closed at the head deadline
    (from the accept, however often a byte comes), without a reply."""
    head = ("GET /ui/?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
            "X-Slow: %s\r\n\r\n" % (token, port, "a" * 40)).encode()
    s, t = connect(port), time.monotonic()
    got = b""
    for i in range(len(head)):
        if time.monotonic() - t > BOUND:
            fail("a head a byte every 0.4 s: open %g s on" % BOUND)
        try:
            s.sendall(head[i:i + 1])
        except ConnectionError:
            break
        r, _, _ = select.select([s], [], [], 0.4)
        if r:
            try:
                d = s.recv(4096)
            except ConnectionError:
                break
            if not d:
                break
            got += d
    else:
        fail("the whole slow head was sent: %r" % got[:200])
    took = time.monotonic() - t
    if took < 4.0 or got:
        fail("slow head closed after %.2f s with %r" % (took, got[:200]))
    print("slow head closed after %.2f s, %d bytes sent" % (took, i))


def busy(port, token):
    """Every worker waiting for a body that does not come and the queue
    full: the next request is 503 at once; once they go, 200 again."""
    held = []
    for i in range(80):
        s = connect(port)
        s.sendall(("POST /v1/profiles?scope=slow HTTP/1.1\r\n"
                   "Host: 127.0.0.1:%d\r\nX-Profd-Token: %s\r\n"
                   "X-Profd-UI: 1\r\nContent-Length: 100\r\n\r\n" %
                   (port, token)).encode())
        held.append(s)
        if i % 16 == 15:    # none waits long for its head to be read
            time.sleep(0.05)
    time.sleep(0.5)
    status, body, took = request(port, token, "GET", "/v1/scopes")
    if status != 503 or b'"unavailable"' not in body:
        fail("with every worker busy: %d %r" % (status, body))
    print("busy: 503 in %.3f s" % took)
    for s in held:
        s.close()
    # The workers see the closes when they next read: until then (a
    # moment, longer on a loaded machine or a sanitizer build) the queue
    # may still be full, and 503 is right.
    end = time.monotonic() + BOUND
    while True:
        status, body, took = request(port, token, "GET", "/v1/scopes")
        if status == 200 or status != 503 or time.monotonic() > end:
            break
        time.sleep(0.05)
    if status != 200:
        fail("after the busy ones went: %d %r" % (status, body))
    print("after: 200 in %.3f s" % took)


def main():
    scenario, port, token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if scenario == "flood":
        flood(port, token, sys.argv[4])
    elif scenario == "slowloris":
        slowloris(port, token)
    elif scenario == "busy":
        busy(port, token)
    else:
        fail("no scenario " + scenario)


if __name__ == "__main__":
    main()
