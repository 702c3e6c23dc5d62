# --listen-tcp: the listener Pyroscope agents push to over TCP.  It serves
# /ingest, /push.v1.PusherService/Push and /v1/health only; off loopback
# profd refuses to start without tcp-auth-token or tcp-basic-auth; with
# them set a push without the right credentials is a 401 naming the
# schemes; the connection guard (header-timeout) holds on it too; any
# Host is answered there, while the socket still refuses a foreign one.
. "$(dirname "$0")/lib.sh"
BODY="$TESTS_DIR/tools/pyroscope_body.py"

# Refusals at start: not loopback without credentials, a bad address.
# Port 0, the kernel's pick, where profd would bind: no port in use is
# ever the reason of a refusal.
PORT=0
if "$PROFD" --foreground --no-config --spool none --socket "$T/x.sock" \
    --db "$T/x.db" --listen-tcp "0.0.0.0:$PORT" --tcp-basic-auth nocolon \
    >"$T/refused.log" 2>&1; then
	fail "profd started with a tcp-basic-auth without a password"
fi
has -e "tcp-basic-auth is not USER:PASSWORD" "$T/refused.log" || fail "basic: $(cat "$T/refused.log")"
# An empty password (or token) opens nothing (issue 25).
if "$PROFD" --foreground --no-config --spool none --socket "$T/x.sock" \
    --db "$T/x.db" --listen-tcp "0.0.0.0:$PORT" --tcp-basic-auth agent: \
    >"$T/refused.log" 2>&1; then
	fail "profd started with tcp-basic-auth = agent:"
fi
has -e "tcp-basic-auth has an empty password" "$T/refused.log" ||
	fail "empty password: $(cat "$T/refused.log")"
for spec in "0.0.0.0:$PORT" "[::]:$PORT" "nonsense" "127.0.0.1:99999"; do
	if "$PROFD" --foreground --no-config --spool none --socket "$T/x.sock" \
	    --db "$T/x.db" --listen-tcp "$spec" >"$T/refused.log" 2>&1; then
		fail "profd started with --listen-tcp $spec"
	fi
	has -e "listen-tcp" "$T/refused.log" || fail "$spec: $(cat "$T/refused.log")"
done
has -e "not a loopback address: set tcp-auth-token or tcp-basic-auth" \
    <(PROFD_X=1 "$PROFD" --foreground --no-config --spool none --socket "$T/x.sock" \
    --db "$T/x.db" --listen-tcp "0.0.0.0:$PORT" 2>&1) || fail "refusal message"
[ ! -e "$T/x.sock" ] || fail "a refused start left a socket"
ok "off loopback without credentials, and bad addresses: profd refuses to start"

# Loopback, no credentials: ingest only, any Host.  header-timeout 11 s,
# above the default (10 s): a head cut no sooner is cut by the one set.
start_profd --listen-tcp 127.0.0.1:0 --header-timeout 11
PORT=$(tcp_port)
URL="http://127.0.0.1:$PORT"
timed_out() { api GET /v1/health | sed '$d' | json 'j["http"]["timed_out"]'; }
timed_out0=$(timed_out)
# The guard: a head trickled a line each 0.5 s (never silent for long,
# never whole) until profd cuts it, 300 s at most (a bound against a
# hang).  Not before header-timeout: the clock starts before the
# connection, profd's at its accept; 10.5 s allows for a coarse clock.
# No upper bound: a loaded machine may cut it late.  Started now, it
# trickles while the rest is checked.
python3 - "$PORT" >"$T/slow.out" 2>&1 <<'PY' &
import socket, sys, time
start = time.monotonic()
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"POST /ingest?name=slow.cpu HTTP/1.1\r\nHost: x\r\n")
cut = False
try:
    while not cut and time.monotonic() - start < 300:
        s.sendall(b"X-Slow: 1\r\n")
        time.sleep(0.5)
        s.setblocking(False)
        try:
            cut = s.recv(4096) == b""
        except BlockingIOError:
            pass
        s.setblocking(True)
except (BrokenPipeError, ConnectionResetError):
    cut = True
took = time.monotonic() - start
print("cut: %s after %.1f s" % (cut, took))
sys.exit(0 if cut and took >= 10.5 else 1)
PY
SLOW=$!
tcp() {
	local method=$1 path=$2
	shift 2
	curl -s -X "$method" -w '\n%{http_code}\n' "$URL$path" "$@"
}
r=$(tcp POST "/ingest?name=tcpapp.cpu&from=1700000000&until=1700000010" \
    -H "Host: profiles.example.com:$PORT" --data-binary $'main;run 5\n')
[ "$(status_of "$r")" = 200 ] || fail "ingest over TCP: $r"
python3 "$BODY" push "$T/p.bin" --label service_name=tcppush "$FIXTURES/mutex.pprof"
r=$(tcp POST /push.v1.PusherService/Push -H "Content-Type: application/proto" \
    --data-binary @"$T/p.bin")
[ "$(status_of "$r")" = 200 ] || fail "Connect push over TCP: $r"
r=$(tcp GET /v1/health)
[ "$(status_of "$r")" = 200 ] || fail "health over TCP"
# It tells a stranger nothing but that profd serves (issue 25).
[ "$(body_of "$r")" = '{"status":"ok"}' ] || fail "health over TCP says: $r"
for route in "GET /v1/scopes" "GET /v1/top?scope=tcpapp" "DELETE /v1/profiles?scope=tcpapp" \
    "GET /ui/" "GET /" "POST /v1/profiles?scope=x" "POST /v1/query" "GET /ingestx"; do
	r=$(tcp $route --data-binary x)
	[ "$(status_of "$r")" = 404 ] || fail "$route over TCP: $r"
done
r=$(api GET /v1/scopes)
[ "$(body_of "$r" | json '[s["name"] for s in j["scopes"]]')" = '["tcpapp", "tcppush"]' ] ||
    fail "what TCP pushed: $r"
r=$(api GET /v1/scopes -H "Host: profiles.example.com")
[ "$(status_of "$r")" = 403 ] || fail "the socket answered a foreign Host: $r"
ok "loopback listener: ingest and Connect push, 404 for the rest, any Host"

# The guard: the head trickled since the start is cut at header-timeout,
# counted as timed out; profd serves on.
wait "$SLOW" || fail "slow head over TCP: $(cat "$T/slow.out")"
[ "$(timed_out)" = $((timed_out0 + 1)) ] ||
    fail "timed out: $(timed_out), $timed_out0 before the slow head"
[ "$(status_of "$(tcp GET /v1/health)")" = 200 ] || fail "health after the slow head"
ok "header-timeout cuts a trickled head on the TCP listener ($(cat "$T/slow.out"))"
stop_profd

# Off loopback with credentials from the config file: 401 without them
# (clear text allowed by tcp-insecure: test_tls.sh tests TLS).
TOKEN='tok-test-0123456789abcdef'
cat >"$T/profd.conf" <<CONF
listen-tcp = 0.0.0.0:0
tcp-insecure = yes
tcp-auth-token = $TOKEN
tcp-basic-auth = agent:pa:ss word
CONF
"$PROFD" --foreground --config "$T/profd.conf" --spool none --socket "$SOCK" \
    --db "$DB" >>"$T/profd.log" 2>&1 &
PROFD_PID=$!
wait_health "$SOCK"
# A new start, a new port (a reload keeps it: checked below).
PORT=$(tcp_port)
URL="http://127.0.0.1:$PORT"
at() { printf '/ingest?name=authapp.cpu&from=%s&until=%s' "$1" $(($1 + 10)); }
q=$(at 1700000000)
for creds in "" "-H Authorization:" "-H Authorization:Bearer" \
    "-H Authorization:Bearer ${TOKEN}x" "-H Authorization:Bearer ${TOKEN%?}" \
    "-u agent:wrong" "-u agent:pa:ss" "-u other:pa:ss word" \
    "-H Authorization:Basic ${TOKEN}"; do
	curl -s -D "$T/h" -o "$T/b" -X POST "$URL$q" --data-binary $'a 1\n' ${creds:+"${creds%% *}"} ${creds:+"${creds#* }"} || true
	grep -q '^HTTP/1.1 401' "$T/h" || fail "credentials '$creds': $(cat "$T/h" "$T/b")"
	grep -qi '^WWW-Authenticate: Bearer realm="profd"' "$T/h" || fail "no Bearer challenge: $(cat "$T/h")"
	grep -qi '^WWW-Authenticate: Basic realm="profd"' "$T/h" || fail "no Basic challenge: $(cat "$T/h")"
done
r=$(tcp POST "$q" -H "Authorization: Bearer $TOKEN" --data-binary $'a 1\n')
[ "$(status_of "$r")" = 200 ] || fail "bearer: $r"
r=$(tcp POST "$(at 1700000020)" -u "agent:pa:ss word" --data-binary $'a 1\n')
[ "$(status_of "$r")" = 200 ] || fail "basic: $r"
r=$(tcp POST /push.v1.PusherService/Push -H "Content-Type: application/proto" \
    --data-binary @"$T/p.bin")
[ "$(status_of "$r")" = 401 ] || fail "Connect push without credentials: $r"
r=$(tcp POST /push.v1.PusherService/Push -H "Content-Type: application/proto" \
    -H "Authorization: Bearer $TOKEN" --data-binary @"$T/p.bin")
[ "$(status_of "$r")" = 200 ] || fail "Connect push with the token: $r"
[ "$(status_of "$(tcp GET /v1/health)")" = 200 ] || fail "health needs no credentials"
[ "$(status_of "$(tcp GET /v1/scopes -H "Authorization: Bearer $TOKEN")")" = 404 ] ||
    fail "credentials open no other route"
[ "$(api GET "/v1/profiles?scope=authapp" | sed '$d' | json 'len(j["profiles"])')" = 2 ] ||
    fail "the authorized pushes"
# A reload keeps the listener and its credentials.
reloads() { grep -c "SIGHUP: settings read again" "$T/profd.log" || true; }
reloads0=$(reloads)
kill -HUP "$PROFD_PID"
reloaded() { [ "$(reloads)" -gt "$reloads0" ]; }
wait_until "the reload" reloaded
r=$(tcp POST "$(at 1700000040)" --data-binary $'a 1\n')
[ "$(status_of "$r")" = 401 ] || fail "after SIGHUP without credentials: $r"
r=$(tcp POST "$(at 1700000040)" -H "Authorization: Bearer $TOKEN" --data-binary $'a 1\n')
[ "$(status_of "$r")" = 200 ] || fail "after SIGHUP with the token: $r"
ok "off loopback: 401 with both challenges for missing or wrong credentials, token and basic work"

# /v1/status (on the socket) tells where the listener is, which
# credentials it takes and what it refused: 11 pushes without valid ones
# above (9 tries, the Connect push, the one after SIGHUP), 1 path it does
# not serve, 17 requests in all.
r=$(api GET /v1/status)
body_of "$r" | json 'j["tcp"]' >"$T/tcp.json"
[ "$(json '[j["listen"], j["auth"], j["requests"], j["unauthorized"], j["not_found"]]' <"$T/tcp.json")" = \
    "[\"0.0.0.0:$PORT\", \"token basic\", 17, 11, 1]" ] || fail "status tcp: $(cat "$T/tcp.json")"
"$PROFCTL" status >"$T/status.txt"
has -x "tcp listener: 0.0.0.0:$PORT, credentials: token basic" "$T/status.txt" ||
    fail "profctl status: $(cat "$T/status.txt")"
has -E '^  [0-9]+ connections? open, 17 requests: 11 without valid credentials \(401\), 0 with the other kind.s \(403\), 1 to paths it does not serve \(404\)$' \
    "$T/status.txt" || fail "profctl status counts: $(cat "$T/status.txt")"
stop_profd
start_profd
[ "$(api GET /v1/status | sed '$d' | json 'j["tcp"]')" = None ] || fail "status tcp without a listener"
ok "status: the listener's address, credentials and refusals"
