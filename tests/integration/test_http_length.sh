#!/usr/bin/env bash
# Content-Length on every reply that is not streamed, for HTTP/1.0 and
# for HEAD (issue 24), on the Unix socket and on the TCP listener.
# libevent 2.1 leaves it out of HTTP/1.0 replies (it closes the
# connection after them) and out of HEAD replies, whose body it would
# send anyway.  A HEAD is answered as its GET, headers only: the length
# is the one the GET's body has, and the next request on the connection
# gets its own reply (but after a refusal of the TCP listener's guard,
# which closes the connection: issue 40).  Checked for a view, an error,
# a UI file (gzip and not), the redirect to /ui/ and health, and with
# curl.
source "$TESTS_DIR/integration/lib.sh"
start_profd --listen-tcp 127.0.0.1:0
PORT=$(tcp_port)
"$PROFCTL" push --scope web "$FIXTURES/cpu.pprof" >/dev/null || fail "push"

python3 - "$SOCK" "$PORT" <<'EOF' || fail "Content-Length"
import socket, sys

sock, port = sys.argv[1], int(sys.argv[2])

def conn(where):
    if where == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sock)
    else:
        s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(10)
    return s

def read_head(s, buf):
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            sys.exit("closed before a whole head: %r" % buf)
        buf += d
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    h = {}
    for l in lines[1:]:
        k, v = l.split(":", 1)
        h[k.strip().lower()] = v.strip()
    return int(lines[0].split()[1]), h, rest

def read_all(s, buf):
    while True:
        d = s.recv(65536)
        if not d:
            return buf
        buf += d

def req(method, target, version, extra=b""):
    return b"%s %s HTTP/%s\r\nHost: localhost\r\n%s\r\n" % (
        method, target, version, extra)

def get10(where, target, extra=b""):
    """An HTTP/1.0 GET: the reply, read to the close."""
    s = conn(where)
    s.sendall(req(b"GET", target, b"1.0", extra))
    status, h, rest = read_head(s, b"")
    body = read_all(s, rest)
    s.close()
    what = "%s GET %s HTTP/1.0" % (where, target.decode())
    if "content-length" not in h:
        sys.exit("%s: %d without Content-Length: %r" % (what, status, h))
    if int(h["content-length"]) != len(body):
        sys.exit("%s: Content-Length %s, body %d bytes" % (
            what, h["content-length"], len(body)))
    print("ok: %s -> %d, Content-Length %d" % (what, status, len(body)))
    return status, body

def head11(where, target, extra=b"", want=None, closes=False):
    """HEAD then GET on one HTTP/1.1 connection: the HEAD's reply has a
    length and no body (the GET's reply comes next, whole; closes: the
    connection ends after the HEAD's reply instead)."""
    s = conn(where)
    s.sendall(req(b"HEAD", target, b"1.1", extra) +
              req(b"GET", b"/v1/health", b"1.1", b"Connection: close\r\n"))
    status, h, rest = read_head(s, b"")
    what = "%s HEAD %s" % (where, target.decode())
    if "content-length" not in h:
        sys.exit("%s: %d without Content-Length: %r" % (what, status, h))
    n = int(h["content-length"])
    if want is not None and n != want:
        sys.exit("%s: Content-Length %d, the GET's body has %d" % (
            what, n, want))
    if not rest.startswith(b"HTTP/1.1 ") and rest != b"":
        sys.exit("%s: bytes after the head: %r" % (what, rest[:100]))
    if closes:
        try:
            rest = read_all(s, rest)
        except ConnectionResetError:
            pass
        if rest != b"":
            sys.exit("%s: bytes after the head: %r" % (what, rest[:100]))
        print("ok: %s -> %d, Content-Length %d, no body, closed" % (
            what, status, n))
        return status
    status2, h2, rest2 = read_head(s, rest)
    body2 = read_all(s, rest2)
    s.close()
    if status2 != 200 or int(h2["content-length"]) != len(body2):
        sys.exit("%s: the next reply: %d %r" % (what, status2, h2))
    print("ok: %s -> %d, Content-Length %d, no body" % (what, status, n))
    return status

gz = b"Accept-Encoding: gzip\r\n"
for where, target, extra in [
        ("unix", b"/v1/scopes", b""),
        ("unix", b"/v1/profiles?scope=web", b""),
        ("unix", b"/v1/top?scope=nosuch", b""),    # 404, an error
        ("unix", b"/v1/top?scope=web&limit=x", b""),  # 400
        ("unix", b"/ui/app.js", b""),
        ("unix", b"/ui/app.js", gz),
        ("unix", b"/ui/", b""),
        ("unix", b"/", b""),                    # 302 to /ui/
        ("tcp", b"/v1/scopes", b""),            # 404: not served there
        ]:
    status, body = get10(where, target, extra)
    # The same GET in 1.1 (keep-alive: libevent's own length), then HEAD.
    s = conn(where)
    s.sendall(req(b"GET", target, b"1.1", extra + b"Connection: close\r\n"))
    st11, h11, rest = read_head(s, b"")
    body11 = read_all(s, rest)
    s.close()
    if st11 != status or body11 != body:
        sys.exit("%s %s: 1.1 and 1.0 differ: %d %d" % (
            where, target, st11, status))
    if head11(where, target, extra, len(body11),
              closes=where == "tcp" and status == 404) != status:
        sys.exit("%s HEAD %s: not the GET's status" % (where, target))
for where in ("unix", "tcp"):
    get10(where, b"/v1/health")
    head11(where, b"/v1/health")
# A route that takes no GET: 405, with a length and no body.
head11("unix", b"/v1/query")
EOF
ok "HTTP/1.0 and HEAD replies carry Content-Length"

# The same through curl.
curl -s --http1.0 -D "$T/h10" -o "$T/b10" --unix-socket "$SOCK" \
    http://localhost/v1/scopes || fail "curl --http1.0"
has -i "^Content-Length: $(wc -c <"$T/b10")" "$T/h10" ||
	fail "curl --http1.0: $(cat "$T/h10")"
curl -sI --unix-socket "$SOCK" http://localhost/ui/index.html >"$T/hi" ||
	fail "curl -I"
has -i "^Content-Length: [1-9]" "$T/hi" || fail "curl -I: $(cat "$T/hi")"
has "^HTTP/1.1 200" "$T/hi" || fail "curl -I: $(cat "$T/hi")"
curl -sI "http://127.0.0.1:$PORT/v1/health" >"$T/ht" || fail "curl -I tcp"
has -i "^Content-Length: [1-9]" "$T/ht" || fail "curl -I tcp: $(cat "$T/ht")"
ok "curl --http1.0 and curl -I"
