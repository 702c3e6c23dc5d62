# POST /ingest as Pyroscope's clients send it: pyroscope-go's multipart
# body (tests/tools/pyroscope_body.py, field by field from its source)
# carrying the Go-written fixtures, whose every function then equals
# go tool pprof -top (tests/fixtures/expected); folded ("groups") and
# lines bodies with sampleRate and units; tags as labels; from/until in
# s, ms, us and ns; the same folded text at two times is two profiles;
# 400, 413 and 422 as Pyroscope answers, with nothing stored.
. "$(dirname "$0")/lib.sh"
start_profd --max-body 4m
BODY="$TESTS_DIR/tools/pyroscope_body.py"

# ingest QUERY [curl args]: POST /ingest?QUERY.
ingest() {
	local q=$1
	shift
	api POST "/ingest?$q" "$@"
}

# pyroscope-go: name=APP.TYPE{tags}, from/until in seconds, spyName gospy,
# sampleRate 100, units and aggregationType of the profile type
# (pyroscope-go's upstream.UploadJob as its profiler fills it).
go_query() {
	printf 'name=%s&from=1700000000&until=1700000010&spyName=gospy&sampleRate=100&units=%s&aggregationType=%s' \
	    "$1" "$2" "$3"
}
for spec in cpu:gocpu.cpu%7Bpod%3Dp1%2Cenv%3Dprod%7D:samples:sum \
    heap:goheap.inuse_space:bytes:average \
    mutex:gomutex.mutex_count:lock_samples:sum \
    block:goblock.block_count:lock_samples:sum; do
	IFS=: read -r prof name units agg <<<"$spec"
	ct=$(python3 "$BODY" multipart "$T/$prof.body" "$FIXTURES/$prof.pprof")
	r=$(ingest "$(go_query "$name" "$units" "$agg")" -H "Content-Type: $ct" \
	    --data-binary @"$T/$prof.body")
	[ "$(status_of "$r")" = 200 ] || fail "pyroscope-go $prof: $r"
	[ "$(body_of "$r" | json 'j["format"]')" = pprof ] || fail "$prof format: $r"
done
r=$(api GET "/v1/profiles?scope=gocpu")
[ "$(body_of "$r" | json 'j["profiles"][0]["labels"]')" = \
    '{"env": "prod", "pod": "p1", "pyroscope_spy": "gospy"}' ] ||
    fail "tags and spyName as labels: $r"
checked=0
for tsv in "$FIXTURES"/expected/*.tsv; do
	base=$(basename "$tsv" .tsv)
	prof=${base%%.*}
	metric=${base#*.}
	"$PROFCTL" top --scope "go$prof" --metric "$metric" --json \
	    >"$T/top.json" || fail "profctl top $base"
	python3 "$TESTS_DIR/tools/top_tsv.py" "$tsv" "$T/top.json" ||
	    fail "$base pushed as pyroscope-go does differs from pprof"
	"$PROFCTL" top --scope "go$prof" --metric "$metric" >"$T/top.txt"
	diff -u <(sed -n '/^Showing nodes/,$p' "${tsv%.tsv}.top") \
	    <(sed -n '/^Showing nodes/,$p' "$T/top.txt") ||
	    fail "profctl top of $base differs from go tool pprof -top"
	checked=$((checked + 1))
done
[ "$checked" -ge 10 ] || fail "only $checked sample types checked"
ok "pyroscope-go multipart bodies: $checked sample types equal go tool pprof -top"

# With sample_type_config (Pyroscope's own RawProfile) and a prev_profile;
# a raw gzipped pprof body with format=pprof.
ct=$(python3 "$BODY" multipart "$T/cfg.body" "$FIXTURES/mutex.pprof" \
    "$FIXTURES/mutex.pprof" --config '{"contentions":{"units":"lock_samples","aggregation":"sum","display-name":"mutex_count"}}')
r=$(ingest "name=cfg.mutex_count" -H "Content-Type: $ct" --data-binary @"$T/cfg.body")
[ "$(status_of "$r")" = 200 ] || fail "sample_type_config: $r"
# (runtime/pprof writes it gzipped)
r=$(ingest "name=rawgz.block_count&format=pprof" --data-binary @"$FIXTURES/block.pprof")
[ "$(status_of "$r")" = 200 ] || fail "raw gzipped pprof: $r"
"$PROFCTL" top --scope rawgz --metric delay --json >"$T/top.json"
python3 "$TESTS_DIR/tools/top_tsv.py" "$FIXTURES/expected/block.delay.tsv" "$T/top.json" ||
    fail "raw pprof body differs from pprof"
ok "sample_type_config and prev_profile parts, raw gzipped pprof"

# Kinds (docs/TIME.md): a pprof without sample_type_config gets the
# inferred ones; its sample_type_config says them as Pyroscope reads it
# (aggregation average: gauge; cumulative true: cumulative; else delta,
# as pyroscope-go's godeltaprof sends heap and mutex profiles); a folded
# body's metric is a gauge with aggregationType=average.
[ "$(kinds_of goheap)" = "alloc_objects:cumulative alloc_space:cumulative inuse_objects:gauge inuse_space:gauge" ] ||
    fail "inferred kinds: $(kinds_of goheap)"
[ "$(kinds_of cfg)" = "contentions:delta delay:cumulative" ] ||
    fail "sample_type_config's kinds: $(kinds_of cfg)"
# pyroscope-go's own config (its upstream/remote, with godeltaprof).
ct=$(python3 "$BODY" multipart "$T/dheap.body" "$FIXTURES/heap.pprof" \
    --config '{"alloc_objects":{"units":"objects"},"alloc_space":{"units":"bytes"},"inuse_space":{"units":"bytes","aggregation":"average"},"inuse_objects":{"units":"objects","aggregation":"average"}}')
r=$(ingest "$(go_query deltaheap.alloc_space bytes sum)" -H "Content-Type: $ct" \
    --data-binary @"$T/dheap.body")
[ "$(status_of "$r")" = 200 ] || fail "godeltaprof heap: $r"
[ "$(kinds_of deltaheap)" = "alloc_objects:delta alloc_space:delta inuse_objects:gauge inuse_space:gauge" ] ||
    fail "godeltaprof heap's kinds: $(kinds_of deltaheap)"
# An old client's cumulative heap with its prev_profile.
ct=$(python3 "$BODY" multipart "$T/oheap.body" "$FIXTURES/heap.pprof" \
    "$FIXTURES/heap.pprof" --config '{"alloc_objects":{"units":"objects","cumulative":true},"alloc_space":{"units":"bytes","cumulative":true},"inuse_space":{"units":"bytes","aggregation":"average"}}')
r=$(ingest "$(go_query oldheap.alloc_space bytes sum)" -H "Content-Type: $ct" \
    --data-binary @"$T/oheap.body")
[ "$(status_of "$r")" = 200 ] || fail "cumulative heap: $r"
[ "$(kinds_of oldheap)" = "alloc_objects:cumulative alloc_space:cumulative inuse_objects:gauge inuse_space:gauge" ] ||
    fail "cumulative heap's kinds: $(kinds_of oldheap)"
r=$(ingest "name=avg.inuse_space&units=bytes&aggregationType=average" --data-binary $'a;b 4096\n')
[ "$(status_of "$r")" = 200 ] || fail "folded average: $r"
[ "$(kinds_of avg)" = "inuse_space:gauge" ] || fail "folded average: $(kinds_of avg)"
r=$(ingest "name=sum.inuse_space&units=bytes&aggregationType=sum" --data-binary $'a;b 4096\n')
[ "$(kinds_of sum)" = "inuse_space:delta" ] || fail "folded sum: $(kinds_of sum)"
ok "kinds: inferred, from sample_type_config, from aggregationType"

# Folded ("groups", the default format): CPU samples at sampleRate Hz are
# stored as cpu/nanoseconds, count * 1e9 / rate.
printf 'main;work;hash 30\nmain;io 10\nmain;work 2\n' >"$T/a.folded"
r=$(ingest "name=fold.cpu%7Bregion%3Deu%7D&from=1700000000&until=1700000010&sampleRate=100&spyName=rbspy" \
    --data-binary @"$T/a.folded")
[ "$(status_of "$r")" = 200 ] || fail "folded: $r"
"$PROFCTL" top --scope fold --json >"$T/top.json"
python3 - "$T/top.json" <<'PY' || fail "folded at 100 Hz: $(cat "$T/top.json")"
import json, sys
j = json.load(open(sys.argv[1]))
rows = {r["function"]: (r["flat"], r["cum"]) for r in j["rows"]}
assert j["metric"] == {"type": "cpu", "unit": "nanoseconds", "aggregate": "delta"}, j["metric"]
assert j["total"] == 42 * 10000000, j["total"]
assert rows["hash"] == (300000000, 300000000), rows
assert rows["work"] == (20000000, 320000000), rows
assert rows["main"] == (0, 420000000), rows
PY
r=$(api GET "/v1/profiles?scope=fold")
[ "$(body_of "$r" | json 'j["profiles"][0]["time_ns"]')" = 1700000000000000000 ] ||
    fail "from as the profile's time: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["duration_ns"]')" = 10000000000 ] ||
    fail "until - from as its duration: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["labels"]["region"]')" = eu ] || fail "tag: $r"

# The same text for the next 10 s is a profile of its own; sent again for
# the same range, a duplicate.  from in ms, us and ns: the same instant.
r=$(ingest "name=fold.cpu&from=1700000010000&until=1700000020000" --data-binary @"$T/a.folded")
[ "$(body_of "$r" | json 'j["duplicate"]')" = False ] || fail "next range: $r"
r=$(ingest "name=fold.cpu&from=1700000010000000&until=1700000020000000" --data-binary @"$T/a.folded")
[ "$(body_of "$r" | json 'j["duplicate"]')" = True ] || fail "same range in us: $r"
r=$(ingest "name=fold.cpu&from=1700000010000000000&until=1700000020000000000" --data-binary @"$T/a.folded")
[ "$(body_of "$r" | json 'j["duplicate"]')" = True ] || fail "same range in ns: $r"
[ "$(api GET "/v1/profiles?scope=fold" | sed '$d' | json 'len(j["profiles"])')" = 2 ] ||
    fail "two ranges, two profiles"
ok "folded: cpu time from sampleRate, from/until in s, ms, us, ns, dedup per range"

# sampleRate 250: 4 ms a sample.  lines: one stack a line.  units.
printf 'a;b\na;b\n\na;c\r\n' >"$T/l.lines"
r=$(ingest "name=lines.cpu&format=lines&sampleRate=250" --data-binary @"$T/l.lines")
[ "$(status_of "$r")" = 200 ] || fail "lines: $r"
"$PROFCTL" top --scope lines --json >"$T/top.json"
[ "$(json 'j["total"]' <"$T/top.json")" = 12000000 ] || fail "lines total: $(cat "$T/top.json")"
[ "$(json '[r["flat"] for r in j["rows"] if r["function"]=="b"][0]' <"$T/top.json")" = 8000000 ] ||
    fail "lines b: $(cat "$T/top.json")"
r=$(ingest "name=objs.alloc_objects&units=objects" --data-binary $'a;b 5\n')
[ "$(body_of "$r" | json 'j["format"]')" = folded ] || fail "objects: $r"
r=$(api GET "/v1/profiles?scope=objs")
[ "$(body_of "$r" | json 'j["profiles"][0]["metrics"]')" = '[{"type": "alloc_objects", "unit": "count", "kind": "delta"}]' ] ||
    fail "objects metric: $r"
r=$(ingest "name=mem.inuse_space&units=bytes" --data-binary $'a;b 4096\n')
[ "$(api GET "/v1/profiles?scope=mem" | sed '$d' | json 'j["profiles"][0]["metrics"]')" = \
    '[{"type": "inuse_space", "unit": "bytes", "kind": "delta"}]' ] || fail "bytes metric"
# Without units, the name's profile type says what the counts are.
r=$(ingest "name=locks.mutex_duration" --data-binary $'a;lock 1500\n')
[ "$(api GET "/v1/profiles?scope=locks" | sed '$d' | json 'j["profiles"][0]["metrics"]')" = \
    '[{"type": "delay", "unit": "nanoseconds", "kind": "delta"}]' ] || fail "units from .mutex_duration"
"$PROFCTL" top --scope locks --json | json 'j["total"]' | has -x 1500 ||
    fail "a lock duration is not scaled by a sample rate"
ok "lines, sampleRate 250, units objects and bytes, units from the suffix"

# Errors: 400 bad metadata, 413 too large, 422 unreadable; nothing stored.
before=$(api GET /v1/scopes | sed '$d' | json 'sum(s["profiles"] for s in j["scopes"])')
expect() {
	local want=$1 what=$2
	shift 2
	r=$(ingest "$@")
	[ "$(status_of "$r")" = "$want" ] || fail "$what: want $want, got $r"
}
expect 400 "no name" "from=1" --data-binary $'a 1\n'
expect 400 "bad scope" "name=a%2Fb.cpu" --data-binary $'a 1\n'
expect 400 "bad tag" "name=app.cpu%7Bnot+a+name%3Dx%7D" --data-binary $'a 1\n'
expect 400 "unclosed tags" "name=app.cpu%7Bk%3Dv" --data-binary $'a 1\n'
expect 400 "bad from" "name=app.cpu&from=yesterday" --data-binary $'a 1\n'
expect 400 "until before from" "name=app.cpu&from=1700000010&until=1700000000" --data-binary $'a 1\n'
expect 400 "trie" "name=app.cpu&format=trie" --data-binary $'a 1\n'
expect 400 "jfr" "name=app.cpu&format=jfr" --data-binary $'a 1\n'
expect 400 "tree by type" "name=app.cpu" -H "Content-Type: binary/octet-stream+tree" --data-binary $'a 1\n'
expect 400 "units" "name=app.cpu&units=furlongs" --data-binary $'a 1\n'
expect 400 "sampleRate" "name=app.cpu&sampleRate=0" --data-binary $'a 1\n'
expect 400 "aggregationType" "name=app.cpu&aggregationType=max" --data-binary $'a 1\n'
expect 400 "boundary" "name=app.cpu" -H "Content-Type: multipart/form-data" --data-binary x
head -c 5000000 /dev/zero >"$T/big"
expect 413 "over max-body" "name=app.cpu" --data-binary @"$T/big"
expect 422 "garbage pprof" "name=app.cpu&format=pprof" --data-binary 'not a profile at all'
expect 422 "bad folded" "name=app.cpu" --data-binary $'a;b 1\na;;c 2\n'
# Its status line's phrase too (libevent's table stops at 417).
curl -s -i --unix-socket "$SOCK" "http://localhost/ingest?name=app.cpu" \
    --data-binary $'a;b 1\na;;c 2\n' | head -n 1 | tr -d '\r' |
    has -x 'HTTP/1.1 422 Unprocessable Entity' || fail "422's reason phrase"
printf 'xx' >"$T/junk.pprof"
ct=$(python3 "$BODY" multipart "$T/junk.body" "$T/junk.pprof")
expect 422 "garbage pprof part" "name=app.cpu" -H "Content-Type: $ct" --data-binary @"$T/junk.body"
expect 422 "no profile part" "name=app.cpu" -H "Content-Type: $ct" \
    --data-binary "$(sed 's/name="profile"/name="other"/' "$T/junk.body")"
ct=$(python3 "$BODY" multipart "$T/cfgbad.body" "$FIXTURES/cpu.pprof" --config 'not json')
expect 422 "bad sample_type_config" "name=app.cpu" -H "Content-Type: $ct" --data-binary @"$T/cfgbad.body"
expect 422 "truncated multipart" "name=app.cpu" -H "Content-Type: $ct" \
    --data-binary @<(head -c 2000 "$T/cfgbad.body")
after=$(api GET /v1/scopes | sed '$d' | json 'sum(s["profiles"] for s in j["scopes"])')
[ "$before" = "$after" ] || fail "refused pushes stored profiles: $before -> $after"
r=$(api GET /v1/scopes)
case "$(body_of "$r")" in *'"app"'*) fail "a refused push made scope app: $r" ;; esac
r=$(api GET /v1/health)
[ "$(status_of "$r")" = 200 ] || fail "health after the errors: $r"
ok "400 / 413 / 422 as Pyroscope answers, nothing stored, profd serving"
