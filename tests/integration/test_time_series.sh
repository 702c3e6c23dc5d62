#!/usr/bin/env bash
# test_time_series.sh: cumulative profiles counted as differences (issue
# 27, docs/TIME.md).  A real Go program (heap-series/) allocating at a
# steady rate and contending on a mutex writes its own heap and mutex
# profiles every 1.1 s, as a cron job would; they are pushed to profd,
# which runs detached as the README starts it.  A window then counts what
# happened in it: over the whole series, the last profile's counters
# (the first counts whole: the process counted from zero); from the
# second on, exactly what `go tool pprof -base FIRST LAST` says; a single
# profile answers as the file does.  A second run of the program (a
# restart) counts whole, a profile pushed late counts nothing, the
# series outlives a restart of profd, and the spool counts as a push.
. "$(dirname "$0")/lib.sh"

go_build heap-series "$T/heap-series"
mkdir "$T/run1" "$T/run2" "$T/spool"
"$T/heap-series" -out "$T/run1" -n 6 || fail "heap-series run 1"
"$T/heap-series" -out "$T/run2" -n 2 || fail "heap-series run 2"
R1=$T/run1 R2=$T/run2

start_profd_detached --spool "$T/spool"

push() { # FILE SCOPE [LABEL]
	local out
	out=$("$PROFCTL" push "$1" --scope "$2" ${3:+--label "$3"}) ||
	    fail "push $1: $out"
	case "$out" in *"stored as profile"*) ;; *) fail "push $1: $out" ;; esac
}
sql() {
	local r
	r=$(api POST /v1/query --data-binary "$1")
	[ "$(status_of "$r")" = 200 ] || fail "query $1: $r"
	body_of "$r" | json '" ".join("/".join(str(c) for c in x) for x in j["rows"])'
}
# pprof_vs SCOPE METRIC UNIT "PROFCTL SELECTION FLAGS" PPROF ARGS...: the
# top of the selection against go tool pprof -top of the files, exactly.
pprof_vs() {
	local scope=$1 metric=$2 unit=$3 flags=$4
	shift 4
	# shellcheck disable=SC2086
	"$PROFCTL" top --scope "$scope" --metric "$metric" $flags --json \
	    >"$T/top.json" || fail "profctl top $scope $metric $flags"
	TZ=UTC go tool pprof -symbolize=none -top -nodefraction=0 \
	    -nodecount=100000 -sample_index="$metric" -unit="$unit" "$@" \
	    >"$T/pprof.txt" 2>"$T/pprof.err" || fail "pprof $*: $(cat "$T/pprof.err")"
	python3 "$TESTS_DIR/tools/pprof_top.py" "$T/pprof.txt" "$T/top.json" \
	    "$unit" || fail "$scope $metric $flags differs from pprof $*"
}

for i in 1 2 3 4 5 6; do
	push "$R1/heap.$i.pprof" hs instance=a
	push "$R1/mutex.$i.pprof" mx instance=a
done
[ "$(sql "SELECT m.counted FROM profile_metrics m JOIN profiles p USING (profile_id) WHERE p.scope = 'hs' AND m.metric = 'alloc_space' ORDER BY p.time_ns")" = \
    "whole difference difference difference difference difference" ] ||
    fail "alloc_space of the series should count whole, then differences"
[ "$(sql "SELECT DISTINCT m.counted FROM profile_metrics m JOIN profiles p USING (profile_id) WHERE p.scope = 'hs' AND m.metric LIKE 'inuse%'")" = \
    "whole" ] || fail "inuse_* (gauges) count whole"
[ "$(sql "SELECT m.counted FROM profile_metrics m JOIN profiles p USING (profile_id) WHERE p.scope = 'mx' AND m.metric = 'delay' ORDER BY p.time_ns")" = \
    "whole difference difference difference difference difference" ] ||
    fail "mutex delay of the series should count whole, then differences"
ok "the series' cumulative metrics count whole, then as differences"

# The whole series: the last file's counters, stack by stack.
for m in alloc_space:B alloc_objects: ; do
	pprof_vs hs "${m%%:*}" "${m#*:}" "" "$R1/heap.6.pprof"
done
pprof_vs mx delay ns "" "$R1/mutex.6.pprof"
pprof_vs mx contentions "" "" "$R1/mutex.6.pprof"
ok "a window over the whole series equals its last profile (pprof -top)"

# From the second profile on: what grew since the first, as pprof -base.
t2() { # the time of the second profile of SCOPE, RFC 3339
	"$PROFCTL" profiles --scope "$1" --json | python3 -c '
import json, sys, datetime
p = sorted(json.load(sys.stdin)["profiles"], key=lambda p: p["time_ns"])
t = p[1]["time_ns"] // 10**9
print(datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))'
}
since=$(t2 hs)
pprof_vs hs alloc_space B "--since $since" -base "$R1/heap.1.pprof" "$R1/heap.6.pprof"
pprof_vs hs alloc_objects "" "--since $since" -base "$R1/heap.1.pprof" "$R1/heap.6.pprof"
since=$(t2 mx)
pprof_vs mx delay ns "--since $since" -base "$R1/mutex.1.pprof" "$R1/mutex.6.pprof"
ok "a window from the second profile equals pprof -base first last"

# The timeline adds the same differences: its steps sum to the window.
r=$(api GET "/v1/timeline?scope=hs&metric=alloc_space&step=1s")
[ "$(status_of "$r")" = 200 ] || fail "timeline: $r"
tl=$(body_of "$r" | json 'sum(p["value"] for p in j["points"])')
tot=$("$PROFCTL" top --scope hs --metric alloc_space --json | json 'j["total"]')
[ "$tl" = "$tot" ] || fail "timeline sums to $tl, the window to $tot"
ok "the timeline's steps add up to the window ($tot bytes)"

# A single profile answers as its file.
id4=$("$PROFCTL" profiles --scope hs --json |
    json 'sorted(j["profiles"], key=lambda p: p["time_ns"])[3]["id"]')
pprof_vs hs alloc_space B "--profile $id4" "$R1/heap.4.pprof"
curl -sf --unix-socket "$SOCK" "http://localhost/v1/export?scope=hs&profile=$id4&metric=alloc_space" \
    -o "$T/p4.pb.gz" || fail "export profile $id4"
TZ=UTC go tool pprof -symbolize=none -top -nodefraction=0 -nodecount=100000 \
    -sample_index=alloc_space -unit=B "$T/p4.pb.gz" 2>/dev/null |
    sed -n '/^ *flat/,$p' >"$T/a.txt"
TZ=UTC go tool pprof -symbolize=none -top -nodefraction=0 -nodecount=100000 \
    -sample_index=alloc_space -unit=B "$R1/heap.4.pprof" 2>/dev/null |
    sed -n '/^ *flat/,$p' >"$T/b.txt"
diff -u "$T/b.txt" "$T/a.txt" || fail "export of profile $id4 differs from its file"
ok "profile $id4 alone (top, export) answers its file's values"

# A restart: the second run's counters start again from zero.  Its
# first profile counts whole, its second the difference to it.
push "$R2/heap.1.pprof" hs instance=a
push "$R2/heap.2.pprof" hs instance=a
[ "$(sql "SELECT m.counted FROM profile_metrics m JOIN profiles p USING (profile_id) WHERE p.scope = 'hs' AND m.metric = 'alloc_space' ORDER BY p.time_ns DESC LIMIT 2")" = \
    "difference whole" ] || fail "after a restart: whole, then difference"
since=$("$PROFCTL" profiles --scope hs --json | python3 -c '
import json, sys, datetime
p = sorted(json.load(sys.stdin)["profiles"], key=lambda p: p["time_ns"])
print(datetime.datetime.fromtimestamp(p[-2]["time_ns"] // 10**9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))')
pprof_vs hs alloc_space B "--since $since" "$R2/heap.2.pprof"
ok "after a restart the series counts the new process from zero"

# Another instance is another series; a profile pushed late (older than
# its series' newest) counts nothing: its successor covers its interval.
push "$R1/heap.1.pprof" late instance=b
push "$R1/heap.3.pprof" late instance=b
push "$R1/heap.2.pprof" late instance=b
[ "$(sql "SELECT m.counted FROM profile_metrics m JOIN profiles p USING (profile_id) WHERE p.scope = 'late' AND m.metric = 'alloc_space' ORDER BY p.time_ns")" = \
    "whole none difference" ] || fail "out of order: whole, none, difference"
pprof_vs late alloc_space B "" "$R1/heap.3.pprof"
ok "a late profile counts nothing, the window stays right"

# Gauges: per series the average of its profiles, summed across series
# (instance a: run 1's six, b: run 2's two); last, max and sum as asked.
for i in 1 2 3 4 5 6; do push "$R1/heap.$i.pprof" g instance=a; done
for i in 1 2; do push "$R2/heap.$i.pprof" g instance=b; done
ptotal() { # FILE...: pprof's inuse_space total of the files merged
	TZ=UTC go tool pprof -symbolize=none -top -nodecount=1 \
	    -sample_index=inuse_space -unit=B "$@" 2>/dev/null |
	    sed -n 's/.* of \([0-9]*\)B total.*/\1/p'
}
ta=() tb=()
for i in 1 2 3 4 5 6; do ta+=("$(ptotal "$R1/heap.$i.pprof")"); done
for i in 1 2; do tb+=("$(ptotal "$R2/heap.$i.pprof")"); done
"$PROFCTL" top --scope g --metric inuse_space --json >"$T/avg.json" ||
    fail "top of the gauge"
python3 - "$T/avg.json" "${ta[*]}" "${tb[*]}" <<'PY' || fail "the gauge's average"
import json, sys
j = json.load(open(sys.argv[1]))
a = [int(x) for x in sys.argv[2].split()]
b = [int(x) for x in sys.argv[3].split()]
want = sum(a) / len(a) + sum(b) / len(b)
got = j["total"]
# Each stack's average is rounded: at most half a byte per row off.
slack = len(j["rows"]) + 2
if j["metric"].get("aggregate") != "avg" or j["profiles"] != 8:
    sys.exit("aggregate %r of %r profiles" % (j["metric"].get("aggregate"), j["profiles"]))
if abs(got - want) > slack:
    sys.exit("total %d, the series' averages add up to %.1f" % (got, want))
print("ok: inuse_space of 2 series = %d (%.1f + %.1f)" % (got, sum(a) / len(a), sum(b) / len(b)))
PY
"$PROFCTL" top --scope g --metric inuse_space | has -x "Type: inuse_space (average of 8 profiles)" ||
    fail "the header should say the average"
pprof_vs g inuse_space B "--aggregate last" "$R1/heap.6.pprof" "$R2/heap.2.pprof"
pprof_vs g inuse_space B "--aggregate sum" "$R1"/heap.[1-6].pprof "$R2"/heap.[12].pprof
max_of() { # the file of the largest total
	local best= bt=-1 f t
	for f in "$@"; do
		t=$(ptotal "$f")
		if [ "$t" -gt "$bt" ]; then best=$f bt=$t; fi
	done
	echo "$best"
}
pprof_vs g inuse_space B "--aggregate max" "$(max_of "$R1"/heap.[1-6].pprof)" \
    "$(max_of "$R2"/heap.[12].pprof)"
# The timeline: per step, each series' average of its profiles there.
r=$(api GET "/v1/timeline?scope=g&metric=inuse_space&step=3s")
[ "$(status_of "$r")" = 200 ] || fail "gauge timeline: $r"
body_of "$r" >"$T/tl.json"
"$PROFCTL" profiles --scope g --json >"$T/gp.json"
# The same from the blocks (a frame filter that keeps every stack makes
# the timeline walk them) as from the per-profile totals, but for the
# rounding: per stack there, per step here (half a byte a stack).
r=$(api GET "/v1/timeline?scope=g&metric=inuse_space&step=3s&focus=.")
body_of "$r" >"$T/tlf.json"
python3 - "$T/tlf.json" "$T/tl.json" <<'PY' ||
import json, sys
a, b = (json.load(open(f))["points"] for f in sys.argv[1:])
sys.exit(not (len(a) == len(b) and all(x["time_ns"] == y["time_ns"] and
    abs(x["value"] - y["value"]) <= 500 for x, y in zip(a, b))))
PY
	fail "the gauge's timeline from the blocks differs from the totals'"
python3 - "$T/tl.json" "$T/gp.json" "${ta[*]} ${tb[*]}" <<'PY' || fail "the gauge's timeline"
import json, sys
tl, gp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
tot = [int(x) for x in sys.argv[3].split()]
t = sorted(p["time_ns"] // 10**9 for p in gp["profiles"])
step = tl["step_s"]
steps = {}
for i, (sec, v) in enumerate(zip(t, tot)):
    steps.setdefault(sec // step * step, {}).setdefault(i < 6, []).append(v)
want = {k: sum(sum(l) / len(l) for l in d.values()) for k, d in steps.items()}
got = {p["time_ns"] // 10**9: p["value"] for p in tl["points"] if p["value"]}
if tl["metric"].get("aggregate") != "avg" or step != 3:
    sys.exit("aggregate %r, step %r" % (tl["metric"].get("aggregate"), step))
if sorted(got) != sorted(want) or any(abs(got[k] - want[k]) > 2000 for k in want):
    sys.exit("points %r, want %r" % (got, want))
PY
ok "a gauge: average per series summed; last, max and sum as asked; its timeline step"

# A gauge over whole hours: the average of a series' snapshots comes from
# the window's sums (the hour's rollup run, the blocks of the edges) and
# their count, not from every snapshot's blocks (docs/TIME.md, "How a
# gauge window is read").  The six real snapshots replayed 15 s apart,
# as a scraper takes them: four before 11:00, the hour 11:00 whole (its
# first and last minutes: 240 would cost the test a minute; the rollup
# is the same), two after 12:00.  profctl's average against the
# snapshots' pprof -top averaged here, function by function.
python3 - "$R1" "$T/gw" <<'PY' || fail "retiming the snapshots"
import os, sys, gzip
sys.path.insert(0, os.environ["TESTS_DIR"] + "/tools")
from retime_pprof import without_field
from pbwire import fv
src, out = sys.argv[1], sys.argv[2]
os.mkdir(out)
h11 = 1704106800                          # 2024-01-01T11:00:00Z
times = [h11 - 60 + 15 * i for i in range(4)]      # 10:59:00 .. 10:59:45
times += [h11 + 15 * i for i in range(6)]          # 11:00:00 .. 11:01:15
times += [h11 + 3540 + 15 * i for i in range(4)]   # 11:59:00 .. 11:59:45
times += [h11 + 3600 + 15 * i for i in range(2)]   # 12:00:00, 12:00:15
for i, t in enumerate(times):
    raw = open("%s/heap.%d.pprof" % (src, i % 6 + 1), "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    with open("%s/%02d.pb" % (out, i), "wb") as f:
        f.write(without_field(raw, 9) + fv(9, t * 10**9))
PY
out=$("$PROFCTL" push --scope gw --label instance=a "$T"/gw/*.pb) ||
    fail "pushing the retimed snapshots: $out"
[ "$(grep -c 'stored as profile' <<<"$out")" = 16 ] ||
    fail "16 snapshots should be stored: $out"
# Snapshot i is a copy of heap.(i mod 6 + 1): pprof -top of those six.
for i in 1 2 3 4 5 6; do
	TZ=UTC go tool pprof -symbolize=none -top -nodefraction=0 \
	    -nodecount=100000 -sample_index=inuse_space -unit=B \
	    "$R1/heap.$i.pprof" >"$T/gw/$i.top" 2>/dev/null || fail "pprof of heap.$i"
done
gw_vs() { # SINCE UNTIL FIRST LAST: top's average over the window against
	# snapshots FIRST..LAST's pprof -top averaged
	"$PROFCTL" top --scope gw --metric inuse_space --since "$1" \
	    --until "$2" --json >"$T/gw.json" || fail "top of gw $1 $2"
	python3 - "$T/gw.json" "$3" "$4" $(for i in $(seq 0 15); do
	    echo "$T/gw/$((i % 6 + 1)).top"; done) <<'PY' ||
import json, os, sys
sys.path.insert(0, os.environ["TESTS_DIR"] + "/tools")
from pprof_top import parse
j = json.load(open(sys.argv[1]))
first, last = int(sys.argv[2]), int(sys.argv[3])
tops = sys.argv[4:][first:last + 1]
n = len(tops)
flat, total = {}, 0
for path in tops:
    t, rows = parse(path, "B")
    total += t
    for name, f, _, _ in rows:
        flat[name] = flat.get(name, 0) + f
got = {r["function"]: r["flat"] for r in j["rows"] if r["flat"]}
want = {f: v / n for f, v in flat.items() if v}
if j["metric"].get("aggregate") != "avg" or j["profiles"] != n:
    sys.exit("aggregate %r of %r profiles, want avg of %d" %
             (j["metric"].get("aggregate"), j["profiles"], n))
# Each stack's average is rounded (half a byte a stack): a function's
# flat and the total are off by at most half a byte a row.
if sorted(got) != sorted(want):
    sys.exit("functions differ: %r" % sorted(set(got) ^ set(want)))
slack = len(j["rows"]) / 2 + 1
bad = [(f, got[f], want[f]) for f in want if abs(got[f] - want[f]) > slack]
if bad or abs(j["total"] - total / n) > len(j["rows"]) + 2:
    sys.exit("average %d, want %.1f; functions off: %r" % (j["total"], total / n, bad[:5]))
print("ok: average of %d snapshots, %d functions, total %d" % (n, len(got), j["total"]))
PY
		fail "gw's average $1 .. $2 differs from the snapshots' $3..$4"
}
gw_vs 2024-01-01T10:59:00Z 2024-01-01T12:00:15Z 0 15
gw_vs 2024-01-01T11:00:00Z 2024-01-01T11:59:59Z 4 13
gw_vs 2024-01-01T10:59:30Z 2024-01-01T12:00:00Z 2 14
# Edges off the hour with no snapshot between them and the day's ends:
# read as the day's runs (store_gauge_widen); one edge alone; and a
# window read again, its runs' and edges' sums kept from the first read.
gw_vs 2024-01-01T10:12:34Z 2024-01-01T12:34:56Z 0 15
gw_vs 2024-01-01T11:00:30Z 2024-01-01T13:07:00Z 6 15
gw_vs 2024-01-01T11:00:30Z 2024-01-01T13:07:00Z 6 15
gw_vs 2024-01-01T10:59:10Z 2024-01-01T11:59:50Z 1 13
gw_vs 2024-01-01T10:59:10Z 2024-01-01T11:59:50Z 1 13
"$PROFCTL" top --scope gw --metric inuse_space | has -x "Type: inuse_space (average of 16 profiles)" ||
    fail "the header should say the average of 16"
pprof_vs gw inuse_space B "--aggregate last" "$T/gw/15.pb"
pprof_vs gw inuse_space B "--aggregate last --until 2024-01-01T11:59:59Z" "$T/gw/13.pb"
# The hour holds a copy of each of the six: their largest.
pprof_vs gw inuse_space B "--aggregate max --since 2024-01-01T11:00:00Z --until 2024-01-01T11:59:59Z" \
    "$(max_of "$R1"/heap.[1-6].pprof)"
ok "a gauge over whole hours: the average of the snapshots (pprof -top averaged), last and max"

# An old Pyroscope client's cumulative heap, each /ingest with the
# previous one as prev_profile: the series' previous profile, which profd
# keeps itself, gives the same differences (docs/INTAKE.md).
cfg='{"alloc_objects":{"units":"objects","cumulative":true},"alloc_space":{"units":"bytes","cumulative":true},"inuse_space":{"units":"bytes","aggregation":"average"},"inuse_objects":{"units":"objects","aggregation":"average"}}'
for i in 1 2 3 4; do
	prev=$R1/heap.$((i > 1 ? i - 1 : 1)).pprof
	ct=$(python3 "$TESTS_DIR/tools/pyroscope_body.py" multipart "$T/ing.body" \
	    "$R1/heap.$i.pprof" "$prev" --config "$cfg")
	r=$(api POST "/ingest?name=oldgo.alloc_space%7Bpod%3Dp1%7D&from=1700000000&until=1700000010&spyName=gospy&units=bytes&aggregationType=sum" \
	    -H "Content-Type: $ct" --data-binary @"$T/ing.body")
	[ "$(status_of "$r")" = 200 ] || fail "/ingest heap.$i: $r"
done
[ "$(sql "SELECT m.kind || ':' || m.counted FROM profile_metrics m JOIN profiles p USING (profile_id) WHERE p.scope = 'oldgo' AND m.metric = 'alloc_space' ORDER BY p.time_ns")" = \
    "cumulative:whole cumulative:difference cumulative:difference cumulative:difference" ] ||
    fail "/ingest with prev_profile: cumulative, whole then differences"
since=$(t2 oldgo)
pprof_vs oldgo alloc_space B "--since $since" -base "$R1/heap.1.pprof" "$R1/heap.4.pprof"
ok "/ingest with prev_profile: differences, pprof -base first last"

# The series outlives profd: stopped (SIGTERM) and started again, the next
# profile's predecessor is found in the store.  The spool counts as a push.
stop_profd
start_profd_detached --spool "$T/spool"
mkdir -p "$T/spool/sp"
for i in 1 2 3; do
	cp "$R1/heap.$i.pprof" "$T/spool/sp/.h$i.tmp"
	mv "$T/spool/sp/.h$i.tmp" "$T/spool/sp/h$i.pprof"
	wait_until "spooled heap.$i" sh -c "[ \$(curl -s --unix-socket '$SOCK' \
	    'http://localhost/v1/profiles?scope=sp' | python3 -c \
	    'import json,sys; print(len(json.load(sys.stdin)[\"profiles\"]))' \
	    2>/dev/null || echo 0) -ge $i ]"
done
[ "$(sql "SELECT m.counted FROM profile_metrics m JOIN profiles p USING (profile_id) WHERE p.scope = 'sp' AND m.metric = 'alloc_space' ORDER BY p.time_ns")" = \
    "whole difference difference" ] || fail "spooled series"
pprof_vs sp alloc_space B "" "$R1/heap.3.pprof"
push "$R1/heap.4.pprof" hs2 instance=c
stop_profd
start_profd_detached --spool "$T/spool"
push "$R1/heap.5.pprof" hs2 instance=c
[ "$(sql "SELECT m.counted FROM profile_metrics m JOIN profiles p USING (profile_id) WHERE p.scope = 'hs2' AND m.metric = 'alloc_space' ORDER BY p.time_ns")" = \
    "whole difference" ] || fail "the series across a restart of profd"
since=$(t2 hs2)
pprof_vs hs2 alloc_space B "--since $since" -base "$R1/heap.4.pprof" "$R1/heap.5.pprof"
ok "spooled profiles form a series; a series goes on across profd's restart"

# Deleting the newest profile takes out what it counted.
before=$("$PROFCTL" top --scope mx --metric delay --json | json 'j["total"]')
id6=$("$PROFCTL" profiles --scope mx --json |
    json 'sorted(j["profiles"], key=lambda p: p["time_ns"])[-1]["id"]')
"$PROFCTL" delete --scope mx --id "$id6" >/dev/null || fail "delete $id6"
pprof_vs mx delay ns "" "$R1/mutex.5.pprof"
ok "deleting the newest profile of a series takes out its difference ($before before)"
stop_profd
