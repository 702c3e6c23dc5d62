#!/usr/bin/env bash
# test_otlp.sh: OpenTelemetry profiles over OTLP/HTTP, POST
# /v1development/profiles (docs/INTAKE.md).  The requests are made by a
# real protobuf library (python3-protobuf) over opentelemetry-proto
# v1.11.0's .proto files (vendored in tests/tools/proto, compiled by
# protoc), from the real pprof fixtures (tests/tools/otlp_request.py):
# profctl top of every pushed sample type, CPU and heap, in protobuf and
# JSON, equals go tool pprof -top of the source (tests/fixtures/expected);
# gzip; the TCP listener over TLS with the writer's token, the reader's
# refused; partial success; a bad dictionary, another version's wire
# format, a truncated body refused with a clear 400 and nothing stored;
# service.name as the scope, otlp-default-scope without one; the
# resource's attributes as labels a selection takes with their dots; the
# samples' timestamps in a timeline.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tls-lib.sh"

command -v protoc >/dev/null ||
    { echo "SKIP: no protoc (apt-get install protobuf-compiler)"; exit 77; }
# The python with Debian's protobuf: the one on PATH, else the system's.
PYPB=
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import google.protobuf' 2>/dev/null; then
		PYPB=$py
		break
	fi
done
[ -n "$PYPB" ] ||
    { echo "SKIP: no python3-protobuf (apt-get install python3-protobuf)"; exit 77; }
GEN="$T/gen"
mkdir -p "$GEN"
protoc -I "$TESTS_DIR/tools/proto" --python_out="$GEN" \
    google/v1/profile.proto google/rpc/status.proto \
    opentelemetry/proto/common/v1/common.proto \
    opentelemetry/proto/resource/v1/resource.proto \
    opentelemetry/proto/profiles/v1development/profiles.proto \
    opentelemetry/proto/collector/profiles/v1development/profiles_service.proto ||
	fail "protoc: the vendored opentelemetry-proto files"
req() { "$PYPB" "$TESTS_DIR/tools/otlp_request.py" "$GEN" "$@"; }

tls_self_signed server
WTOKEN=writer-0123456789abcdef
RTOKEN=reader-0123456789abcdef
start_profd --listen-tcp 127.0.0.1:0 --tls-cert "$TLS/server.pem" \
    --tls-key "$TLS/server.key" --tcp-auth-token "$WTOKEN" \
    --tcp-read-token "$RTOKEN" --otlp-default-scope no-service
PORT=$(tcp_port)

# otlp FILE TYPE [curl args...]: POST the request on the socket; the
# body, then the status on the last line.
otlp() {
	local f=$1 type=$2
	shift 2
	api POST /v1development/profiles -H "Content-Type: $type" \
	    --data-binary "@$f" "$@"
}
PB=application/x-protobuf
JS=application/json

# check_metric SCOPE PROF METRIC: profctl top's numbers of METRIC in
# SCOPE against go tool pprof -top's of tests/fixtures/PROF.pprof.
check_metric() {
	"$PROFCTL" top --scope "$1" --metric "$3" --json >"$T/top.json" ||
	    fail "profctl top $1 $3"
	python3 "$TESTS_DIR/tools/top_tsv.py" "$FIXTURES/expected/$2.$3.tsv" \
	    "$T/top.json" || fail "$1: the numbers of $3 differ from pprof's"
}

# check_top SCOPE PROF: every sample type of tests/fixtures/PROF.pprof
# pushed into SCOPE against go tool pprof -top's numbers and text.
check_top() {
	local scope=$1 prof=$2 tsv base metric n=0
	for tsv in "$FIXTURES"/expected/"$prof".*.tsv; do
		base=$(basename "$tsv" .tsv)
		metric=${base#*.}
		check_metric "$scope" "$prof" "$metric"
		"$PROFCTL" top --scope "$scope" --metric "$metric" >"$T/top.txt" ||
		    fail "profctl top $scope $metric (text)"
		sed -n '/^Showing nodes/,$p' "${tsv%.tsv}.top" >"$T/want.txt"
		sed -n '/^Showing nodes/,$p' "$T/top.txt" >"$T/got.txt"
		[ -s "$T/want.txt" ] || fail "${tsv%.tsv}.top has no table"
		diff -u "$T/want.txt" "$T/got.txt" ||
		    fail "$scope: profctl top of $metric differs from go tool pprof -top"
		n=$((n + 1))
	done
	[ "$n" -ge 2 ] || fail "only $n sample types of $prof checked"
}

# Protobuf and JSON, CPU (2 sample types) and heap (4): each Profile a
# profile of the scope its service.name names; the empty reply of a
# whole success in the request's encoding.
for prof in cpu heap; do
	req "$FIXTURES/$prof.pprof" "$T/$prof.pb" --service "pb-$prof" ||
	    fail "otlp_request.py $prof"
	req "$FIXTURES/$prof.pprof" "$T/$prof.json" --json \
	    --service "json-$prof" || fail "otlp_request.py $prof --json"
	r=$(otlp "$T/$prof.pb" "$PB" -D "$T/h.txt")
	[ "$(status_of "$r")" = 200 ] || fail "protobuf $prof: $r"
	[ -z "$(body_of "$r")" ] || fail "protobuf $prof: a body: $r"
	grep -qi '^content-type: application/x-protobuf' "$T/h.txt" ||
	    fail "protobuf $prof answered as $(grep -i content-type "$T/h.txt")"
	r=$(otlp "$T/$prof.json" "$JS")
	[ "$(status_of "$r")" = 200 ] || fail "JSON $prof: $r"
	[ "$(body_of "$r")" = "{}" ] || fail "JSON $prof: $r"
	check_top "pb-$prof" "$prof"
	check_top "json-$prof" "$prof"
done
[ "$(nprofiles pb-heap)" = 4 ] || fail "pb-heap has $(nprofiles pb-heap) profiles, not 4"
[ "$(nprofiles json-cpu)" = 2 ] || fail "json-cpu has $(nprofiles json-cpu) profiles, not 2"
ok "CPU and every heap sample type, protobuf and JSON: profctl top equals go tool pprof -top"

# The same request again is stored once (each Profile a duplicate).
r=$(otlp "$T/heap.pb" "$PB")
[ "$(status_of "$r")" = 200 ] || fail "heap again: $r"
[ "$(nprofiles pb-heap)" = 4 ] || fail "a request sent twice is stored twice"
ok "a request sent again (a client's retry) adds nothing"

# gzip, both encodings.
gzip -c "$T/cpu.pb" >"$T/cpu.pb.gz"
req "$FIXTURES/cpu.pprof" "$T/gz.json" --json --service gz-json
gzip -c "$T/gz.json" >"$T/gz.json.gz"
req "$FIXTURES/cpu.pprof" "$T/gz.pb" --service gz-pb
gzip -c "$T/gz.pb" >"$T/gz.pb.gz"
for enc in pb json; do
	type=$PB
	[ "$enc" = json ] && type=$JS
	r=$(otlp "$T/gz.$enc.gz" "$type" -H "Content-Encoding: gzip")
	[ "$(status_of "$r")" = 200 ] || fail "gzipped $enc: $r"
	check_metric "gz-$enc" cpu cpu
done
ok "gzipped requests, protobuf and JSON"

# The TCP listener over TLS: the writer's token stores, the reader's is
# refused and stores nothing.
req "$FIXTURES/cpu.pprof" "$T/tcp.pb" --service over-tcp
code=$(curl -s -o "$T/tcp.out" -w '%{http_code}' --cacert "$TLS/server.pem" \
    -H "Authorization: Bearer $RTOKEN" -H "Content-Type: $PB" \
    --data-binary "@$T/tcp.pb" "https://127.0.0.1:$PORT/v1development/profiles")
case $code in 401|403) ;; *) fail "the reader's token: $code $(cat "$T/tcp.out")" ;; esac
rcode=$code
[ "$(nprofiles over-tcp)" = 0 ] || fail "the reader's push stored something"
code=$(curl -s -o "$T/tcp.out" -w '%{http_code}' --cacert "$TLS/server.pem" \
    -H "Authorization: Bearer $WTOKEN" -H "Content-Type: $PB" \
    --data-binary "@$T/tcp.pb" "https://127.0.0.1:$PORT/v1development/profiles")
[ "$code" = 200 ] || fail "the writer's token: $code $(cat "$T/tcp.out")"
check_metric over-tcp cpu cpu
ok "over TLS on the TCP listener: the writer's token stores, the reader's is refused ($rcode)"

# Partial success: heap's Profile 2 (inuse_objects) names a stack past
# the table; the 3 others are stored, the reply counts the one refused
# and says why, in either encoding.
req "$FIXTURES/heap.pprof" "$T/part.json" --json --bad-profile 2 \
    --service part-json
r=$(otlp "$T/part.json" "$JS")
[ "$(status_of "$r")" = 200 ] || fail "partial, JSON: $r"
body_of "$r" | json 'j["partialSuccess"]["rejectedProfiles"]' | grep -qx 1 ||
    fail "partial, JSON: $r"
body_of "$r" | json 'j["partialSuccess"]["errorMessage"]' |
    grep -q "profile 2: samples\[0\].stack_index is .* out of stack_table" ||
	fail "partial, JSON, the reason: $r"
[ "$(nprofiles part-json)" = 3 ] || fail "partial: $(nprofiles part-json) stored, not 3"
check_metric part-json heap alloc_space
req "$FIXTURES/heap.pprof" "$T/part.pb" --bad-profile 0 --service part-pb
curl -s --unix-socket "$SOCK" -H "Content-Type: $PB" --data-binary "@$T/part.pb" \
    -o "$T/part.reply" -w '%{http_code}' http://localhost/v1development/profiles \
    >"$T/code" || fail "partial, protobuf: curl"
[ "$(cat "$T/code")" = 200 ] || fail "partial, protobuf: $(cat "$T/code")"
"$PYPB" - "$GEN" "$T/part.reply" <<'PY' || fail "partial, protobuf: the reply"
import sys
sys.path.insert(0, sys.argv[1])
from opentelemetry.proto.collector.profiles.v1development import \
    profiles_service_pb2 as svc
r = svc.ExportProfilesServiceResponse()
r.ParseFromString(open(sys.argv[2], "rb").read())
ps = r.partial_success
assert ps.rejected_profiles == 1, r
assert "profile 0: samples[0].stack_index" in ps.error_message, r
PY
[ "$(nprofiles part-pb)" = 3 ] || fail "partial, protobuf: $(nprofiles part-pb) stored"
ok "partial success: the bad Profile counted and named, the others stored"

# refused FILE TYPE SCOPE PATTERN: a 400 whose Status message matches,
# nothing stored in SCOPE, profd still serving.
refused() {
	local f=$1 type=$2 scope=$3 pat=$4
	curl -s --unix-socket "$SOCK" -H "Content-Type: $type" \
	    --data-binary "@$f" -o "$T/bad.reply" -w '%{http_code}' \
	    http://localhost/v1development/profiles >"$T/code" ||
		fail "$f: curl"
	[ "$(cat "$T/code")" = 400 ] || fail "$f: $(cat "$T/code") $(cat "$T/bad.reply")"
	if [ "$type" = "$JS" ]; then
		json 'j["message"]' <"$T/bad.reply" >"$T/bad.msg" ||
		    fail "$f: not a JSON Status: $(cat "$T/bad.reply")"
	else
		"$PYPB" -c '
import sys
sys.path.insert(0, sys.argv[1])
from google.rpc import status_pb2
s = status_pb2.Status()
s.ParseFromString(open(sys.argv[2], "rb").read())
assert s.code == 3, s  # INVALID_ARGUMENT
print(s.message)' "$GEN" "$T/bad.reply" >"$T/bad.msg" ||
		    fail "$f: not a google.rpc.Status"
	fi
	grep -q -- "$pat" "$T/bad.msg" || fail "$f: the message: $(cat "$T/bad.msg")"
	[ "$(nprofiles "$scope")" = 0 ] || fail "$f: something of it was stored"
}
req "$FIXTURES/heap.pprof" "$T/dict.pb" --bad-dictionary --service bad-dict
refused "$T/dict.pb" "$PB" bad-dict \
    "location_table\[[0-9]*\].lines\[0\].function_index is .* out of function_table"
req "$FIXTURES/heap.pprof" "$T/dict.json" --json --bad-dictionary --service bad-dict
refused "$T/dict.json" "$JS" bad-dict "out of function_table"
req --v190 "$T/v190.pb"
refused "$T/v190.pb" "$PB" old "not an ExportProfilesServiceRequest of opentelemetry-proto v1.11.0 (profiles v1development), which profd speaks: Sample.link_index (field 3)"
head -c 3000 "$T/cpu.pb" >"$T/cut.pb"
refused "$T/cut.pb" "$PB" pb-cut "cut short or garbled"
head -c 3000 "$T/cpu.json" >"$T/cut.json"
refused "$T/cut.json" "$JS" json-cut "JSON"
# A JSON request of another version: v1.7.0's Profile had sampleType as
# a list.
printf '{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"sampleType":[{"typeStrindex":1}]}]}]}]}' >"$T/old.json"
refused "$T/old.json" "$JS" unknown_service "Profile.sampleType is an array, in v1.11.0 it is a message"
# Every Profile refused: 400, nothing stored.
req "$FIXTURES/cpu.pprof" "$T/allbad.pb" --service all-bad --bad-profile 0
"$PYPB" - "$GEN" "$T/allbad.pb" <<'PY' || fail "allbad"
import sys
sys.path.insert(0, sys.argv[1])
from opentelemetry.proto.collector.profiles.v1development import \
    profiles_service_pb2 as svc
r = svc.ExportProfilesServiceRequest()
r.ParseFromString(open(sys.argv[2], "rb").read())
for p in r.resource_profiles[0].scope_profiles[0].profiles:
    p.samples[0].stack_index = 9999
open(sys.argv[2], "wb").write(r.SerializeToString())
PY
refused "$T/allbad.pb" "$PB" all-bad "every Profile is refused, nothing is stored"
api GET /v1/health >/dev/null || fail "profd stopped answering"
ok "a bad dictionary, v1.9.0's and v1.7.0's shapes, a cut body, every Profile refused: 400 naming why, nothing stored"

# No service.name: otlp-default-scope (set to no-service here).
req "$FIXTURES/cpu.pprof" "$T/nosvc.pb" --service ""
r=$(otlp "$T/nosvc.pb" "$PB")
[ "$(status_of "$r")" = 200 ] || fail "no service.name: $r"
check_metric no-service cpu samples
ok "a resource without service.name goes to otlp-default-scope"

# The resource's attributes are labels, keys with their dots; a
# selection takes them.
for h in web1 web2; do
	req "$FIXTURES/cpu.pprof" "$T/$h.pb" --service hosts \
	    --resource "host.name=$h" --resource deployment.environment.name=prod
	r=$(otlp "$T/$h.pb" "$PB")
	[ "$(status_of "$r")" = 200 ] || fail "$h: $r"
done
"$PROFCTL" top --scope hosts --metric cpu --json >"$T/both.json"
"$PROFCTL" top --scope hosts --metric cpu --label host.name=web1 \
    --json >"$T/top.json" || fail "--label host.name=web1"
python3 "$TESTS_DIR/tools/top_tsv.py" "$FIXTURES/expected/cpu.cpu.tsv" \
    "$T/top.json" || fail "--label host.name=web1 is not one push"
[ "$(json 'j["total"]' <"$T/both.json")" = \
    "$(( $(json 'j["total"]' <"$T/top.json") * 2 ))" ] ||
	fail "the scope is not both pushes"
r=$(api GET "/v1/profiles?scope=hosts&label=host.name=web2")
body_of "$r" | json '[p["labels"] for p in j["profiles"]]' >"$T/labels"
grep -q '"host.name": "web2"' "$T/labels" || fail "labels: $(cat "$T/labels")"
grep -q '"deployment.environment.name": "prod"' "$T/labels" ||
    fail "labels: $(cat "$T/labels")"
grep -q 'service.name' "$T/labels" && fail "service.name is a label: $(cat "$T/labels")"
ok "resource attributes are labels (host.name=web1 selects one push)"

# Samples with timestamps are placed in time: a timeline of 1 s steps
# shows each second's sum.
T0=1700000000000000000
req "$FIXTURES/cpu.pprof" "$T/timed.pb" --service timed --timestamps "$T0" \
    >"$T/sums.json"
r=$(otlp "$T/timed.pb" "$PB")
[ "$(status_of "$r")" = 200 ] || fail "timed: $r"
for m in cpu samples; do
	r=$(api GET "/v1/timeline?scope=timed&metric=$m&step=1s")
	[ "$(status_of "$r")" = 200 ] || fail "timeline $m: $r"
	body_of "$r" >"$T/tl.json"
	python3 - "$T/sums.json" "$m" "$T/tl.json" <<'PY' || fail "timeline of $m"
import json, sys
want = json.load(open(sys.argv[1]))[sys.argv[2]]
got = {str(p["time_ns"] // 10**9): p["value"]
       for p in json.load(open(sys.argv[3]))["points"] if p["value"]}
if got != want:
    sys.exit("got %s, want %s" % (got, want))
PY
done
ok "timestamps_unix_nano: a timeline shows each second's samples"

# A Profile carrying only its pprof (original_payload) is that pprof.
req "$FIXTURES/heap.pprof" "$T/payload.pb" --service payload --payload-only
r=$(otlp "$T/payload.pb" "$PB")
[ "$(status_of "$r")" = 200 ] || fail "payload: $r"
check_metric payload heap inuse_space
ok "original_payload in pprof format, without samples, is stored as that pprof"

# A request of one Profile is a format of POST /v1/profiles too:
# profctl push --format otlp, in the push's scope.
req "$FIXTURES/cpu.pprof" "$T/one.pb" --only cpu
out=$("$PROFCTL" push "$T/one.pb" --format otlp --scope one-push) ||
    fail "profctl push --format otlp: $out"
check_metric one-push cpu cpu
ok "profctl push --format otlp of a request of one Profile"

# Wrong Content-Type; query parameters are refused.
r=$(otlp "$T/cpu.pb" text/plain)
[ "$(status_of "$r")" = 415 ] || fail "text/plain: $r"
r=$(api POST "/v1development/profiles?scope=x" -H "Content-Type: $PB" \
    --data-binary "@$T/cpu.pb")
[ "$(status_of "$r")" = 400 ] || fail "a parameter: $r"
ok "a Content-Type that is not OTLP's: 415, a query parameter: 400"
