#!/usr/bin/env bash
# test_fleet_time.sh: the fleet combines a window's profiles as the local
# views do (issue 27 item 6, docs/TIME.md, docs/FLEET.md "Aggregates").
# Two runs of a real Go program (heap-series/: a steady allocation rate,
# a contended mutex) write their heap and mutex profiles every 1.1 s, at
# the same time; they are pushed as two instances (instance=a, b) of one
# service, so that each scope holds two series of cumulative counters
# (alloc_*, contentions, delay) and gauges (inuse_*).
#
# 1. One profd ships them to one ClickHouse: profile_metrics holds each
#    profile's series, kinds and how each metric counts; the values as
#    given of the metrics counted as differences are raw rows.
# 2. Asked of the fleet, every view (top, tree, timeline with and without
#    frame filters, diff; profctl's text and the API's JSON, with
#    metric.aggregate and the profile count) equals the local one for
#    alloc_space, inuse_space and mutex delay, by default (delta for the
#    counters, avg for the gauge) and with aggregate=avg, last, max, sum
#    and delta, over the whole series, a window, a label filter.
# 3. Against go tool pprof: aggregate=sum of alloc_space is pprof's merge
#    of the twelve files, aggregate=last the merge of each run's last.
# 4. A cluster of two ClickHouse shards, each instance pushed to a profd
#    of its own (hosts a, b) shipping to one shard: the fleet's answers,
#    asked through the Distributed tables, equal the first profd's,
#    which holds both instances.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

go_build heap-series "$T/heap-series"
mkdir "$T/a" "$T/b"
"$T/heap-series" -out "$T/a" -n 6 & run_a=$!
"$T/heap-series" -out "$T/b" -n 6 || fail "heap-series b"
wait "$run_a" || fail "heap-series a"

ch_start a
start_profd --fleet-url "$(ch_url a)" --fleet-host h1 --fleet-database ft \
    --fleet-interval 1 --fleet-timeout 30
# push SOCK INSTANCE: its twelve profiles, oldest first.
push_run() {
	local i
	for i in 1 2 3 4 5 6; do
		fleet_push "$1" "$T/$2/heap.$i.pprof" hs "instance=$2"
		fleet_push "$1" "$T/$2/mutex.$i.pprof" mx "instance=$2"
	done
}
push_run "$SOCK" a
push_run "$SOCK" b
wait_until "24 profiles shipped" fleet_shipped "$SOCK" 24

# 1. What ClickHouse holds.
[ "$(ch a "SELECT count() FROM ft.profile_metrics FINAL")" = 24 ] ||
    fail "profile_metrics: $(ch a "SELECT count() FROM ft.profile_metrics FINAL") rows"
[ "$(ch a "SELECT DISTINCT metrics, kinds FROM ft.profile_metrics
    WHERE scope = 'hs'")" = "$(printf "%s\t%s" \
    "['alloc_objects/count','alloc_space/bytes','inuse_objects/count','inuse_space/bytes']" \
    "[1,1,2,2]")" ] ||
    fail "heap kinds: $(ch a "SELECT DISTINCT metrics, kinds FROM ft.profile_metrics WHERE scope = 'hs'")"
[ "$(ch a "SELECT uniqExact(series) FROM ft.profile_metrics WHERE
    scope = 'mx'")" = 2 ] || fail "not two series of mx"
[ "$(ch a "SELECT arrayStringConcat(groupArray(toString(counted[2])), ' ')
    FROM (SELECT counted, time_ns FROM ft.profile_metrics FINAL WHERE
    scope = 'mx' ORDER BY series, time_ns)")" = \
    "0 1 1 1 1 1 0 1 1 1 1 1" ] ||
    fail "delay should count whole, then as differences, per series"
[ "$(ch a "SELECT uniqExact(profile) FROM ft.samples WHERE
    metric = 'delay/nanoseconds\\0raw'")" = 10 ] ||
    fail "raw rows of delay: not those of the 10 differences"
[ "$(ch a "SELECT count() FROM ft.samples WHERE scope = 'hs' AND
    metric LIKE 'inuse%raw'")" = 0 ] || fail "raw rows of a gauge"
ok "ClickHouse holds each profile's series, kinds and counting, and the values as given of the differences"

# fleet_views FLEET-SOCK LOCAL-SOCK: every view of the three metrics under
# every aggregate: the fleet's JSON (asked of FLEET-SOCK) equals the local
# one (of LOCAL-SOCK), and so does profctl's text.  Prints how many.
fleet_views() {
	local f=$1 l=$2 sm scope metric agg q t4 n=0
	t4=$("$PROFCTL" --socket "$l" profiles --scope hs --json |
	    python3 -c '
import json, sys, datetime
p = sorted(json.load(sys.stdin)["profiles"], key=lambda p: p["time_ns"])
print(datetime.datetime.fromtimestamp(p[4]["time_ns"] // 10**9,
    datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))')
	for sm in "hs alloc_space" "hs inuse_space" "mx delay"; do
		scope=${sm% *}
		metric=${sm#* }
		for agg in "" avg last max sum delta; do
			q="scope=$scope&metric=$metric${agg:+&aggregate=$agg}"
			fleet_same top "$q" "$f" "$l"
			fleet_same tree "$q" "$f" "$l"
			fleet_same top "$q&since=$t4" "$f" "$l"
			fleet_same top "$q&label=instance%3Db" "$f" "$l"
			fleet_same timeline "$q&step=2s" "$f" "$l"
			fleet_same timeline "$q&step=3s&focus=main%5C." "$f" "$l"
			fleet_same timeline "$q&since=$t4" "$f" "$l"
			fleet_same diff "$q&since=$t4&base.scope=$scope" "$f" "$l"
			# profctl's text: its "Type:" line says the aggregate
			# and the profiles.
			"$PROFCTL" --socket "$f" top --fleet --scope "$scope" \
			    --metric "$metric" ${agg:+--aggregate "$agg"} \
			    >"$T/f.top" || fail "profctl top --fleet $q"
			"$PROFCTL" --socket "$l" top --scope "$scope" \
			    --metric "$metric" ${agg:+--aggregate "$agg"} \
			    >"$T/l.top" || fail "profctl top $q"
			diff -u "$T/l.top" "$T/f.top" >&2 ||
			    fail "profctl top --fleet of $q differs"
			"$PROFCTL" --socket "$f" timeline --fleet --step 2s \
			    --scope "$scope" --metric "$metric" \
			    ${agg:+--aggregate "$agg"} >"$T/f.tl" ||
			    fail "profctl timeline --fleet $q"
			"$PROFCTL" --socket "$l" timeline --step 2s \
			    --scope "$scope" --metric "$metric" \
			    ${agg:+--aggregate "$agg"} >"$T/l.tl" ||
			    fail "profctl timeline $q"
			diff -u "$T/l.tl" "$T/f.tl" >&2 ||
			    fail "profctl timeline --fleet of $q differs"
			n=$((n + 10))
		done
	done
	echo "$n"
}

# 2. The fleet's views are the local ones.
n=$(fleet_views "$SOCK" "$SOCK")
# What they say: the default by the kind, the profiles counted.
agg_of() {	# agg_of QUERY: "aggregate profiles" of the fleet's top
	curl -s --unix-socket "$SOCK" "http://localhost/v1/top?$1&fleet=1" |
	    json '"%s %s" % (j["metric"]["aggregate"], j["profiles"])'
}
[ "$(agg_of "scope=hs&metric=alloc_space")" = "delta 12" ] &&
    [ "$(agg_of "scope=hs&metric=inuse_space")" = "avg 12" ] &&
    [ "$(agg_of "scope=mx&metric=delay")" = "delta 12" ] &&
    [ "$(agg_of "scope=hs&metric=inuse_space&aggregate=last")" = "last 12" ] &&
    [ "$(agg_of "scope=mx&metric=delay&label=instance%3Da&aggregate=avg")" = "avg 6" ] ||
    fail "aggregates and counts: $(agg_of "scope=hs&metric=inuse_space")"
"$PROFCTL" top --fleet --scope hs --metric inuse_space >"$T/f.top"
has -F "Type: inuse_space (average of 12 profiles)" "$T/f.top" ||
    fail "profctl top --fleet: $(head -5 "$T/f.top")"
ok "every view of the fleet equals the local one ($n views and profctl texts): alloc_space, inuse_space and delay, by default (delta, avg, delta) and under avg, last, max, sum, delta"

# 3. The values as given reach ClickHouse whole: sum is pprof's merge of
#    the files, last the merge of each run's newest.
pprof_is() {	# pprof_is AGGREGATE FILE...
	local agg=$1
	shift
	"$PROFCTL" top --fleet --scope hs --metric alloc_space \
	    --aggregate "$agg" --json >"$T/top.json" ||
	    fail "profctl top --fleet --aggregate $agg"
	TZ=UTC go tool pprof -symbolize=none -top -nodefraction=0 \
	    -nodecount=100000 -sample_index=alloc_space -unit=B "$@" \
	    >"$T/pprof.txt" 2>"$T/pprof.err" ||
	    fail "pprof $*: $(cat "$T/pprof.err")"
	python3 "$TESTS_DIR/tools/pprof_top.py" "$T/pprof.txt" \
	    "$T/top.json" B || fail "alloc_space $agg differs from pprof $*"
}
pprof_is sum "$T"/[ab]/heap.*.pprof
pprof_is last "$T/a/heap.6.pprof" "$T/b/heap.6.pprof"
ok "aggregate=sum of alloc_space is pprof's merge of the twelve files, last the merge of the two newest"

# 4. A cluster: instance a on host a (shard s1), b on host b (shard s2).
ch_cluster_config fleet2 s1 s2
ch_start s1
ch_start s2
trap 'kill "$(cat "$T/ca.pid")" "$(cat "$T/cb.pid")" 2>/dev/null; ch_cleanup' EXIT
fleet_profd ca --fleet-url "$(ch_url s1)" --fleet-host a --fleet-database \
    fc --fleet-cluster fleet2 --fleet-interval 1 --fleet-timeout 30
fleet_profd cb --fleet-url "$(ch_url s2)" --fleet-host b --fleet-database \
    fc --fleet-cluster fleet2 --fleet-interval 1 --fleet-timeout 30
push_run "$T/ca.sock" a
push_run "$T/cb.sock" b
wait_until "a's profiles shipped" fleet_shipped "$T/ca.sock" 12
wait_until "b's profiles shipped" fleet_shipped "$T/cb.sock" 12
[ "$(ch s1 "SELECT uniqExact(host) FROM fc.profile_metrics")" = 1 ] &&
    [ "$(ch s1 "SELECT uniqExact(host) FROM fc.profile_metrics_all")" = 2 ] ||
    fail "each shard should hold its host's profile_metrics, the Distributed table both"
n=$(fleet_views "$T/ca.sock" "$SOCK")
ok "across a cluster of two shards, one instance each: the fleet's $n views equal the local ones of the profd holding both"
