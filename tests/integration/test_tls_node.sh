# The Pyroscope Node.js client from npm (@pyroscope/nodejs) pushing to
# profd's --listen-tcp over https (issue 28): the test's CA given to node
# with NODE_EXTRA_CA_CERTS, the writers' token; its profiles arrive with
# its tags, both burning functions in them.  Without the CA, node refuses
# the certificate and nothing arrives.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tls-lib.sh"
need_pyroscope_node
tls_ca ca
tls_cert srv ca
TOKEN='node-writer-0123456789abcdef'
printf 'tcp-auth-token = %s\n' "$TOKEN" >"$T/profd.conf"
"$PROFD" --foreground --config "$T/profd.conf" --spool none --socket "$SOCK" \
    --db "$DB" --listen-tcp 127.0.0.1:0 --tls-cert "$TLS/srv.pem" \
    --tls-key "$TLS/srv.key" >>"$T/profd.log" 2>&1 &
PROFD_PID=$!
wait_health "$SOCK"
PORT=$(tcp_port)

NODE_EXTRA_CA_CERTS="$TLS/ca.pem" node "$TESTS_DIR/tools/pyroscope_node.js" \
    "$PYRO_NODE_DIR" "https://localhost:$PORT" nodetls "$TOKEN" 3 \
    >"$T/run.json" 2>"$T/node.err" || fail "the node program failed: $(cat "$T/node.err")"
# node exits once none of its pushes is in flight, and profd answers a
# push once it is stored: every push answered 200 is a profile here.
json 'len(j["pushes"]) >= 2 and set(j["pushes"]) == {200}' <"$T/run.json" |
    has -x True || fail "the pushes: $(cat "$T/run.json")"
api GET "/v1/profiles?scope=nodetls" | sed '$d' >"$T/profiles.json"
n=$(json 'len(j["pushes"])' <"$T/run.json")
[ "$(json 'len(j["profiles"])' <"$T/profiles.json")" = "$n" ] ||
    fail "$n pushes, $(json 'len(j["profiles"])' <"$T/profiles.json") profiles"
"$PROFCTL" top --scope nodetls --metric cpu --cum --json >"$T/cpu.json" ||
    fail "profctl top cpu"
python3 - "$T/profiles.json" "$T/cpu.json" <<'PY' || fail "what the Node client pushed over https"
import json, sys
profs, cpu = (json.load(open(f)) for f in sys.argv[1:3])
ps = profs["profiles"]
assert len(ps) >= 2, "profiles: %d" % len(ps)
for p in ps:
    assert p["labels"].get("region") == "test-eu", p["labels"]
def cum(name):
    return sum(r["cum"] for r in cpu["rows"] if r["function"].split(":")[-2:-1] == [name])
assert cum("burnAlpha") > 0 and cum("burnBeta") > 0, (cum("burnAlpha"), cum("burnBeta"))
print("%d profiles, cpu %.0f ms, burnAlpha %.0f ms, burnBeta %.0f ms"
      % (len(ps), cpu["total"] / 1e6, cum("burnAlpha") / 1e6, cum("burnBeta") / 1e6))
PY
ok "@pyroscope/nodejs over https with NODE_EXTRA_CA_CERTS: profiles with its tags and both functions"

# Without the CA the client cannot verify profd: its sends fail (as its
# debug log says), no request reaches profd, nothing arrives.
reqs() { api GET /v1/status | sed '$d' | json 'j["tcp"]["requests"]'; }
before=$(reqs)
DEBUG=pyroscope node "$TESTS_DIR/tools/pyroscope_node.js" "$PYRO_NODE_DIR" \
    "https://localhost:$PORT" nodeuntrusted "$TOKEN" 2 >"$T/run2.json" 2>"$T/node2.err" || true
has -F "Error sending data" "$T/node2.err" ||
    fail "the untrusting client did not fail to send: $(tail -5 "$T/node2.err")"
json 'len(j["pushes"]) >= 1 and set(j["pushes"]) == {0}' <"$T/run2.json" |
    has -x True || fail "the untrusting client's pushes: $(cat "$T/run2.json")"
[ "$(reqs)" = "$before" ] || fail "requests reached profd without a verified certificate"
api GET /v1/scopes | sed '$d' | json '[s["name"] for s in j["scopes"]]' >"$T/scopes"
! has -F nodeuntrusted "$T/scopes" ||
    fail "profiles arrived from a client that does not trust the certificate: $(cat "$T/scopes")"
ok "without the test's CA, the Node client's pushes do not arrive"
