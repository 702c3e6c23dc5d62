#!/usr/bin/env python3
"""Raw TCP clients against `profctl web` under load (test_profctl_web_load.sh).

Usage: web_load.py SCENARIO PORT TOKEN [ARGS...]; prints what it saw and
exits 1 with "FAIL: ..." when profctl web did not behave.  Every wait is
bounded by HANG_S seconds: a bound against a hang, not a speed target.
Nothing is timed but from below: a deadline cannot fire early, so a
connection seen closed sooner than its deadline was closed for something
else.  Where a slow machine leaves that open (the deadline may have
passed too), the scenario starts again.
"""
import fcntl
import os
import select
import socket
import struct
import sys
import termios
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import sockhttp  # noqa: E402  (profd's own socket, asked as the others ask)
from sockhttp import HANG_S  # noqa: E402
HEAD_TIMEOUT = 5.0	# webloop.c: from the accept to the whole head
PER_ADDR = 64		# webloop.c: connections from one address
WORKERS = 16		# webpool.c
QUEUE = 64		# webpool.c: heads waiting for a worker


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=HANG_S)


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
                 (method, target, HANG_S, len(out)))
        if not d:
            break
        out += d
        if time.monotonic() - t > HANG_S:
            fail("%s %s: not done within %g s" % (method, target, HANG_S))
    s.close()
    head, _, rest = out.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 "):
        fail("%s %s: no status line: %r" % (method, target, out[:200]))
    return int(head.split(b" ")[1]), rest, time.monotonic() - t


def closed_now(s):
    """Has the peer closed s (an idle connection: nothing else comes)?
    Without waiting."""
    if not select.select([s], [], [], 0)[0]:
        return False
    try:
        return s.recv(4096, socket.MSG_PEEK) == b""
    except ConnectionError:
        return True


def wait_closed(s):
    """The time the peer was seen to close s (reading only), or None."""
    s.settimeout(HANG_S)
    try:
        while s.recv(4096):
            pass
    except socket.timeout:
        return None
    except ConnectionError:
        pass
    return time.monotonic()


def flood_once(port, token, index):
    """flood's steps; False when a head deadline may have passed before
    what was to be seen (a slow machine), which then says nothing."""
    # (socket, the time before its connect: its deadline is HEAD_TIMEOUT
    # after that at least)
    idle = []
    try:
        t0 = time.monotonic()
        for i in range(300):
            if i == PER_ADDR:
                # Every slot this address has is taken, the oldest one
                # still open...
                s0, opened = idle[0]
                if closed_now(s0):
                    if time.monotonic() < opened + HEAD_TIMEOUT:
                        fail("the oldest idle connection closed before "
                             "its deadline, with slots to spare")
                    return False
            t = time.monotonic()
            s = connect(port)
            if i % 2:
                s.sendall(b"GET /ui/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" %
                          port)
            idle.append((s, t))
            if i == PER_ADDR:
                # ...and one more closes it, before its deadline could.
                seen = wait_closed(s0)
                if seen is None:
                    fail("the oldest idle connection is open %g s after "
                         "one over the cap came" % HANG_S)
                if seen >= opened + HEAD_TIMEOUT:
                    return False
                print("the oldest idle connection closed for the %dth" %
                      (PER_ADDR + 1))
        print("300 idle connections open in %.2f s" % (time.monotonic() - t0))
        status, body, took = request(port, token, "GET", "/ui/")
        with open(index, "rb") as f:
            if status != 200 or body != f.read():
                fail("/ui/ with 300 idle connections: %d %r" %
                     (status, body[:200]))
        print("GET /ui/ answered in %.3f s" % took)
        status, body, took = request(port, token, "GET", "/v1/scopes")
        if status != 200 or b'"fx"' not in body:
            fail("/v1/scopes with 300 idle connections: %d %r" %
                 (status, body))
        print("GET /v1/scopes (forwarded) answered in %.3f s" % took)
        # Answered while the idle connections were held, not once they
        # had timed out (the thread-per-connection server answered
        # nothing for a minute): the newest one is still open.
        s, opened = idle[-1]
        if closed_now(s):
            if time.monotonic() < opened + HEAD_TIMEOUT:
                fail("the newest idle connection closed before its "
                     "deadline")
            return False
        print("both answered with the newest idle connection still open")
        seen = wait_closed(s)
        if seen is None:
            fail("the newest idle connection is open %g s on" % HANG_S)
        if seen - opened < 4.0:
            fail("the newest idle connection closed after %.2f s, before "
                 "the head deadline" % (seen - opened))
        print("newest idle closed after %.2f s" % (seen - opened))
        return True
    finally:
        for s, _ in idle:
            s.close()


def flood(port, token, index):
    """300 idle connections, half with half a head: the oldest idle ones
    are closed for the new ones; a UI file and an API call are answered
    while they are held; the newest closes at the head deadline."""
    end = time.monotonic() + HANG_S
    while not flood_once(port, token, index):
        if time.monotonic() > end:
            fail("a head deadline passed in every try for %g s" % HANG_S)
        print("a head deadline may have passed meanwhile: again")


def slowloris(port, token):
    """A head trickled a byte every 0.4 s is closed at the head deadline
    (from the accept, however often a byte comes), without a reply."""
    # 700 bytes of header: sent whole after 280 s at the least, far
    # past the deadline.
    head = ("GET /ui/?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
            "X-Slow: %s\r\n\r\n" % (token, port, "a" * 700)).encode()
    t = time.monotonic()	# the deadline is HEAD_TIMEOUT after at least
    s = connect(port)
    got = b""
    for i in range(len(head)):
        if time.monotonic() - t > HANG_S:
            fail("a head a byte every 0.4 s: open %g s on" % HANG_S)
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


def profd_connections(sock):
    """profd's open connections, this one counted (GET /v1/health)."""
    return sockhttp.ask(sock, "/v1/health")["http"]["connections"]


def unacked(s):
    """Bytes written to s that profctl web's side has not acknowledged
    (SIOCOUTQ)."""
    return struct.unpack("i", fcntl.ioctl(s.fileno(), termios.TIOCOUTQ,
                                          b"\0" * 4))[0]


def unread_heads(port):
    """Bytes waiting in profctl web's connections on port, in its side's
    receive queues (/proc/net/tcp): heads its loop has not read yet."""
    n = 0
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            x = line.split()
            if x[1] == "0100007F:%04X" % port and x[3] == "01":
                n += int(x[4].split(":")[1], 16)
    return n


def answered(held):
    """Has any held connection been answered (a worker gave up waiting
    for its body, or it found the queue full)?"""
    return bool(select.select(held, [], [], 0)[0])


def wait_for(what, cond, held):
    """Until cond(); False if a held connection was answered meanwhile."""
    end = time.monotonic() + HANG_S
    while not cond():
        if answered(held):
            return False
        if time.monotonic() > end:
            fail("gave up waiting for " + what)
        time.sleep(0.02)
    return True


def busy_once(port, token, sock):
    """busy's steps; False when a worker gave up on a body (its read
    timeout, 10 s) before the request was made, which then says
    nothing."""
    # A start with no worker at work and nothing queued: an answer comes
    # after all that was queued before it, and profd sees no worker.
    status, body, _ = request(port, token, "GET", "/v1/scopes")
    if status != 200:
        fail("before: %d %r" % (status, body))
    wait_for("profd's connections from the workers to close",
             lambda: profd_connections(sock) == 1, [])
    held = []
    try:
        for i in range(WORKERS + QUEUE):
            s = connect(port)
            s.sendall(("POST /v1/profiles?scope=slow HTTP/1.1\r\n"
                       "Host: 127.0.0.1:%d\r\nX-Profd-Token: %s\r\n"
                       "X-Profd-UI: 1\r\nContent-Length: 100\r\n\r\n" %
                       (port, token)).encode())
            held.append(s)
            # Every worker has taken one and forwards it to profd, waiting
            # for its body: the rest fill the queue.
            if i == WORKERS - 1 and not wait_for(
                    "every worker to take a request",
                    lambda: profd_connections(sock) >= WORKERS + 1, held):
                return False
        # Every head has reached profctl web, then its loop has read
        # each (and queued it, in the same step).
        if not wait_for("the heads to reach profctl web",
                        lambda: all(unacked(s) == 0 for s in held), held):
            return False
        if not wait_for("profctl web to read the heads",
                        lambda: unread_heads(port) == 0, held):
            return False
        status, body, took = request(port, token, "GET", "/v1/scopes")
        if status != 503 or b'"unavailable"' not in body:
            if answered(held):
                return False
            fail("with every worker busy: %d %r" % (status, body))
        print("busy: 503 in %.3f s" % took)
        return True
    finally:
        for s in held:
            s.close()


def busy(port, token, sock):
    """Every worker waiting for a body that does not come and the queue
    full: the next request is 503 at once; once they go, 200 again."""
    end = time.monotonic() + HANG_S
    while not busy_once(port, token, sock):
        if time.monotonic() > end:
            fail("a worker gave up on a body in every try for %g s" % HANG_S)
        print("a worker gave up waiting for a body meanwhile: again")
    # The workers see the closes when they next read: until then (a
    # moment, longer on a loaded machine or a sanitizer build) the queue
    # may still be full, and 503 is right.
    end = time.monotonic() + HANG_S
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
        busy(port, token, sys.argv[4])
    else:
        fail("no scenario " + scenario)


if __name__ == "__main__":
    main()
