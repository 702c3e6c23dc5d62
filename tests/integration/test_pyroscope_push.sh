# POST /push.v1.PusherService/Push as Grafana Alloy's pyroscope.write
# calls it (Connect unary, protobuf or JSON, gzipped or not): request
# bodies built field by field as Alloy builds them
# (tests/tools/pyroscope_body.py push) carrying the Go-written fixtures,
# whose every function then equals go tool pprof -top; the scope from
# service_name (or __name__), the labels but the internal ones; Connect's
# JSON errors with their HTTP statuses, nothing stored for a refused one;
# the kinds the labels say (__delta__, godeltaprof) or the inferred ones.
. "$(dirname "$0")/lib.sh"
start_profd
BODY="$TESTS_DIR/tools/pyroscope_body.py"
PUSH=/push.v1.PusherService/Push

# connect FILE CONTENT-TYPE [curl args]: the call, as a connect-go client
# makes it (Connect-Protocol-Version: 1).
connect() {
	local file=$1 ct=$2
	shift 2
	api POST "$PUSH" -H "Content-Type: $ct" -H "Connect-Protocol-Version: 1" \
	    --data-binary @"$file" "$@"
}
# same_as_pprof SCOPE PROFILE: every sample type of the fixture.
same_as_pprof() {
	local tsv base n=0
	for tsv in "$FIXTURES"/expected/"$2".*.tsv; do
		base=$(basename "$tsv" .tsv)
		"$PROFCTL" top --scope "$1" --metric "${base#*.}" --json >"$T/top.json"
		python3 "$TESTS_DIR/tools/top_tsv.py" "$tsv" "$T/top.json" ||
		    fail "$base pushed to $1 differs from go tool pprof -top"
		n=$((n + 1))
	done
	[ "$n" -ge 2 ] || fail "no expected files for $2"
}

python3 "$BODY" push "$T/cpu.bin" --label __name__=process_cpu \
    --label service_name=checkout --label job=integrations/checkout \
    --label instance=10.0.0.7:6060 --label __delta__=false "$FIXTURES/cpu.pprof"
curl -s -D "$T/h" -o "$T/b" --unix-socket "$SOCK" -X POST \
    -H "Content-Type: application/proto" -H "Connect-Protocol-Version: 1" \
    --data-binary @"$T/cpu.bin" "http://localhost$PUSH"
grep -q '^HTTP/1.1 200' "$T/h" || fail "proto push: $(cat "$T/h" "$T/b")"
grep -qi '^Content-Type: application/proto' "$T/h" || fail "reply type: $(cat "$T/h")"
[ ! -s "$T/b" ] || fail "PushResponse is empty in protobuf: $(cat "$T/b")"
same_as_pprof checkout cpu
r=$(api GET "/v1/profiles?scope=checkout")
[ "$(body_of "$r" | json 'j["profiles"][0]["labels"]')" = \
    '{"instance": "10.0.0.7:6060", "job": "integrations/checkout"}' ] ||
    fail "labels but service_name and __*: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["name"]')" = process_cpu ] || fail "name: $r"
ok "Alloy's protobuf PushRequest: cpu.pprof equals go tool pprof -top, labels"

python3 "$BODY" push "$T/heap.json" --json --label __name__=memory \
    --label service_name=ebpf/default/web-1 "$FIXTURES/heap.pprof"
r=$(connect "$T/heap.json" application/json)
[ "$(status_of "$r")" = 200 ] && [ "$(body_of "$r")" = "{}" ] || fail "json push: $r"
same_as_pprof ebpf_default_web-1 heap
python3 "$BODY" push "$T/mutex.bin" --label __name__=mutex "$FIXTURES/mutex.pprof"
gzip -c "$T/mutex.bin" >"$T/mutex.bin.gz"
r=$(connect "$T/mutex.bin.gz" application/proto -H "Content-Encoding: gzip")
[ "$(status_of "$r")" = 200 ] || fail "gzipped push: $r"
same_as_pprof mutex mutex
ok "JSON body, service_name made a scope name, gzip, scope from __name__"

# Errors: Connect's JSON and status; nothing stored.
count() { api GET /v1/scopes | sed '$d' | json 'sum(s["profiles"] for s in j["scopes"])'; }
before=$(count)
cerr() {
	local want=$1 code=$2 what=$3
	shift 3
	r=$(connect "$@")
	[ "$(status_of "$r")" = "$want" ] || fail "$what: want $want, got $r"
	[ "$(body_of "$r" | json 'j["code"]')" = "$code" ] || fail "$what: code: $r"
	body_of "$r" | json 'j["message"]' >/dev/null || fail "$what: message: $r"
}
printf 'garbage\377' >"$T/junk"
cerr 400 invalid_argument "garbage proto" "$T/junk" application/proto
cerr 400 invalid_argument "garbage json" "$T/junk" application/json
cerr 415 invalid_argument "content type" "$T/junk" text/plain
cerr 501 unimplemented "encoding" "$T/cpu.bin" application/proto -H "Content-Encoding: br"
cerr 400 invalid_argument "bad gzip" "$T/junk" application/proto -H "Content-Encoding: gzip"
python3 "$BODY" push "$T/noname.bin" --label job=x "$FIXTURES/block.pprof"
cerr 400 invalid_argument "no service_name" "$T/noname.bin" application/proto
python3 "$BODY" push "$T/badlabel.bin" --label service_name=s --label "not ok=1" "$FIXTURES/block.pprof"
cerr 400 invalid_argument "label name" "$T/badlabel.bin" application/proto
python3 "$BODY" push "$T/badprof.bin" --label service_name=bad "$T/junk"
cerr 400 invalid_argument "garbage raw_profile" "$T/badprof.bin" application/proto
case "$r" in *"series 0, sample 0"*) ;; *) fail "which sample: $r" ;; esac
[ "$(count)" = "$before" ] || fail "a refused push stored a profile"
# The first sample good, the second not: the first stays, the reply says so.
python3 "$BODY" push "$T/half.bin" --label service_name=half "$FIXTURES/block.pprof" "$T/junk"
cerr 400 invalid_argument "second sample bad" "$T/half.bin" application/proto
case "$r" in *"sample 1"*"before it were stored"*) ;; *) fail "half: $r" ;; esac
[ "$(count)" = $((before + 1)) ] || fail "half: not exactly the first stored"
r=$(api GET /v1/health)
[ "$(status_of "$r")" = 200 ] || fail "health after the errors: $r"
ok "Connect errors with their statuses; nothing of a refused sample stored"

# Kinds (docs/INTAKE.md "Kinds"): Go's counters are differences already
# in a series labelled __delta__="false" (Alloy differences its memory,
# mutex and block fetches, giving each the time since the one before as
# its duration) and in godeltaprof's (named godeltaprof_* by Alloy up to
# 1.6; memory, mutex, block with no __delta__ and Alloy's scope label
# since 1.18): deltas, its states gauges whatever the duration.  Any
# other series, __delta__="true" too, gets the inferred kinds.
ALLOY=otel.scope.name=com.grafana.alloy/pyroscope.scrape
# kinds_push SCOPE FIXTURE [pyroscope_body.py args]: pushed as a series
# of service_name SCOPE.
kinds_push() {
	local scope=$1 fixture=$2
	shift 2
	python3 "$BODY" push "$T/kinds.bin" --label service_name="$scope" \
	    "$@" "$FIXTURES/$fixture.pprof"
	r=$(connect "$T/kinds.bin" application/proto)
	[ "$(status_of "$r")" = 200 ] || fail "push $fixture to $scope: $r"
}
DIFF_HEAP="alloc_objects:delta alloc_space:delta inuse_objects:gauge inuse_space:gauge"
CUM_HEAP="alloc_objects:cumulative alloc_space:cumulative inuse_objects:gauge inuse_space:gauge"
kinds_push alloy-heap heap --label __name__=memory --label __delta__=false \
    --label "$ALLOY" --duration 15000000000
kinds_push alloy-mutex mutex --label __name__=mutex --label __delta__=false \
    --label "$ALLOY" --duration 15000000000
kinds_push dp-heap heap --label __name__=godeltaprof_memory
kinds_push dp-block block --label __name__=godeltaprof_block
kinds_push alloy-dp-heap heap --label __name__=memory --label "$ALLOY"
kinds_push alloy-dp-mutex mutex --label __name__=mutex --label "$ALLOY"
kinds_push asked heap --label __name__=memory --label __delta__=true --label "$ALLOY"
kinds_push asked-dur heap --label __name__=memory --label __delta__=true \
    --duration 15000000000
kinds_push plain-block block --label __name__=block
for c in "alloy-heap:$DIFF_HEAP" "alloy-mutex:contentions:delta delay:delta" \
    "dp-heap:$DIFF_HEAP" "dp-block:contentions:delta delay:delta" \
    "alloy-dp-heap:$DIFF_HEAP" "alloy-dp-mutex:contentions:delta delay:delta" \
    "asked:$CUM_HEAP" "ebpf_default_web-1:$CUM_HEAP" \
    "asked-dur:alloc_objects:delta alloc_space:delta inuse_objects:delta inuse_space:delta" \
    "plain-block:contentions:cumulative delay:cumulative" \
    "mutex:contentions:cumulative delay:cumulative" "checkout:samples:delta cpu:delta"; do
	got=$(kinds_of "${c%%:*}")
	[ "$got" = "${c#*:}" ] || fail "kinds of ${c%%:*}: $got, want ${c#*:}"
done
r=$(api GET "/v1/profiles?scope=alloy-heap")
[ "$(body_of "$r" | json 'j["profiles"][0]["labels"]')" = \
    '{"otel.scope.name": "com.grafana.alloy/pyroscope.scrape"}' ] ||
    fail "__delta__ is not a label: $r"
out=$("$PROFCTL" profiles --scope alloy-heap)
printf '%s\n' "$out" | has -F "alloc_objects,alloc_space (delta) inuse_objects,inuse_space (gauge)" ||
    fail "profctl profiles: $out"
out=$("$PROFCTL" profiles --scope dp-block)
printf '%s\n' "$out" | has -F "contentions,delay (delta)" || fail "profctl profiles: $out"
ok "kinds: differences by __delta__=\"false\" and godeltaprof, else inferred"
