#!/usr/bin/env python3
"""tls_relay.py CERT KEY PORT BACKEND_PORT: a TLS server on 127.0.0.1:PORT
(0: a free port, which its "listening on" line names)
(TLS 1.2 and later, the PEM certificate chain CERT and its key KEY) that
relays each connection's bytes to 127.0.0.1:BACKEND_PORT in clear text and
back: https in front of a server that speaks http only (the fleet test's
ClickHouse, whose Debian build serves no https here).  Each handshake,
done or failed, is a line on stderr, and so is the end of each connection
whose handshake was done (either side closed it), for a test to wait on.
Runs until killed."""
import socket
import ssl
import sys
import threading

from sockfwd import pump  # the same byte pump, one place


def serve(ctx, conn, backend):
    try:
        tls = ctx.wrap_socket(conn, server_side=True)
    except (ssl.SSLError, OSError) as e:
        print("tls_relay: handshake failed: %s" % e, file=sys.stderr,
              flush=True)
        conn.close()
        return
    print("tls_relay: handshake done", file=sys.stderr, flush=True)
    try:
        up = socket.create_connection(("127.0.0.1", backend))
    except OSError as e:
        print("tls_relay: backend: %s" % e, file=sys.stderr, flush=True)
        tls.close()
        print("tls_relay: connection closed", file=sys.stderr, flush=True)
        return
    t = threading.Thread(target=pump, args=(up, tls), daemon=True)
    t.start()
    pump(tls, up)
    t.join()
    tls.close()
    up.close()
    print("tls_relay: connection closed", file=sys.stderr, flush=True)


def main():
    cert, key, port, backend = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(cert, key)
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(64)
    print("tls_relay: listening on 127.0.0.1:%d" % ls.getsockname()[1],
          flush=True)
    while True:
        conn, _ = ls.accept()
        threading.Thread(target=serve, args=(ctx, conn, backend),
                         daemon=True).start()


if __name__ == "__main__":
    main()
