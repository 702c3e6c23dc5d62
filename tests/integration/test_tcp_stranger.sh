#!/usr/bin/env bash
# A stranger on the TCP listener (issue 40, findings 1 and 2), over TLS
# with a writer's and a reader's token:
#
# 1. The head decides before any body byte is read: without credentials
#    (none, a wrong token) 401, with the other kind's 403, an unknown
#    path 404, a wrong method 405, a length past max-body 413.  Each
#    stranger announces 48 MiB (under max-body but for the 413) and
#    sends its body as fast as the kernel takes it, reading meanwhile:
#    its answer comes while the body is on its way (profd reading a
#    megabyte without answering is a failure), the connection is closed
#    after it, and profd has read no more of it than what came with the
#    head (its bytes_read counter; nothing held in inflight_body_bytes).
# 2. Strangers do not take the agents' places: ten silent connections
#    with tcp-max-unauthenticated = 4 leave four open (the oldest six
#    closed, counted in unauthenticated_closed); meanwhile an agent
#    pushes and a reader reads, each on a connection it keeps
#    (max-connections = 2 counts those two only: a third with a
#    credential gets 503), and both are served again on them.
# 3. A health check is answered and its connection closed (a
#    stranger's would idle for idle-timeout), with a credential too:
#    it takes no place of max-connections.
#
# header-timeout is an hour: every close seen here is the guard's
# decision, none a deadline's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tls-lib.sh"

tls_ca ca
tls_cert srv ca
tls_tcp_conf "$T/profd.conf" "max-body = 64M" "header-timeout = 3600" \
    "tcp-max-unauthenticated = 4" "max-connections = 2"
"$PROFD" --foreground --config "$T/profd.conf" --spool none --socket "$SOCK" \
    --db "$DB" >>"$T/profd.log" 2>&1 &
PROFD_PID=$!
wait_health "$SOCK"
PORT=$(tcp_port)

PYTHONPATH="$TESTS_DIR/tools" python3 - "$PORT" "$TLS/ca.pem" "$SOCK" \
    "$WTOKEN" "$RTOKEN" <<'EOF' || fail "a stranger on the TCP listener"
import socket, sys
from sockhttp import until
from tcp_stranger import (Stranger, agent_push, ask_on, closed, open_now,
                          read_reply, reader_call, rss, run, tcp_connect,
                          tcp_status)

port, ca, sock, wtok, rtok = int(sys.argv[1]), sys.argv[2], sys.argv[3], \
    sys.argv[4], sys.argv[5]
MiB = 1 << 20


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


# 1. Refused at the head, the body unread.
cases = [("/ingest?name=x.cpu", None, 401),
         ("/ingest?name=x.cpu", "Bearer wrong-" + wtok, 401),
         ("/ingest?name=x.cpu", "Bearer " + rtok, 403),
         ("/v1/scopes", "Bearer " + wtok, 404),
         ("/pyroscope/render", "Bearer " + rtok, 405),
         ("/ingest?name=x.cpu", "Bearer " + wtok, 413)]
announce = {401: 48 * MiB, 403: 48 * MiB, 404: 48 * MiB, 405: 48 * MiB,
            413: 65 * MiB}
before = tcp_status(sock)["bytes_read"]
rss0 = rss(sock)["VmRSS"]
# Three at a time: more would pass tcp-max-unauthenticated (part 2).
xs = []
for i in range(0, len(cases), 3):
    batch = [Stranger(port, ca, announce[want], announce[want], target, auth)
             for target, auth, want in cases[i:i + 3]]
    run(batch, lambda: tcp_status(sock)["bytes_read"] - before > MiB)
    xs += batch
for (target, auth, want), x in zip(cases, xs):
    what = "POST %s (%s)" % (target, auth and auth.split()[1][:6] or "none")
    if not x.replied():
        fail("%s: no answer; %d bytes of its body sent, profd read %d "
             "bytes" % (what, x.sent, tcp_status(sock)["bytes_read"] -
                        before))
    if x.status() != want:
        fail("%s: %d, not %d: %r" % (what, x.status(), want, x.got[:300]))
    head = x.got.split(b"\r\n\r\n")[0].lower()
    if b"connection: close" not in head:
        fail("%s: %d without Connection: close" % (what, want))
    if want == 401 and b'www-authenticate: bearer realm="profd"' not in head:
        fail("%s: 401 without its challenge: %r" % (what, head))
    if not closed(x.s):
        fail("%s: the connection stayed open after %d" % (what, want))
    print("%s: %d with %d bytes of the body sent, then closed" % (
        what, want, x.sent))
st = tcp_status(sock)
read = st["bytes_read"] - before
heads = sum(len(x.head) for x in xs)
print("profd read %d bytes of these %d requests (heads: %d bytes; bodies "
      "sent: %d bytes); RSS %d -> %d kB" % (read, len(xs), heads,
      sum(x.sent for x in xs), rss0 // 1024, rss(sock)["VmRSS"] // 1024))
# What came in the same reads as the head (a TLS record, 16 kB) at
# most.
if read > len(xs) * 64 * 1024:
    fail("profd read %d bytes of requests it refused at their heads" % read)
if st["inflight_body_bytes"] != 0:
    fail("body bytes held: %d" % st["inflight_body_bytes"])
until("the refused connections gone",
      lambda: tcp_status(sock)["connections"] == 0)

# 2. Silent strangers past tcp-max-unauthenticated: the oldest closed.
closed0 = st["unauthenticated_closed"]
silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
st = until("six of ten strangers closed", lambda: (lambda s: s if
           s["unauthenticated_closed"] - closed0 == 6 and
           s["unauthenticated"] == 4 else None)(tcp_status(sock)))
for i, s in enumerate(silent):
    if i < 6 and not closed(s):
        fail("stranger %d of 10 still open" % i)
    if i >= 6 and not open_now(s):
        fail("stranger %d of 10 closed" % i)
print("10 silent strangers: %d open, %d closed" % (
    st["unauthenticated"], st["unauthenticated_closed"] - closed0))
agent, reader = tcp_connect(port, ca), tcp_connect(port, ca)
for n in (1, 2):
    r = agent_push(port, ca, wtok, name="agent%d" % n, s=agent)
    if r[0] != 200:
        fail("push %d while strangers hold connections: %r" % (n, r))
    r = reader_call(port, ca, rtok, s=reader)
    if r[0] != 200 or b"profileTypes" not in r[1]:
        fail("reader's call %d while strangers hold connections: %r" % (n, r))
    if n == 1:
        # Both places taken: a third with a credential waits.
        third = tcp_connect(port, ca)
        r = ask_on(third, "POST", "/querier.v1.QuerierService/ProfileTypes",
                   rtok, b"{}", "application/json")
        if r[0] != 503 or b"max-connections" not in r[2]:
            fail("a third connection with a credential: %r" % (r,))
        third.close()
st = tcp_status(sock)
print("an agent and a reader served twice each on their connections, "
      "%d strangers open beside them; a third: 503" % st["unauthenticated"])
for s in silent + [agent, reader]:
    s.close()
until("every connection gone", lambda: tcp_status(sock)["connections"] == 0)

# 3. Health: answered, and the connection closed, with or without a
#    credential; with both places of max-connections taken.
agent, reader = tcp_connect(port, ca), tcp_connect(port, ca)
if agent_push(port, ca, wtok, name="agent3", s=agent)[0] != 200 or \
        reader_call(port, ca, rtok, s=reader)[0] != 200:
    fail("the agent and the reader again")
for tok in (None, rtok):
    s = tcp_connect(port, ca)
    status, h, body = ask_on(s, "GET", "/v1/health", tok)
    if status != 200 or body != b'{"status":"ok"}\n' or \
            h.get("connection", "").lower() != "close" or not closed(s):
        fail("health (%s): %d %r %r" % (tok and "reader" or "stranger",
                                         status, h, body))
agent.close()
reader.close()
print("health: answered beside two connections with credentials, then "
      "closed")
EOF
r=$(api GET /v1/status)
[ "$(body_of "$r" | json 'j["tcp"]["inflight_body_bytes"]')" = 0 ] ||
    fail "body bytes held at the end: $r"
ok "the TCP listener decides on a head before its body, closes a stranger's connection after its answer, and keeps its places for credentials"
