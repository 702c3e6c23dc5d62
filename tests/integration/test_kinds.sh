# Each metric of a profile has a kind (issue 27 item 1, docs/TIME.md):
# the real Go fixtures pushed through profctl and the API, and dropped in
# the spool, get the kinds the importer infers (cpu delta; a heap profile
# holds two: alloc_* cumulative, inuse_* gauge; mutex and block without a
# duration cumulative; folded stacks delta), shown by the push reply, GET
# /v1/profiles, profctl profiles and the profile_metrics view; a push's
# kind=METRIC:KIND (profctl push --kind METRIC=KIND) overrides them, and a
# bad one is refused before anything is stored.  The views still add
# every kind up (later steps of the issue): top over a heap profile pushed
# with other kinds answers the same numbers.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spool-lib.sh"

SP="$T/spool"
mkdir -p "$SP"
start_profd --spool "$SP"

# kinds_of SCOPE: "name metric:kind ..." per profile, oldest first, from
# GET /v1/profiles.
kinds_of() {
	local r
	r=$(api GET "/v1/profiles?scope=$1")
	[ "$(status_of "$r")" = 200 ] || fail "profiles of $1: $r"
	body_of "$r" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["profiles"]:
    print(p["name"], " ".join("%s:%s" % (m["type"], m["kind"])
                              for m in p["metrics"]))'
}

for f in cpu heap mutex block; do
	out=$("$PROFCTL" push "$FIXTURES/$f.pprof" --scope go)
	case "$out" in *"stored as profile"*) ;; *) fail "push $f: $out" ;; esac
done
got=$(kinds_of go)
want="cpu.pprof samples:delta cpu:delta
heap.pprof alloc_objects:cumulative alloc_space:cumulative inuse_objects:gauge inuse_space:gauge
mutex.pprof contentions:cumulative delay:cumulative
block.pprof contentions:cumulative delay:cumulative"
[ "$got" = "$want" ] || fail "inferred kinds:
$got
want:
$want"
ok "kinds inferred from the Go fixtures (one heap profile, two kinds)"

# profctl profiles: each run of one kind followed by it.
out=$("$PROFCTL" profiles --scope go)
printf '%s\n' "$out" | has -F "samples,cpu (delta)" ||
    fail "profctl profiles, cpu: $out"
printf '%s\n' "$out" | has -F "alloc_objects,alloc_space (cumulative) inuse_objects,inuse_space (gauge)" ||
    fail "profctl profiles, heap: $out"
printf '%s\n' "$out" | has -F "contentions,delay (cumulative)" ||
    fail "profctl profiles, mutex: $out"
"$PROFCTL" profiles --scope go --json |
    json '[m["kind"] for m in j["profiles"][1]["metrics"]]' |
    has -Fx '["cumulative", "cumulative", "gauge", "gauge"]' ||
    fail "profctl profiles --json: $("$PROFCTL" profiles --scope go --json)"
ok "profctl profiles shows each metric's kind"

# The push reply has them, a duplicate's too; the SQL view as well.
r=$(api POST "/v1/profiles?scope=go&name=again" --data-binary @"$FIXTURES/heap.pprof")
[ "$(status_of "$r")" = 200 ] || fail "duplicate push: $r"
[ "$(body_of "$r" | json '" ".join(m["kind"] for m in j["metrics"])')" = \
    "cumulative cumulative gauge gauge" ] || fail "duplicate's kinds: $r"
r=$(api POST /v1/query --data-binary "SELECT p.name, m.metric, m.kind FROM profile_metrics m JOIN profiles p USING (profile_id) WHERE p.scope = 'go' AND m.kind != 'delta' ORDER BY p.profile_id, m.metric")
[ "$(status_of "$r")" = 200 ] || fail "profile_metrics: $r"
[ "$(body_of "$r" | json '" ".join("%s/%s/%s" % tuple(x) for x in j["rows"])')" = \
    "heap.pprof/alloc_objects/cumulative heap.pprof/alloc_space/cumulative heap.pprof/inuse_objects/gauge heap.pprof/inuse_space/gauge mutex.pprof/contentions/cumulative mutex.pprof/delay/cumulative block.pprof/contentions/cumulative block.pprof/delay/cumulative" ] ||
    fail "profile_metrics rows: $r"
ok "the push reply (a duplicate's too) and the profile_metrics view say the kinds"

# The push's word over the rule: profctl --kind and the API's kind=.
out=$("$PROFCTL" push "$FIXTURES/heap.pprof" --scope told \
    --kind inuse_space=delta --kind alloc_space/bytes=gauge \
    --kind alloc_objects=gauge --kind alloc_objects=cumulative \
    --kind goroutine=gauge)
case "$out" in *"stored as profile"*) ;; *) fail "push --kind: $out" ;; esac
r=$(api POST "/v1/profiles?scope=told&name=mutex&kind=delay:gauge&kind=contentions/count:delta" \
    --data-binary @"$FIXTURES/mutex.pprof")
[ "$(status_of "$r")" = 201 ] || fail "push kind=: $r"
[ "$(body_of "$r" | json '" ".join(m["kind"] for m in j["metrics"])')" = "delta gauge" ] ||
    fail "push reply's kinds: $r"
got=$(kinds_of told)
want="heap.pprof alloc_objects:cumulative alloc_space:gauge inuse_objects:gauge inuse_space:delta
mutex contentions:delta delay:gauge"
[ "$got" = "$want" ] || fail "kinds given at push:
$got
want:
$want"
# Folded stacks add up unless the push says otherwise.
r=$(printf 'main;work 3\nmain;idle 1\n' | api POST \
    "/v1/profiles?scope=folded&format=folded&metric=inuse_space/bytes&name=f1" \
    --data-binary @-)
[ "$(status_of "$r")" = 201 ] || fail "folded push: $r"
r=$(printf 'main;work 4\nmain;idle 1\n' | api POST \
    "/v1/profiles?scope=folded&format=folded&metric=inuse_space/bytes&name=f2&kind=inuse_space:gauge" \
    --data-binary @-)
[ "$(status_of "$r")" = 201 ] || fail "folded push with kind: $r"
[ "$(kinds_of folded)" = "f1 inuse_space:delta
f2 inuse_space:gauge" ] || fail "folded kinds: $(kinds_of folded)"
ok "kinds given at push override the rule (the last for a metric wins)"

# Views still add every kind up: the heap profile pushed with other kinds
# answers what it answered with its own.
a=$("$PROFCTL" top --scope go --metric inuse_space --json)
b=$("$PROFCTL" top --scope told --metric inuse_space --json)
[ "$(printf '%s' "$a" | json 'j["total"] > 0')" = True ] || fail "top: $a"
[ "$(printf '%s' "$a" | json 'j["total"]')" = \
    "$(printf '%s' "$b" | json 'j["total"]')" ] ||
    fail "inuse_space total differs with another kind: $a / $b"
ok "views unchanged by kinds (for now)"

# Bad kinds: 400 naming them, nothing stored; profctl refuses a bad form.
for k in 'alloc_space' 'alloc_space:sum' ':gauge' 'alloc_space/:gauge'; do
	r=$(api POST "/v1/profiles?scope=bad&kind=$k" --data-binary @"$FIXTURES/heap.pprof")
	[ "$(status_of "$r")" = 400 ] || fail "kind=$k: $r"
	body_of "$r" | has -F "kind:" || fail "kind=$k: $r"
done
r=$(api GET "/v1/profiles?scope=bad")
[ "$(status_of "$r")" = 404 ] || fail "a refused push stored something: $r"
set +e
msg=$("$PROFCTL" push "$FIXTURES/heap.pprof" --scope bad --kind alloc_space 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] || fail "profctl --kind without =: exit $rc: $msg"
case "$msg" in *'"alloc_space" is not METRIC=KIND'*) ;; *) fail "message: $msg" ;; esac
set +e
msg=$("$PROFCTL" push "$FIXTURES/heap.pprof" --scope bad --kind alloc_space=sum 2>&1); rc=$?
set -e
[ "$rc" -ne 0 ] || fail "profctl --kind alloc_space=sum stored it: $msg"
case "$msg" in *"delta, cumulative, gauge"*) ;; *) fail "message: $msg" ;; esac
ok "bad kinds refused with 400 (profctl: usage) and nothing stored"

# The spool: a heap profile dropped there gets the same kinds.
mkdir -p "$SP/spooled"
cp "$FIXTURES/heap.pprof" "$SP/spooled/.heap.tmp"
mv "$SP/spooled/.heap.tmp" "$SP/spooled/heap.pprof"
wait_until "the spooled heap profile" has_profiles spooled 1
[ "$(kinds_of spooled)" = "heap.pprof alloc_objects:cumulative alloc_space:cumulative inuse_objects:gauge inuse_space:gauge" ] ||
    fail "spooled kinds: $(kinds_of spooled)"
ok "a spooled heap profile's kinds inferred as a push's"

stop_profd
