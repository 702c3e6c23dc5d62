#!/usr/bin/env python3
"""Hold loopback TCP ports for a server a test starts later.

  hold_ports.py OUT [PORT...]
      binds 127.0.0.1:PORT for each PORT given (or two ports the kernel
      picks, without any), writes them to OUT ("P1 P2", written whole),
      then sleeps until killed.  The sockets never listen: a connection to
      them is refused, as to a server that is down.

Why: a port picked by bind(0) comes from the kernel's ephemeral range.
Left unbound between the pick and the server's start, any connection of
a test running beside this one may be given it as its own end, and a
client of the server that is down may be given it for its connection to
it (a TCP self-connection); the server's bind then fails.  A bound port
is never given to a connection.  SO_REUSEADDR so that a port a killed
server left in TIME_WAIT can be held again.  Exits 1 if a given port
cannot be bound within 10 s.
"""
import os
import signal
import socket
import sys
import time


def bind(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # A bound against a hang: a killed server's socket may take a while
    # to go on a loaded machine.
    end = time.monotonic() + 300
    while True:
        try:
            s.bind(("127.0.0.1", port))
            return s
        except OSError as e:
            if port == 0 or time.monotonic() > end:
                sys.exit("hold_ports: 127.0.0.1:%d: %s" % (port, e))
            time.sleep(0.1)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: hold_ports.py OUT [PORT...]")
    out, ports = sys.argv[1], [int(p) for p in sys.argv[2:]] or [0, 0]
    held = [bind(p) for p in ports]
    with open(out + ".tmp", "w") as f:
        f.write(" ".join(str(s.getsockname()[1]) for s in held) + "\n")
    os.rename(out + ".tmp", out)
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
