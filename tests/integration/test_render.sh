# GET /pyroscope/render and /pyroscope/render-diff, Pyroscope's HTTP
# render API, against profctl on the same selections: real profiles
# (the Go CPU and heap fixtures, and profiles of their own times 40 s
# apart) in two scopes with push labels; both query forms
# (PROFILE_TYPE_ID{selector} and APP.SUFFIX{selector}); numTicks,
# every function's self and maxSelf against profctl top and tree; the
# timeline against profctl timeline at Pyroscope's step; maxNodes;
# selectors with =~ and !~ on service_name, a push label and a sample
# label against profctl --label; the diff's ticks and selves against
# profctl diff; and 400s that say what is wrong and where.
. "$(dirname "$0")/lib.sh"
start_profd

CPU='process_cpu:cpu:nanoseconds:cpu:nanoseconds'
HEAP='memory:inuse_space:bytes:space:bytes'

"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope svc-a --label env=prod \
    --label region=eu >/dev/null || fail "push cpu svc-a"
"$PROFCTL" push "$FIXTURES/heap.pprof" --scope svc-a --label env=prod \
    >/dev/null || fail "push heap svc-a"
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope svc-b --label env=staging \
    >/dev/null || fail "push cpu svc-b"
# The test's now: an hour after the fixtures' times (they keep the times
# they were taken at), not the clock's, so that the windows below hold
# the same profiles whatever the date.  Every profile of the test is
# inside [FROM, UNTIL].
NOW=$(api GET "/v1/profiles?scope=svc-a" | sed '$d' |
    json 'max(p["time_ns"] for p in j["profiles"]) // 10**9 + 3600')
FROM=$((NOW - 60 * 86400))
UNTIL=$((NOW + 60))
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
WIN=(--since "$(iso "$FROM")" --until "$(iso "$UNTIL")")
# Three more of svc-b at 40 s apart in the two minutes before now (their
# own times).
for i in 0 1 2; do
	python3 "$TESTS_DIR/tools/genpprof.py" "$T/g$i.pb.gz" --samples 300 \
	    --functions 40 --depth 6 --seed $((i + 3)) \
	    --time $((NOW - 100 + 40 * i)) || fail "genpprof $i"
	env=dev
	[ "$i" = 1 ] && env=prod
	"$PROFCTL" push "$T/g$i.pb.gz" --scope svc-b --label "env=$env" \
	    >/dev/null || fail "push g$i"
done

# render QUERY-STRING FILE: GET /pyroscope/render into FILE (200 only).
render() {
	local code
	code=$(curl -s -o "$2" -w '%{http_code}' --unix-socket "$SOCK" \
	    "http://localhost/pyroscope/$1") || fail "curl $1"
	[ "$code" = 200 ] || fail "/pyroscope/$1: $code $(cat "$2")"
}
# urlencode TEXT
enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
# profctl VIEW SELECTION... into FILE (the last argument).
pc() {
	local out=${*: -1}
	"$PROFCTL" "${@:1:$#-1}" "${WIN[@]}" --json >"$out" ||
	    fail "profctl ${*:1:$#-1}"
}
check() { python3 "$TESTS_DIR/tools/flamebearer.py" "$@" || fail "$*"; }

# 1. Both query forms against profctl top and tree.
render "render?query=$(enc "$CPU{service_name=\"svc-a\"}")&from=$FROM&until=$UNTIL" "$T/r1.json"
render "render?query=$(enc 'svc-a.cpu{}')&from=$FROM&until=$UNTIL" "$T/r1old.json"
# until now+1m is the clock's: after the fixtures were taken, all svc-a has.
render "render?query=svc-a.cpu&from=$(iso "$FROM" | tr -d -- '-:TZ' |
    cut -c1-8)&until=now%2B1m&format=json" "$T/r1date.json"
pc top --scope svc-a --metric cpu/nanoseconds --limit 0 "$T/top1.json"
pc tree --scope svc-a --metric cpu/nanoseconds "$T/tree1.json"
check single "$T/r1.json" "$T/top1.json" "$T/tree1.json"
check single "$T/r1old.json" "$T/top1.json" "$T/tree1.json"
check single "$T/r1date.json" "$T/top1.json" "$T/tree1.json"
json '[j["metadata"][k] for k in ("format", "units", "sampleRate", "name")]' \
    <"$T/r1.json" | has -x '\["single", "samples", 1000000000, "cpu"\]' ||
    fail "metadata: $(json 'j["metadata"]' <"$T/r1.json")"
ok "render: both query forms (and a YYYYMMDD from) are profctl top's and tree's"

render "render?query=$(enc "$HEAP{service_name=\"svc-a\"}")&from=$FROM&until=$UNTIL" "$T/r2.json"
render "render?query=svc-a.inuse_space&from=$FROM&until=$UNTIL" "$T/r2old.json"
pc top --scope svc-a --metric inuse_space/bytes --limit 0 "$T/top2.json"
pc tree --scope svc-a --metric inuse_space/bytes "$T/tree2.json"
check single "$T/r2.json" "$T/top2.json" "$T/tree2.json"
check single "$T/r2old.json" "$T/top2.json" "$T/tree2.json"
json '[j["metadata"][k] for k in ("units", "sampleRate", "name")]' \
    <"$T/r2.json" | has -x '\["bytes", 100, "inuse_space"\]' ||
    fail "heap metadata: $(json 'j["metadata"]' <"$T/r2.json")"
ok "render: the heap's inuse_space, in bytes"

# 2. Selectors: =~ and !~ on service_name, a push label, a sample label.
sel() {		# SELECTOR FILE: render the CPU over both scopes' window
	render "render?query=$(enc "$CPU$1")&from=$FROM&until=$UNTIL" "$2"
}
sel '{service_name=~"svc-.*"}' "$T/s1.json"
pc top --scope svc-a --scope svc-b --metric cpu/nanoseconds --limit 0 "$T/t1.json"
pc tree --scope svc-a --scope svc-b --metric cpu/nanoseconds "$T/tr1.json"
check single "$T/s1.json" "$T/t1.json" "$T/tr1.json"
sel '{service_name=~"svc-.*", env=~"prod|staging"}' "$T/s2.json"
pc top --scope svc-a --scope svc-b --metric cpu/nanoseconds \
    --label 'env=~prod|staging' --limit 0 "$T/t2.json"
pc tree --scope svc-a --scope svc-b --metric cpu/nanoseconds \
    --label 'env=~prod|staging' "$T/tr2.json"
check single "$T/s2.json" "$T/t2.json" "$T/tr2.json"
# The same as the plain filters' sum: env=prod and env=staging.
pc top --scope svc-a --scope svc-b --metric cpu/nanoseconds --label env=prod \
    --limit 1 "$T/t2a.json"
pc top --scope svc-a --scope svc-b --metric cpu/nanoseconds \
    --label env=staging --limit 1 "$T/t2b.json"
a=$(json 'j["total"]' <"$T/t2a.json")
b=$(json 'j["total"]' <"$T/t2b.json")
n=$(json 'j["flamebearer"]["numTicks"]' <"$T/s2.json")
[ "$n" = $((a + b)) ] && [ "$a" -gt 0 ] && [ "$b" -gt 0 ] ||
    fail "env=~prod|staging: $n, env=prod $a + env=staging $b"
sel '{service_name="svc-b", env!~"prod|staging", worker=~"[0-3]"}' "$T/s3.json"
pc top --scope svc-b --metric cpu/nanoseconds --label 'env!~prod|staging' \
    --label 'worker=~[0-3]' --limit 0 "$T/t3.json"
pc tree --scope svc-b --metric cpu/nanoseconds --label 'env!~prod|staging' \
    --label 'worker=~[0-3]' "$T/tr3.json"
check single "$T/s3.json" "$T/t3.json" "$T/tr3.json"
# A label no profile has reads as "": region!~"eu" keeps svc-b (no
# region), region=~".+" only svc-a's.
sel '{service_name=~"svc-a|svc-b", region!~"eu"}' "$T/s4.json"
pc top --scope svc-b --metric cpu/nanoseconds --limit 0 "$T/t4.json"
pc tree --scope svc-b --metric cpu/nanoseconds "$T/tr4.json"
check single "$T/s4.json" "$T/t4.json" "$T/tr4.json"
sel '{region=~".+"}' "$T/s5.json"
check single "$T/s5.json" "$T/top1.json" "$T/tree1.json"
sel '{service_name="nosuch"}' "$T/s6.json"
json '[j["flamebearer"]["numTicks"], j["flamebearer"]["levels"]]' \
    <"$T/s6.json" | has -x '\[0, \[\[0, 0, 0, 0\]\]\]' || fail "no scope"
ok "selectors: =~ and !~ on service_name, push and sample labels are profctl --label's"

# 3. The timeline: the two minutes of svc-b before now (the three
# profiles of their own times), at Pyroscope's step for the range (15 s).
F2=$((NOW - 120))
render "render?query=$(enc "$CPU{service_name=\"svc-b\"}")&from=$F2&until=$UNTIL" "$T/tl.json"
"$PROFCTL" timeline --scope svc-b --metric cpu/nanoseconds --step 15 \
    --since "$(iso "$F2")" --until "$(iso "$UNTIL")" --json >"$T/ptl.json" ||
    fail "profctl timeline"
"$PROFCTL" top --scope svc-b --metric cpu/nanoseconds --limit 0 \
    --since "$(iso "$F2")" --until "$(iso "$UNTIL")" --json >"$T/ttl.json" ||
    fail "profctl top"
"$PROFCTL" tree --scope svc-b --metric cpu/nanoseconds \
    --since "$(iso "$F2")" --until "$(iso "$UNTIL")" --json >"$T/trtl.json" ||
    fail "profctl tree"
check single "$T/tl.json" "$T/ttl.json" "$T/trtl.json"
check timeline "$T/tl.json" "$T/ptl.json"
[ "$(json 'j["timeline"]["durationDelta"]' <"$T/tl.json")" = 15 ] ||
    fail "step for 3 minutes"
[ "$(json 'sum(1 for v in j["timeline"]["samples"] if v)' <"$T/tl.json")" = 3 ] ||
    fail "three points: $(json 'j["timeline"]' <"$T/tl.json")"
# Over the 60 days: 1 h steps (Pyroscope's rounding of 60 d / 1500).
check timeline "$T/s1.json" /dev/stdin <<EOF
$("$PROFCTL" timeline --scope svc-a --scope svc-b --metric cpu/nanoseconds \
    --step 3600 "${WIN[@]}" --json)
EOF
ok "timeline: Pyroscope's step, samples adding up to numTicks, profctl timeline's points"

# 4. maxNodes (and max-nodes): the nodes of the largest totals.
render "render?query=$(enc "$CPU{service_name=\"svc-a\"}")&from=$FROM&until=$UNTIL&maxNodes=20" "$T/m1.json"
check single "$T/m1.json" "$T/top1.json" "$T/tree1.json" 20
render "render?query=$(enc "$CPU{service_name=\"svc-a\"}")&from=$FROM&until=$UNTIL&max-nodes=7" "$T/m2.json"
check single "$T/m2.json" "$T/top1.json" "$T/tree1.json" 7
ok "maxNodes: Pyroscope's pruning, the sums exact"

# 5. render-diff against profctl diff.
lq=$(enc "$CPU{service_name=\"svc-a\"}")
rq=$(enc 'svc-b.cpu{env=~"dev|prod"}')
render "render-diff?leftQuery=$lq&leftFrom=$FROM&leftUntil=$UNTIL&rightQuery=$rq&rightFrom=$FROM&rightUntil=$UNTIL" "$T/d1.json"
"$PROFCTL" diff --scope svc-b --label 'env=~dev|prod' "${WIN[@]}" \
    --base-scope svc-a --base-since "$(iso "$FROM")" \
    --base-until "$(iso "$UNTIL")" --metric cpu/nanoseconds --limit 0 \
    --json >"$T/pd1.json" || fail "profctl diff"
check diff "$T/d1.json" "$T/pd1.json"
render "render-diff?leftQuery=$lq&leftFrom=$FROM&leftUntil=$UNTIL&rightQuery=$rq&rightFrom=$FROM&rightUntil=$UNTIL&maxNodes=10" "$T/d2.json"
check diff "$T/d2.json" "$T/pd1.json" 10
ok "render-diff: ticks and every function's left and right self are profctl diff's"

# 6. Bad input: 400 saying what and where.
bad() {		# PATH WANT-IN-MESSAGE
	local r
	r=$(api GET "/pyroscope/$1")
	[ "$(status_of "$r")" = 400 ] || fail "$1: $(status_of "$r"), not 400"
	body_of "$r" | has -F -- "$2" || fail "$1: $(body_of "$r") says nothing of $2"
}
bad "render?from=now-1h" 'query is required'
bad "render?query=svc-a" 'names no profile type'
bad "render?query=svc-a.nosuch" 'names no profile type'
bad "render?query=$(enc 'a:b:c{}')" 'query'
bad "render?query=$(enc "$CPU{env=~\"(\"}")" 'offset'
bad "render?query=$(enc "$CPU{env=\"x\"")" 'offset'
bad "render?query=svc-a.cpu&from=yesterday" 'from: \"yesterday\" is not a time'
bad "render?query=svc-a.cpu&from=now-1h&until=now-2h" 'from is after until'
bad "render?query=svc-a.cpu&maxNodes=lots" 'maxNodes'
bad "render?query=svc-a.cpu&maxNodes=99999999" 'limit'
bad "render?query=svc-a.cpu&format=dot" 'format'
bad "render?query=svc-a.cpu&aggregation=median" 'aggregation'
bad "render-diff?leftQuery=svc-a.cpu&rightQuery=svc-a.inuse_space" 'profile types must match'
bad "render-diff?leftQuery=svc-a.cpu" 'rightQuery is required'
ok "bad queries, times, maxNodes: 400 saying what and where"
