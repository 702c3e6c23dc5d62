#!/usr/bin/env bash
# One Content-Length (issue 25, item 4): a head with two of them (equal or
# not), a signed, padded or listed value, Content-Length beside
# Transfer-Encoding, or an obsolete folded line gets 400 and the
# connection closes, on the Unix socket and the TCP listener alike:
# nothing of it reaches a handler (nothing stored), and what followed on
# the connection is never read as a request of its own.
source "$TESTS_DIR/integration/lib.sh"
start_profd --listen-tcp 127.0.0.1:0
PORT=$(tcp_port)

python3 - "$SOCK" "$PORT" <<'EOF2' || fail "heads"
import socket, sys
sock, port = sys.argv[1], int(sys.argv[2])
body = b"main;run 5\n"
smuggled = b"POST /v1/profiles?scope=smuggled&format=folded HTTP/1.1\r\nHost: localhost\r\nContent-Length: 11\r\n\r\nmain;run 5\n"

def ask(kind, head):
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX)
        s.connect(sock)
    else:
        s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(30)
    s.sendall(head)
    data = b""
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        if not b:
            break
        data += b
    s.close()
    return data

def path(kind):
    return b"/v1/profiles?scope=one&format=folded" if kind == "unix" else \
        b"/ingest?name=one&from=1700000000&until=1700000010"

bad = {
    b"Content-Length: 11\r\nContent-Length: 11\r\n": b"more than one Content-Length",
    b"Content-Length: 11\r\nContent-Length: 0\r\n": b"more than one Content-Length",
    b"Content-Length: +11\r\n": b"not a plain decimal number",
    b"Content-Length: 011\r\n": b"not a plain decimal number",
    b"Content-Length: 11, 11\r\n": b"not a plain decimal number",
    b"Content-Length: 11\r\nTransfer-Encoding: chunked\r\n": b"both Content-Length and Transfer-Encoding",
    b"Content-Length: 11\r\nX-A: b\r\n c\r\n": b"folded",
}
for kind in ("unix", "tcp"):
    for h, why in bad.items():
        req = (b"POST " + path(kind) + b" HTTP/1.1\r\nHost: localhost\r\n" +
               h + b"\r\n" + body + smuggled)
        r = ask(kind, req)
        status = r.split(b"\r\n", 1)[0]
        if not status.startswith(b"HTTP/1.1 400") or why not in r:
            print("FAIL: %s %r: %r" % (kind, h, r[:300]), file=sys.stderr)
            sys.exit(1)
        if r.count(b"HTTP/1.1 ") != 1:
            print("FAIL: %s %r: more than one reply: %r" % (kind, h, r),
                  file=sys.stderr)
            sys.exit(1)
    # The same request with one plain length is taken.
    r = ask(kind, b"POST " + path(kind) + b" HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Length: 11\r\nConnection: close\r\n\r\n" + body)
    if not r.startswith((b"HTTP/1.1 200", b"HTTP/1.1 201")):
        print("FAIL: %s plain push: %r" % (kind, r[:300]), file=sys.stderr)
        sys.exit(1)
    print("ok: %s: %d heads refused with 400 and one reply; a plain one taken"
          % (kind, len(bad)))
EOF2
for s in one smuggled; do
	n=$(api GET "/v1/profiles?scope=$s" | sed '$d' | json 'len(j.get("profiles", []))' 2>/dev/null || echo 0)
	want=0
	[ "$s" = one ] && want=2
	[ "$n" = "$want" ] || fail "scope $s: $n profiles, want $want"
done
ok "nothing refused was stored, nothing after a refused head was read"
