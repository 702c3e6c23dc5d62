# Bodies that inflate 400 times (issue 25): for each kind of body a push
# can be (Connect JSON, Connect protobuf, pyroscope-go's multipart form,
# folded, pprof), one a few tens of kB on the wire that inflates to tens
# of MiB is refused with a 4xx that says why, profd's peak RSS grows by
# less than 64 MiB over its idle RSS (VmHWM, reset before each push
# through /proc/PID/clear_refs), and what the push took is given back.
# Before the JSON bounds (base/jsonlim.c, max-json) the JSON bodies and
# a large sample_type_config grew profd by hundreds of MiB to GiB.
. "$(dirname "$0")/lib.sh"
start_profd
BOMB="$TESTS_DIR/tools/bomb.py"
PUSH=/push.v1.PusherService/Push
export PPROF="$FIXTURES/cpu.pprof"

kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$PROFD_PID/status"; }
# ASan's quarantine and shadow memory keep what was freed: memory is only
# measured without (the status and the error are checked in both).
SANITIZED=0
if grep -q '^PROFD_SANITIZE:BOOL=ON' "${BUILD_DIR:-.}/CMakeCache.txt" \
    2>/dev/null; then
	SANITIZED=1
	echo "sanitizer build: RSS not checked"
fi

# bomb KIND MIB WANT-STATUS WANT-TEXT PATH [curl args...]: the body of
# KIND inflating to MIB MiB, posted to PATH.
bomb() {
	local kind=$1 mib=$2 want=$3 text=$4 path=$5 ct r idle peak after
	shift 5
	ct=$(python3 "$BOMB" "$kind" "$T/$kind.body" "$mib") ||
	    fail "bomb.py $kind"
	echo 5 >"/proc/$PROFD_PID/clear_refs" ||
	    fail "cannot reset profd's peak RSS"
	idle=$(kb VmRSS)
	r=$(api POST "$path" -H "Content-Type: $ct" \
	    --data-binary @"$T/$kind.body" "$@")
	peak=$(kb VmHWM)
	after=$(kb VmRSS)
	echo "$kind: $(stat -c %s "$T/$kind.body") bytes, $mib MiB inflated:" \
	    "$(status_of "$r"), peak RSS +$(((peak - idle) / 1024)) MiB," \
	    "after +$(((after - idle) / 1024)) MiB"
	[ "$(status_of "$r")" = "$want" ] ||
	    fail "$kind: want $want, got $r"
	body_of "$r" | has -F "$text" || fail "$kind: the error: $r"
	[ "$SANITIZED" = 1 ] || [ $((peak - idle)) -lt $((64 * 1024)) ] ||
	    fail "$kind: peak RSS grew by $(((peak - idle) / 1024)) MiB"
	[ "$SANITIZED" = 1 ] || [ $((after - idle)) -lt $((16 * 1024)) ] ||
	    fail "$kind: $(((after - idle) / 1024)) MiB not given back"
	ok "$kind refused ($want): $(body_of "$r" | head -c 160)"
}

connect() {
	bomb "$1" "$2" "$3" "$4" "$PUSH" -H "Content-Encoding: gzip" \
	    -H "Connect-Protocol-Version: 1"
}
ingest='/ingest?name=bomb.cpu&from=1700000000&until=1700000010'

# JSON past the value bound (half-a-million labels) but under max-json:
# refused by the scanner before jansson builds anything.
connect json-values 12 429 "more than 65536 values"
# JSON past max-json: refused while inflating.
connect json-text 64 429 "max-json"
# A PushRequest whose one profile is the bomb: its bytes are held once.
connect proto 24 400 "pprof"
bomb pprof 24 400 "pprof" "/v1/profiles?scope=bomb&format=pprof"
bomb folded 24 422 "count is not" "$ingest"
bomb multipart 24 422 "pprof" "$ingest"
# A sample_type_config of 8 MiB (a form is not compressed): refused by
# its size before it is parsed.
bomb stc 8 413 "sample_type_config is" "$ingest"

r=$(api GET /v1/scopes)
[ "$(body_of "$r" | json 'sum(s["profiles"] for s in j["scopes"])')" = 0 ] ||
    fail "a refused push stored something: $r"

# What real clients send still fits: Alloy's JSON push and
# pyroscope-go's form with its sample_type_config.
python3 "$TESTS_DIR/tools/pyroscope_body.py" push "$T/real.json" --json \
    --label __name__=process_cpu --label service_name=checkout \
    "$FIXTURES/cpu.pprof" "$FIXTURES/heap.pprof"
r=$(api POST "$PUSH" -H "Content-Type: application/json" \
    --data-binary @"$T/real.json")
[ "$(status_of "$r")" = 200 ] || fail "a real JSON push: $r"
ct=$(python3 "$TESTS_DIR/tools/pyroscope_body.py" multipart "$T/real.form" \
    "$FIXTURES/heap.pprof" --config "$(python3 -c '
import sys; sys.path.insert(0, sys.argv[1]); import bomb
print(bomb.STC.decode())' "$TESTS_DIR/tools")")
r=$(api POST "$ingest" -H "Content-Type: $ct" --data-binary @"$T/real.form")
[ "$(status_of "$r")" = 200 ] || fail "a real multipart push: $r"
ok "real clients' pushes are stored"
