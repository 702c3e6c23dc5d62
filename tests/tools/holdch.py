#!/usr/bin/env python3
"""A loopback stand-in for ClickHouse that holds some of profd's fleet
questions, until the process that started it (the test) is gone.

    holdch.py DIR

Writes its port to DIR/port once it listens.  Every request is answered
200 with an empty answer (the shipper's schema, inserts and questions
find nothing to do), but for two: the scopes' listing (what a fleet view
and Grafana's calls ask first) lists one scope, "hold", with one metric,
cpu/nanoseconds; and a question naming the scope 'hold' (the view's next
ones, asked at once) is held without an answer until DIR/release exists,
or the client closes.  DIR/held holds the number of questions held now, DIR/asked the
number held so far (each file replaced whole), so that a test waits for
a view to be held, or for one to be let go, by the condition itself.
"""
import os
import socket
import sys
import threading

DIR = sys.argv[1]
SCOPES = b"ARRAY JOIN metrics AS metric GROUP BY scope"
lock = threading.Lock()
held = 0
asked = 0


def note():
    for name, n in (("held", held), ("asked", asked)):
        tmp = os.path.join(DIR, name + ".tmp")
        with open(tmp, "w") as f:
            f.write("%d\n" % n)
        os.rename(tmp, os.path.join(DIR, name))


def request(c, buf):
    """One request off c: (body, what follows), or None at its end."""
    while b"\r\n\r\n" not in buf:
        d = c.recv(65536)
        if not d:
            return None
        buf += d
    head, rest = buf.split(b"\r\n\r\n", 1)
    n = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":", 1)[1])
    while len(rest) < n:
        d = c.recv(65536)
        if not d:
            return None
        rest += d
    return rest[:n], rest[n:]


def hold(c):
    """Until DIR/release exists or the client is gone (profd cancelled
    the question: the view it asked for was cancelled)."""
    global held, asked
    with lock:
        held += 1
        asked += 1
        note()
    c.settimeout(0.05)
    try:
        while not os.path.exists(os.path.join(DIR, "release")):
            try:
                if c.recv(1) == b"":
                    return False
            except socket.timeout:
                pass
        return True
    except OSError:
        return False
    finally:
        c.settimeout(None)
        with lock:
            held -= 1
            note()


def serve(c):
    buf = b""
    try:
        while True:
            r = request(c, buf)
            if r is None:
                return
            body, buf = r
            out = b""
            if SCOPES in body:
                out = (b"hold\t1\t1000000000\t2000000000000000000\t"
                       b"['cpu/nanoseconds']\n")
            elif b"'hold'" in body and not hold(c):
                return
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n"
                      % len(out) + out)
    except OSError:
        pass
    finally:
        c.close()


def main():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    note()
    tmp = os.path.join(DIR, "port.tmp")
    with open(tmp, "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    os.rename(tmp, os.path.join(DIR, "port"))
    parent = os.getppid()
    s.settimeout(0.5)
    while os.getppid() == parent:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        c.settimeout(None)
        threading.Thread(target=serve, args=(c,), daemon=True).start()


main()
