#!/usr/bin/env python3
"""A TCP port forwarded to a Unix socket, as `ssh -L PORT:SOCKET` makes
one: every connection to 127.0.0.1:PORT is relayed byte for byte, both
ways, to SOCKET.  Until the process that started it (the test) is gone:
a test on a loaded machine takes what it takes.

    sockfwd.py SOCKET PORTFILE

Writes the port it listens on to PORTFILE once it listens."""
import os
import socket
import sys
import threading


def pump(src, dst):
    try:
        while True:
            b = src.recv(65536)
            if not b:
                break
            dst.sendall(b)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def relay(c, path):
    u = socket.socket(socket.AF_UNIX)
    try:
        u.connect(path)
    except OSError:
        c.close()
        return
    threading.Thread(target=pump, args=(c, u), daemon=True).start()
    pump(u, c)


def main():
    path, portfile = sys.argv[1], sys.argv[2]
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    open(portfile, "w").write(str(s.getsockname()[1]))
    # Checked each second: the test's end (or its being killed) ends it.
    parent = os.getppid()
    s.settimeout(1)
    while os.getppid() == parent:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        threading.Thread(target=relay, args=(c, path), daemon=True).start()


if __name__ == "__main__":
    main()
