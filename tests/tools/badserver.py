#!/usr/bin/env python3
"""A loopback HTTP server that misbehaves on purpose, for 300 s at most.

    badserver.py MODE PORTFILE [CONNFILE]

Writes its port to PORTFILE once it listens, and the count of
connections it accepted to CONNFILE (if given) after each one.  MODE:
  silent   accepts and never answers (a scrape target or a ClickHouse
           that hangs);
  headers  answers a status line, then header lines without end;
  line     answers a status line, then one header line without end.
An endless answer stops after 20 s per connection.
"""
import socket
import sys
import threading
import time


def endless(c, mode):
    try:
        c.recv(65536)
        c.sendall(b"HTTP/1.1 200 OK\r\n")
        if mode == "line":
            c.sendall(b"X-Endless: ")
        chunk = b"a" * 65536 if mode == "line" else b"X-More: yes\r\n" * 4096
        end = time.monotonic() + 20
        while time.monotonic() < end:
            c.sendall(chunk)
    except OSError:
        pass
    c.close()


def main():
    mode, portfile = sys.argv[1], sys.argv[2]
    connfile = sys.argv[3] if len(sys.argv) > 3 else None
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    held, n = [], 0
    if connfile:
        open(connfile, "w").write("0")
    open(portfile, "w").write(str(s.getsockname()[1]))
    s.settimeout(1)
    end = time.monotonic() + 300
    while time.monotonic() < end:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        n += 1
        if connfile:
            open(connfile, "w").write(str(n))
        if mode == "silent":
            held.append(c)
        else:
            threading.Thread(target=endless, args=(c, mode),
                             daemon=True).start()


if __name__ == "__main__":
    main()
