# TLS on --listen-tcp (issue 28), with certificates openssl makes here:
#
# 1. Start refusals: tls-cert without tls-key (and the other way round),
#    a key that cannot be read, a key that is not the certificate's, a
#    certificate that is not PEM; an address that is not loopback
#    without TLS, unless tcp-insecure.
# 2. curl --cacert pushes a real pprof over https to /ingest with the
#    writers' token; profctl top on the socket shows the same numbers as
#    the same file pushed over the socket.
# 3. The port speaks no clear text: a plain HTTP request gets no HTTP
#    reply.  TLS 1.1 is refused, 1.2 and 1.3 accepted.
# 4. Credentials, writers' and readers': none or wrong 401, the other
#    kind's 403, their own kind's 200, by token and by basic auth; the
#    read routes the same once they exist on this branch.
# 5. SIGHUP after the files are replaced: new connections see the new
#    certificate; a broken file keeps the old one serving, and says so
#    in the log and /v1/status.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tls-lib.sh"

tls_ca ca
tls_cert srv ca
tls_cert other ca
run_refused() {	# run_refused WHAT MESSAGE FLAGS...: profd must not start
	local what=$1 msg=$2
	shift 2
	if "$PROFD" --foreground --no-config --spool none --socket "$T/x.sock" \
	    --db "$T/x.db" "$@" >"$T/refused.log" 2>&1; then
		fail "profd started with $what"
	fi
	has -F -e "$msg" "$T/refused.log" ||
	    fail "$what: not \"$msg\": $(cat "$T/refused.log")"
	[ ! -e "$T/x.sock" ] || fail "$what: a refused start left a socket"
}

# 1. Refusals at start.  Port 0, the kernel's pick, where profd would
#    bind: no port in use is ever the reason of a refusal.
L=(--listen-tcp 127.0.0.1:0)
run_refused "tls-cert alone" "tls-cert is set without tls-key" \
    "${L[@]}" --tls-cert "$TLS/srv.pem"
run_refused "tls-key alone" "tls-key is set without tls-cert" \
    "${L[@]}" --tls-key "$TLS/srv.key"
run_refused "a missing key" \
    "tls-key $TLS/nokey.pem: cannot read it: No such file or directory" \
    "${L[@]}" --tls-cert "$TLS/srv.pem" --tls-key "$TLS/nokey.pem"
run_refused "another certificate's key" \
    "tls-key $TLS/other.key is not the key of the certificate in tls-cert $TLS/srv.pem" \
    "${L[@]}" --tls-cert "$TLS/srv.pem" --tls-key "$TLS/other.key"
echo "not a certificate" >"$TLS/junk.pem"
run_refused "a certificate that is not PEM" \
    "tls-cert $TLS/junk.pem is not a PEM certificate" \
    "${L[@]}" --tls-cert "$TLS/junk.pem" --tls-key "$TLS/srv.key"
printf 'tcp-auth-token = %s\n' "w-any-0123456789abcdef" >"$T/any.conf"
run_refused "0.0.0.0 in clear text" "set tls-cert and tls-key" \
    --config "$T/any.conf" --listen-tcp 0.0.0.0:0
# With tcp-insecure it starts (then stops), and with TLS too.
for extra in "--tcp-insecure" "--tls-cert $TLS/srv.pem --tls-key $TLS/srv.key"; do
	: >"$T/y.log"
	"$PROFD" --foreground --config "$T/any.conf" --spool none \
	    --socket "$T/y.sock" --db "$T/y.db" --listen-tcp 0.0.0.0:0 \
	    $extra >"$T/y.log" 2>&1 &
	PROFD_PID=$!
	wait_health "$T/y.sock"
	yport=$(SOCK="$T/y.sock" tcp_port)	# this profd's socket, not $SOCK
	case $extra in
	--tcp-insecure) want="0.0.0.0:$yport for Pyroscope agents and readers (clear text, no TLS; credentials required)" ;;
	*) want="0.0.0.0:$yport for Pyroscope agents and readers (TLS, certificate CN=localhost" ;;
	esac
	has -F "$want" "$T/y.log" || fail "$extra: $(cat "$T/y.log")"
	stop_profd
done
ok "refused: one of tls-cert/tls-key, unreadable, mismatched or non-PEM files, 0.0.0.0 in clear text; tcp-insecure and TLS start"

# 2. Pushes over https.  The credentials in the config file;
#    header-timeout 11 s, above the default (10 s): a head cut no
#    sooner is cut by the one set.
WTOKEN='w-writer-0123456789abcdef'
RTOKEN='r-reader-0123456789abcdef'
cat >"$T/profd.conf" <<CONF
listen-tcp = 127.0.0.1:0
tls-cert = $TLS/live.pem
tls-key = $TLS/live.key
tcp-auth-token = $WTOKEN
tcp-basic-auth = agent:pa:ss word
tcp-read-token = $RTOKEN
tcp-read-basic-auth = grafana:gr-pass
header-timeout = 11
max-body = 1M
CONF
cp "$TLS/srv.pem" "$TLS/live.pem"
cp "$TLS/srv.key" "$TLS/live.key"
"$PROFD" --foreground --config "$T/profd.conf" --spool none --socket "$SOCK" \
    --db "$DB" >>"$T/profd.log" 2>&1 &
PROFD_PID=$!
wait_health "$SOCK"
PORT=$(tcp_port)
has -F "listening on TCP 127.0.0.1:$PORT for Pyroscope agents and readers (TLS, certificate CN=localhost, serial $(tls_serial "$TLS/srv.pem")" \
    "$T/profd.log" || fail "the start line: $(cat "$T/profd.log")"
URL="https://127.0.0.1:$PORT"
tcp() {	# tcp METHOD PATH [curl args]: body, then the status
	local method=$1 path=$2
	shift 2
	curl -s --cacert "$TLS/ca.pem" -X "$method" -w '\n%{http_code}\n' \
	    "$URL$path" "$@"
}
r=$(tcp POST "/ingest?name=tlsapp.cpu&format=pprof" \
    -H "Authorization: Bearer $WTOKEN" --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 200 ] || fail "push over https: $r"
r=$(api POST "/ingest?name=sockapp.cpu&format=pprof" \
    --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 200 ] || fail "push over the socket: $r"
for metric in cpu samples; do
	"$PROFCTL" top --scope tlsapp --metric $metric --json >"$T/tls.json" ||
	    fail "profctl top tlsapp"
	"$PROFCTL" top --scope sockapp --metric $metric --json >"$T/sock.json" ||
	    fail "profctl top sockapp"
	python3 - "$T/tls.json" "$T/sock.json" <<'PY' || fail "top over https and the socket differ ($metric)"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["total"] > 0 and len(a["rows"]) > 5, (a["total"], len(a["rows"]))
assert a["total"] == b["total"], (a["total"], b["total"])
assert a["rows"] == b["rows"], "rows differ"
PY
done
ok "a pprof pushed with curl over https: profctl top's numbers equal the same file's pushed over the socket (cpu and samples)"

# 3. No clear text on the port: the request fails the handshake, no HTTP
#    comes back.
rc=0
code=$(curl -s -o "$T/plain.out" -w '%{http_code}' "http://127.0.0.1:$PORT/v1/health") || rc=$?
[ "$code" = 000 ] && [ "$rc" != 0 ] || fail "plain http got $code (curl $rc)"
# Read until profd closes it (300 s: a bound against a hang).
python3 - "$PORT" <<'PY' || fail "a clear text request got an HTTP reply"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=300)
s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
got = b""
try:
    while len(got) < 4096:
        d = s.recv(4096)
        if not d:
            break
        got += d
except ConnectionResetError:
    pass
except socket.timeout:
    sys.exit("not closed in 300 s")
assert b"HTTP/" not in got, got[:100]
PY
openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$TLS/ca.pem" -tls1_2 \
    </dev/null >"$T/s12.out" 2>&1 || fail "TLS 1.2: $(tail -5 "$T/s12.out")"
has -E 'Protocol *: TLSv1.2' "$T/s12.out" || fail "TLS 1.2: $(cat "$T/s12.out")"
has -F "Verify return code: 0 (ok)" "$T/s12.out" || fail "TLS 1.2 verify: $(cat "$T/s12.out")"
[ "$(tcp GET /v1/health --tlsv1.3 | tail -n 1)" = 200 ] || fail "TLS 1.3"
# OpenSSL 3 offers TLS 1.1 at security level 0 only: asked so, profd
# must refuse it itself.
if openssl s_client -connect "127.0.0.1:$PORT" -tls1_1 \
    -cipher 'DEFAULT@SECLEVEL=0' </dev/null >"$T/s11.out" 2>&1; then
	fail "TLS 1.1 accepted: $(cat "$T/s11.out")"
fi
has -E 'alert protocol version|unsupported protocol|no protocols available' "$T/s11.out" ||
    fail "TLS 1.1: $(cat "$T/s11.out")"
ok "no HTTP reply to clear text; TLS 1.1 refused (protocol version), 1.2 and 1.3 accepted"

# The connection guard sits over TLS: a head trickled past
# header-timeout is cut, and so is a connection that never begins its
# handshake; a body past max-body is refused; profd serves on.  The
# head is trickled a line each 0.5 s (never silent for long, never
# whole) until profd cuts it, 300 s at most (a bound against a hang).
# Neither is cut before header-timeout: the clock starts before the
# connection, profd's at its accept; 10.5 s allows for a coarse clock.
# No upper bound: a loaded machine may cut them late.
timed_out() { api GET /v1/health | sed '$d' | json 'j["http"]["timed_out"]'; }
timed_out0=$(timed_out)
python3 - "$PORT" "$TLS/ca.pem" >"$T/guard.out" 2>&1 <<'PY' ||
import select, socket, ssl, sys, time
port, ca = int(sys.argv[1]), sys.argv[2]
start = time.monotonic()
raw = socket.create_connection(("127.0.0.1", port))
ctx = ssl.create_default_context(cafile=ca)
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                    server_hostname="localhost")
s.sendall(b"POST /ingest?name=slow.cpu HTTP/1.1\r\nHost: x\r\n")
s.settimeout(0.5)
cut = {}
while len(cut) < 2 and time.monotonic() - start < 300:
    if "head" not in cut:
        try:
            s.sendall(b"X-Slow: 1\r\n")
            if s.recv(4096) == b"":
                cut["head"] = time.monotonic() - start
        except socket.timeout:
            pass
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            cut["head"] = time.monotonic() - start
    else:
        time.sleep(0.5)
    if "raw" not in cut and select.select([raw], [], [], 0)[0]:
        try:
            got = raw.recv(4096)
        except ConnectionResetError:
            got = b""
        if got != b"":
            sys.exit("the silent connection was sent %r" % got[:100])
        cut["raw"] = time.monotonic() - start
print(", ".join("%s cut after %.1f s" % kv for kv in sorted(cut.items())))
sys.exit(0 if len(cut) == 2 and min(cut.values()) >= 10.5 else 1)
PY
    fail "a slow head or a silent handshake over TLS: $(cat "$T/guard.out")"
[ "$(timed_out)" = $((timed_out0 + 2)) ] ||
    fail "timed out: $(timed_out), $timed_out0 before the two"
head -c 2000000 /dev/zero >"$T/big.bin"
r=$(tcp POST "/ingest?name=big.cpu&format=pprof" -H "Authorization: Bearer $WTOKEN" \
    --data-binary @"$T/big.bin")
[ "$(status_of "$r")" = 413 ] || fail "2 MB over TLS with max-body 1M: ${r:0:300}"
[ "$(tcp GET /v1/health | tail -n 1)" = 200 ] || fail "health after the guard's refusals"
ok "over TLS the guard holds: a silent handshake and a trickled head cut by header-timeout ($(cat "$T/guard.out")), a body past max-body 413"

# 4. Credentials.  A write route: /ingest and the Connect push.
python3 "$TESTS_DIR/tools/pyroscope_body.py" push "$T/p.bin" \
    --label service_name=tlspush "$FIXTURES/mutex.pprof"
n=0
matrix() {	# matrix EXPECT CREDS...: each write route answers EXPECT
	local want=$1 h got
	shift
	n=$((n + 1))
	got=$(tcp POST "/ingest?name=matrix.cpu&from=$((1700000000 + n * 20))&until=$((1700000010 + n * 20))" \
	    --data-binary $'a;b 1\n' -D "$T/h" "$@" | tail -n 1)
	[ "$got" = "$want" ] || fail "/ingest with '$*': $got, not $want"
	if [ "$want" = 401 ]; then
		grep -qi '^WWW-Authenticate: Bearer realm="profd"' "$T/h" &&
		grep -qi '^WWW-Authenticate: Basic realm="profd"' "$T/h" ||
		    fail "401 without both challenges: $(cat "$T/h")"
	fi
	got=$(tcp POST /push.v1.PusherService/Push -H "Content-Type: application/proto" \
	    --data-binary @"$T/p.bin" "$@" | tail -n 1)
	[ "$got" = "$want" ] || fail "Connect push with '$*': $got, not $want"
}
matrix 401
matrix 401 -H "Authorization: Bearer wrong-$WTOKEN"
matrix 401 -u "agent:wrong"
matrix 403 -H "Authorization: Bearer $RTOKEN"
matrix 403 -u "grafana:gr-pass"
matrix 200 -H "Authorization: Bearer $WTOKEN"
matrix 200 -u "agent:pa:ss word"
ok "write routes: none and wrong 401 (both challenges), readers' token and basic 403, writers' 200"

# A read route; until the Grafana routes are merged it is a 404 here.
rt() {
	tcp POST /querier.v1.QuerierService/ProfileTypes -H "Content-Type: application/json" \
	    --data-binary '{}' "$@" | tail -n 1
}
reads=0
if [ "$(rt -H "Authorization: Bearer $RTOKEN")" = 404 ]; then
	echo "skip: POST /querier.v1.QuerierService/ProfileTypes is 404 (not on this branch): the read matrix is not checked"
else
	reads=1
	[ "$(rt)" = 401 ] || fail "read route without credentials: $(rt)"
	[ "$(rt -H "Authorization: Bearer wrong")" = 401 ] || fail "read route, wrong token"
	[ "$(rt -H "Authorization: Bearer $WTOKEN")" = 403 ] || fail "read route, writers' token: $(rt -H "Authorization: Bearer $WTOKEN")"
	[ "$(rt -u "agent:pa:ss word")" = 403 ] || fail "read route, writers' basic"
	[ "$(rt -H "Authorization: Bearer $RTOKEN")" = 200 ] || fail "read route, readers' token"
	[ "$(rt -u "grafana:gr-pass")" = 200 ] || fail "read route, readers' basic"
	ok "read route: none and wrong 401, writers' 403, readers' token and basic 200"
fi
# What stays on the socket: 404 whatever the credentials.
for route in "GET /v1/scopes" "DELETE /v1/profiles?scope=tlsapp" "POST /v1/query" "GET /ui/"; do
	[ "$(tcp $route -H "Authorization: Bearer $RTOKEN" | tail -n 1)" = 404 ] ||
	    fail "$route over TLS with the readers' token"
	[ "$(tcp $route -H "Authorization: Bearer $WTOKEN" | tail -n 1)" = 404 ] ||
	    fail "$route over TLS with the writers' token"
done
[ "$(tcp GET /v1/health | tail -n 1)" = 200 ] || fail "health needs no credential"
ok "deletes, SQL, the UI and the list stay on the socket (404); health is open"

# /v1/status: TLS, the certificate, the refusals.
api GET /v1/status | sed '$d' | json 'j["tcp"]' >"$T/tcp.json"
python3 - "$T/tcp.json" "$(tls_serial "$TLS/srv.pem")" "$reads" <<'PY' || fail "status tcp: $(cat "$T/tcp.json")"
import json, sys
t = json.load(open(sys.argv[1]))
reads = int(sys.argv[3])
assert t["tls"] is True
assert t["certificate"]["serial"] == sys.argv[2], t["certificate"]
assert t["certificate"]["subject"] == "CN=localhost"
assert t["certificate"]["not_after"].endswith("Z")
assert t["auth"] == "token basic" and t["read_auth"] == "token basic"
# 3 rows of 401 and 2 of 403 in the write matrix, two routes each.
assert t["unauthorized"] == 6 + 2 * reads, t["unauthorized"]
assert t["forbidden"] == 4 + 2 * reads, t["forbidden"]
PY
"$PROFCTL" status >"$T/status.txt"
has -F "tcp listener: 127.0.0.1:$PORT, credentials: token basic, readers' credentials: token basic, TLS (CN=localhost, until " "$T/status.txt" ||
    fail "profctl status: $(cat "$T/status.txt")"
ok "status: tls, the certificate's subject, serial and end, 401s and 403s counted"

# 5. SIGHUP: a new certificate for new connections; a broken one keeps
#    the old.
old=$(tls_serial "$TLS/srv.pem")
[ "$(tls_served_serial "$PORT" "$TLS/ca.pem")" = "$old" ] || fail "served serial before SIGHUP"
cp "$TLS/other.pem" "$TLS/live.pem"
cp "$TLS/other.key" "$TLS/live.key"
new=$(tls_serial "$TLS/other.pem")
kill -HUP "$PROFD_PID"
served() { [ "$(tls_served_serial "$PORT" "$TLS/ca.pem")" = "$1" ]; }
wait_until "the new certificate after SIGHUP" served "$new"
[ "$(tcp POST "/ingest?name=after.cpu&from=1700000000&until=1700000010" \
    -H "Authorization: Bearer $WTOKEN" --data-binary $'a 1\n' | tail -n 1)" = 200 ] ||
    fail "push with the new certificate"
echo "garbage" >"$TLS/live.pem"
kill -HUP "$PROFD_PID"
wait_until "the refused reload in the log" has -F "the TCP listener keeps the certificate it had (CN=localhost, serial $new)" "$T/profd.log"
served "$new" || fail "a broken certificate file on SIGHUP: served $(tls_served_serial "$PORT" "$TLS/ca.pem")"
[ "$(tcp GET /v1/health | tail -n 1)" = 200 ] || fail "health after a refused reload"
api GET /v1/status | sed '$d' | json 'j["tcp"]["certificate"]' >"$T/cert.json"
has -F "is not a PEM certificate" "$T/cert.json" || fail "reload_error: $(cat "$T/cert.json")"
# The key of another certificate: refused as well.
cp "$TLS/srv.pem" "$TLS/live.pem"
kill -HUP "$PROFD_PID"
wait_until "the mismatched reload in the log" has -F "tls-key $TLS/live.key is not the key of the certificate in tls-cert $TLS/live.pem" "$T/profd.log"
served "$new" || fail "a mismatched key on SIGHUP"
cp "$TLS/srv.key" "$TLS/live.key"
kill -HUP "$PROFD_PID"
wait_until "the first certificate back" served "$old"
api GET /v1/status | sed '$d' | json 'j["tcp"]["certificate"]' >"$T/cert.json"
! has -F reload_error "$T/cert.json" || fail "reload_error after a good reload: $(cat "$T/cert.json")"
ok "SIGHUP: new connections see the replaced certificate ($old -> $new -> $old); a broken or mismatched file keeps the one serving"

# SIGTERM with a TLS connection idle after a reader's request (with its
# credential: a stranger's connection is closed after its reply, issue
# 40), one half through a request head and one that never began its
# handshake: profd exits 0.
# header-timeout an hour first (a reload), so that none of the three is
# cut before the SIGTERM; they are held until profd closes them.
sed -i 's/^header-timeout = .*/header-timeout = 3600/' "$T/profd.conf"
reloads() { grep -c "SIGHUP: settings read again" "$T/profd.log" || true; }
reloads0=$(reloads)
kill -HUP "$PROFD_PID"
reloaded() { [ "$(reloads)" -gt "$reloads0" ]; }
wait_until "the reload" reloaded
python3 - "$PORT" "$TLS/ca.pem" "$RTOKEN" >"$T/held.out" 2>&1 <<'PY' &
import socket, ssl, sys
port, ca, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.create_default_context(cafile=ca)
idle = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
idle.sendall(b"POST /querier.v1.QuerierService/ProfileTypes HTTP/1.1\r\n"
             b"Host: x\r\nAuthorization: Bearer %s\r\nContent-Type: "
             b"application/json\r\nContent-Length: 2\r\n\r\n{}" %
             token.encode())
print(idle.recv(4096).split(b"\r\n")[0].decode(), flush=True)
half = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
half.sendall(b"POST /ingest HTTP/1.1\r\nHost: x\r\n")
raw = socket.create_connection(("127.0.0.1", port))
print("held", flush=True)
for c in (idle, half, raw):
    try:
        while c.recv(4096):
            pass
    except (ConnectionResetError, ssl.SSLError):
        pass
print("closed by profd", flush=True)
PY
HELD=$!
wait_until "the connections held" has -x held "$T/held.out"
has -x "HTTP/1.1 200 OK" "$T/held.out" || fail "the idle connection's request: $(cat "$T/held.out")"
conns() { api GET /v1/status | sed '$d' | json 'j["tcp"]["connections"]'; }
three() { [ "$(conns)" = 3 ]; }
wait_until "profd to have the three connections" three
stop_profd
wait "$HELD" || fail "the holder: $(cat "$T/held.out")"
has -x "closed by profd" "$T/held.out" || fail "the holder: $(cat "$T/held.out")"
ok "SIGTERM with TLS connections idle, half a head and before the handshake: a clean exit"
