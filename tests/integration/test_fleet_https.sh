# https to ClickHouse (issue 28): fleet-url https://127.0.0.1:PORT with
# fleet-ca-file the test's CA.  Debian 12's ClickHouse 18.16 (system Poco
# on OpenSSL 3) answers every https handshake "no shared cipher" whatever
# its certificate, so the test's ClickHouse keeps its http port and
# tests/tools/tls_relay.py (Python's ssl module) serves https in front of
# it with a certificate the test's CA signed for 127.0.0.1:
#
# 1. Profiles pushed to profd arrive in ClickHouse through https: the
#    sums per scope and metric equal profd's own, and a fleet=1 view
#    answers as the local one.
# 2. A CA that did not sign the server's certificate: shipping fails,
#    /v1/status's fleet error says the certificate did not verify and
#    why, nothing more arrives; the same with a certificate for another
#    name (the host checked); the relay counts the refused handshakes.
# 3. fleet-ca-file that cannot be read: profd refuses to start.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"
. "$(dirname "$0")/tls-lib.sh"

tls_ca ca
tls_ca otherca
tls_cert ch ca
tls_cert wrongname ca "DNS:clickhouse.example"
ch_start a
HTTP_PORT=$(cat "$T/ch-a/http_port")
RELAY_PIDS=()
# relay NAME CERT: https on a port the relay binds itself (0: no other
# process can take it between a pick and the bind), in $T/relay-NAME.port.
relay() {
	python3 "$TESTS_DIR/tools/tls_relay.py" "$TLS/$2.pem" "$TLS/$2.key" \
	    0 "$HTTP_PORT" >"$T/relay-$1.log" 2>&1 &
	RELAY_PIDS+=($!)
	wait_until "the relay $1" has -F listening "$T/relay-$1.log"
	sed -n 's/^tls_relay: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
	    "$T/relay-$1.log" >"$T/relay-$1.port"
}
relay_cleanup() {
	kill_live -TERM "${RELAY_PIDS[@]}"
	ch_cleanup || true
}
trap relay_cleanup EXIT
relay good ch
relay wrongname wrongname
GOOD="https://127.0.0.1:$(cat "$T/relay-good.port")"
curl -sf --cacert "$TLS/ca.pem" "$GOOD/?query=SELECT%2042" | has -x 42 ||
    fail "curl through the relay"

# 1. Shipping over https.
# fleet-timeout: a bound against a hang, not a speed check (a request
# past it on a loaded machine would leave last_error set).
FLEET=(--fleet-host h1 --fleet-database fleet_s --fleet-interval 1
    --fleet-timeout 120)
start_profd --fleet-url "$GOOD" --fleet-ca-file "$TLS/ca.pem" "${FLEET[@]}"
for f in cpu heap mutex; do
	r=$(api POST "/v1/profiles?scope=web" --data-binary "@$FIXTURES/$f.pprof")
	[ "$(status_of "$r")" = 201 ] || fail "push $f: $r"
done
shipped3() { [ "$(fleet_status shipped_profiles)" = 3 ] && [ "$(fleet_status lag_profiles)" = 0 ]; }
wait_until "three profiles shipped over https" shipped3
[ "$(fleet_status last_error)" = None ] || fail "an error: $(fleet_status last_error)"
api POST /v1/query --data-binary "SELECT scope, metric || '/' || unit,
    sum(value) FROM samples GROUP BY 1, 2 ORDER BY 1, 2" |
    sed '$d' | json "'\n'.join('\t'.join(str(c) for c in r) for r in j['rows'])" \
    >"$T/profd-sums"
ch a "SELECT scope, metric, sum(value) FROM fleet_s.samples
    WHERE host = 'h1' AND NOT endsWith(metric, '\\0raw')
    GROUP BY scope, metric ORDER BY scope, metric" >"$T/ch-sums"
[ "$(wc -l <"$T/ch-sums")" -ge 4 ] || fail "few sums: $(cat "$T/ch-sums")"
diff "$T/profd-sums" "$T/ch-sums" >&2 || fail "ClickHouse's sums differ from profd's"
[ "$(ch a "SELECT count() FROM fleet_s.profiles FINAL")" = 3 ] ||
    fail "profiles rows: $(ch a "SELECT count() FROM fleet_s.profiles FINAL")"
# A fleet view reads over https too.
l=$(curl -s --unix-socket "$SOCK" "http://localhost/v1/top?scope=web&metric=cpu")
f=$(curl -s --unix-socket "$SOCK" "http://localhost/v1/top?scope=web&metric=cpu&fleet=1")
case $l in *'"rows"'*) ;; *) fail "local top: ${l:0:300}" ;; esac
[ "$f" = "$l" ] || fail "fleet top over https differs: ${f:0:300}"
ok "3 profiles shipped over https: ClickHouse's sums equal profd's ($(wc -l <"$T/ch-sums") scope/metric pairs); fleet=1 top equals the local one"
stop_profd

# By name (the certificate's DNS:localhost checked, sent as SNI), and
# again after the kept connection was closed (ClickHouse's keep-alive
# timeout, 3 s): libevent makes it again over the same TLS state.
rm -f "$DB"*
start_profd --fleet-url "https://localhost:$(cat "$T/relay-good.port")" \
    --fleet-ca-file "$TLS/ca.pem" "${FLEET[@]}" --fleet-database fleet_byname
hs() { grep -c "handshake done" "$T/relay-good.log" || true; }
api POST "/v1/profiles?scope=byname" --data-binary "@$FIXTURES/cpu.pprof" >/dev/null
shipped() { [ "$(fleet_status shipped_profiles)" = "$1" ]; }
wait_until "one profile shipped to localhost" shipped 1
# The relay says when a connection ends: once every one it relayed has,
# profd holds none open.
all_closed() {
	[ "$(grep -c "connection closed" "$T/relay-good.log" || true)" = "$(hs)" ]
}
wait_until "the kept connection closed" all_closed
h1=$(hs)
api POST "/v1/profiles?scope=byname" --data-binary "@$FIXTURES/heap.pprof" >/dev/null
wait_until "the second after the connection was closed" shipped 2
[ "$(fleet_status last_error)" = None ] || fail "an error: $(fleet_status last_error)"
[ "$(ch a "SELECT count() FROM fleet_byname.profiles FINAL")" = 2 ] ||
    fail "profiles rows by name: $(ch a "SELECT count() FROM fleet_byname.profiles FINAL")"
[ "$(hs)" -gt "$h1" ] ||
    fail "handshakes: $h1 before the second push, $(hs) after: no new connection"
ok "https://localhost: the name checked; a second profile shipped over a new connection after the idle one closed (a new TLS handshake)"
stop_profd

# 2. The wrong CA, then the wrong name: shipping fails with why.
rm -f "$DB"*
start_profd --fleet-url "$GOOD" --fleet-ca-file "$TLS/otherca.pem" \
    "${FLEET[@]}" --fleet-database fleet_wrong
api POST "/v1/profiles?scope=web" --data-binary "@$FIXTURES/cpu.pprof" >/dev/null
failed() { [ "$(fleet_status last_error)" != None ]; }
wait_until "a failed round" failed
err=$(fleet_status last_error)
case $err in
*"ClickHouse at $GOOD: the server's certificate did not verify: unable to get local issuer certificate (CAs of fleet-ca-file)"*) ;;
*) fail "the wrong CA's error: $err" ;;
esac
[ "$(fleet_status shipped_profiles)" = 0 ] || fail "shipped with the wrong CA"
[ "$(ch a "EXISTS TABLE fleet_wrong.samples" 2>/dev/null || echo 0)" != 1 ] ||
    fail "tables made through an unverified connection"
# The relay logs the refusal when it reads profd's alert, maybe after
# profd has told its status.
wait_until "the relay's refused handshake" has -F "handshake failed" \
    "$T/relay-good.log"
has -F "did not verify" "$T/profd.log" || fail "the log: $(tail -5 "$T/profd.log")"
ok "the wrong CA: nothing shipped; /v1/status: $err"
stop_profd
rm -f "$DB"*
start_profd --fleet-url "https://127.0.0.1:$(cat "$T/relay-wrongname.port")" \
    --fleet-ca-file "$TLS/ca.pem" "${FLEET[@]}" --fleet-database fleet_wrong
api POST "/v1/profiles?scope=web" --data-binary "@$FIXTURES/cpu.pprof" >/dev/null
wait_until "a failed round" failed
err=$(fleet_status last_error)
case $err in
*"the server's certificate did not verify: IP address mismatch"*) ;;
*) fail "the wrong name's error: $err" ;;
esac
[ "$(fleet_status shipped_profiles)" = 0 ] || fail "shipped to the wrong name"
ok "a certificate for another name: nothing shipped; /v1/status: $err"
stop_profd

# 3. A CA file that cannot be read stops the start.
if "$PROFD" --foreground --no-config --spool none --socket "$T/x.sock" \
    --db "$T/x.db" --fleet-url "$GOOD" --fleet-ca-file "$TLS/none.pem" \
    >"$T/refused.log" 2>&1; then
	fail "profd started with a missing fleet-ca-file"
fi
has -F "fleet-ca-file $TLS/none.pem: cannot read it: No such file or directory" \
    "$T/refused.log" || fail "refusal: $(cat "$T/refused.log")"
ok "a missing fleet-ca-file: profd refuses to start"
