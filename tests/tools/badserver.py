#!/usr/bin/env python3
"""A loopback HTTP server that misbehaves on purpose, until the process
that started it (the test) is gone.

    badserver.py MODE PORTFILE [CONNFILE]

Writes its port to PORTFILE once it listens, and appends to CONNFILE (if
given) the request line of each connection as it arrives, so that a test
can wait for a given client (a scrape's GET, a fleet round's POST).  MODE:
  silent   accepts and never answers (a scrape target or a ClickHouse
           that hangs);
  headers  answers a status line, then header lines without end;
  line     answers a status line, then one header line without end;
  drip     answers a status line, then one header line a byte every
           0.3 s (never silent for long, never large: only a bound on
           the head's whole time ends it), until the client closes.
An endless answer of headers or a line stops after 20 s per connection
(a bound on what a client that reads it all takes in).
"""
import os
import socket
import sys
import threading
import time


def endless(c, mode):
    try:
        c.recv(65536)
        c.sendall(b"HTTP/1.1 200 OK\r\n")
        if mode == "drip":
            # Until the client cuts it: sendall fails then (OSError).
            c.sendall(b"X-Drip: ")
            while True:
                c.sendall(b"a")
                time.sleep(0.3)
        if mode == "line":
            c.sendall(b"X-Endless: ")
        chunk = b"a" * 65536 if mode == "line" else b"X-More: yes\r\n" * 4096
        end = time.monotonic() + 20
        while time.monotonic() < end:
            c.sendall(chunk)
    except OSError:
        pass
    c.close()


def note_request(c, connfile, lock):
    """Reads up to the first line break and appends that line to CONNFILE."""
    line = b""
    try:
        while b"\n" not in line and len(line) < 8192:
            b = c.recv(4096)
            if not b:
                break
            line += b
    except OSError:
        pass
    with lock:
        with open(connfile, "a") as f:
            f.write(line.split(b"\r\n", 1)[0].decode("latin-1") + "\n")


def main():
    mode, portfile = sys.argv[1], sys.argv[2]
    connfile = sys.argv[3] if len(sys.argv) > 3 else None
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    held, lock = [], threading.Lock()
    if connfile:
        open(connfile, "w").close()
    open(portfile, "w").write(str(s.getsockname()[1]))
    # Checked each second: the test's end (or its being killed) ends it.
    parent = os.getppid()
    s.settimeout(1)
    while os.getppid() == parent:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        if mode == "silent":
            held.append(c)
            if connfile:
                threading.Thread(target=note_request,
                                 args=(c, connfile, lock),
                                 daemon=True).start()
        else:
            threading.Thread(target=endless, args=(c, mode),
                             daemon=True).start()


if __name__ == "__main__":
    main()
