#!/usr/bin/env bash
# test_querier_fleet.sh: Grafana's calls (querier.v1 over Connect, by the
# npm Connect client as in test_querier.sh) answered from the fleet with
# grafana-source = fleet: a profd ships its profiles to a ClickHouse of
# the test's own, then its querier's answers are the fleet's and equal
# profctl's --fleet views of the same selection: the profile types, the
# services, the flame graph function by function, the time series (and
# grouped by service_name, a timeline a service; by another label,
# unimplemented);
# SelectMergeProfile, which reads this host's store only, answers
# Connect's unimplemented.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

need_connect_node
protoc -I "$TESTS_DIR/tools/proto" --include_imports \
    --descriptor_set_out="$T/querier.desc" querier/v1/querier.proto ||
	fail "protoc: the test's .proto files"

ch_start a
start_profd --fleet-url "$(ch_url a)" --fleet-host a --fleet-database qf \
    --fleet-interval 1 --fleet-timeout 10 --grafana-source fleet

t0=$(( $(date +%s) / 60 * 60 - 1800 ))
n=0
for i in 0 1 2; do
	for p in cpu:svc-a:env=prod heap:svc-b:env=stg; do
		IFS=: read -r f scope label <<<"$p"
		python3 "$TESTS_DIR/tools/retime_pprof.py" "$FIXTURES/$f.pprof" \
		    "$T/$f.$i.pb" "$(( (t0 + i * 60) * 1000000000 ))" ||
			fail "retime $f"
		fleet_push "$SOCK" "$T/$f.$i.pb" "$scope" "$label"
		n=$((n + 1))
	done
done
wait_until "the profiles shipped" fleet_shipped "$SOCK" "$n"
ok "$n profiles shipped to ClickHouse"

start=$(( (t0 - 60) * 1000 )) end=$(( (t0 + 600) * 1000 ))
since=$(date -u -d "@$(( t0 - 60 ))" +%Y-%m-%dT%H:%M:%SZ)
until=$(date -u -d "@$(( t0 + 600 ))" +%Y-%m-%dT%H:%M:%SZ)
win="\"start\":\"$start\",\"end\":\"$end\""
CPU=process_cpu:cpu:nanoseconds:cpu:nanoseconds
A='{service_name=\"svc-a\"}'
sel="\"profileTypeID\":\"$CPU\",\"labelSelector\":\"$A\",$win"
cat >"$T/calls" <<EOF
{"name":"pt","method":"ProfileTypes","request":{$win}}
{"name":"lv_svc","method":"LabelValues","request":{"name":"service_name",$win}}
{"name":"ln","method":"LabelNames","request":{"matchers":["$A"],$win}}
{"name":"flame","method":"SelectMergeStacktraces","request":{$sel,"maxNodes":"1000000000"}}
{"name":"flame_prod","method":"SelectMergeStacktraces","request":{"profileTypeID":"$CPU","labelSelector":"{service_name=\"svc-a\", env=~\"pro.\"}",$win}}
{"name":"flame_dev","method":"SelectMergeStacktraces","request":{"profileTypeID":"$CPU","labelSelector":"{service_name=\"svc-a\", env=\"dev\"}",$win}}
{"name":"series","method":"SelectSeries","request":{$sel,"step":60}}
{"name":"series_svc","method":"SelectSeries","request":{"profileTypeID":"$CPU","labelSelector":"{}",$win,"step":60,"groupBy":["service_name"]}}
{"name":"series_env","method":"SelectSeries","request":{$sel,"step":60,"groupBy":["env"]}}
{"name":"profile","method":"SelectMergeProfile","request":{$sel}}
EOF
for f in binary json; do
	node "$TESTS_DIR/tools/querier_connect.js" --modules "$CONNECT_NODE_DIR" \
	    --desc "$T/querier.desc" --socket "$SOCK" --format "$f" \
	    <"$T/calls" >"$T/$f.jsonl" 2>"$T/node.err" ||
		fail "querier_connect.js ($f): $(tail -n 5 "$T/node.err")"
done
R=$T/binary.jsonl
check() { python3 "$TESTS_DIR/tools/querier_check.py" "$@"; }
get() { check get "$R" "$1" "$2"; }
check same "$R" "$T/json.jsonl" || fail "the encodings differ"
ok "every call answered alike in protobuf and JSON"

got=$(get pt '[t["ID"] for t in r["profileTypes"]]')
[ "$got" = '["memory:alloc_objects:count:space:bytes", "memory:alloc_space:bytes:space:bytes", "memory:inuse_objects:count:space:bytes", "memory:inuse_space:bytes:space:bytes", "process_cpu:cpu:nanoseconds:cpu:nanoseconds", "process_cpu:samples:count:cpu:nanoseconds"]' ] ||
	fail "ProfileTypes: $got"
[ "$(get lv_svc 'r["names"]')" = '["svc-a", "svc-b"]' ] ||
	fail "LabelValues service_name: $(get lv_svc r)"
[ "$(get ln 'r["names"]')" = '["__name__", "__profile_type__", "service_name"]' ] ||
	fail "LabelNames from the fleet: $(get ln r)"
ok "ProfileTypes, LabelValues, LabelNames from the fleet's scopes"

"$PROFCTL" top --fleet --scope svc-a --metric cpu --since "$since" \
    --until "$until" --limit 100000 --json >"$T/top.json" ||
	fail "profctl top --fleet"
out=$(check flame "$R" flame "$T/top.json") ||
	fail "the flame graph differs from profctl top --fleet"
ok "SelectMergeStacktraces from the fleet: $out, as profctl top --fleet"
[ "$(get flame_prod 'int(r["flamegraph"]["total"])')" = "$(json 'j["total"]' <"$T/top.json")" ] ||
	fail "env=~pro. from the fleet: $(get flame_prod 'r["flamegraph"]["total"]')"
[ "$(get flame_dev 'int(r["flamegraph"].get("total", 0))')" = 0 ] ||
	fail "env=dev from the fleet: $(get flame_dev 'r["flamegraph"]["total"]')"
ok "label matchers filter the fleet's flame graph"
"$PROFCTL" timeline --fleet --scope svc-a --metric cpu --since "$since" \
    --until "$until" --step 60s --json >"$T/tl.json" ||
	fail "profctl timeline --fleet"
out=$(check series "$R" series "$T/tl.json") ||
	fail "the series differs from profctl timeline --fleet"
ok "SelectSeries from the fleet: $out, as profctl timeline --fleet"
# svc-a alone has CPU profiles: one series, the timeline's total.
got=$(get series_svc '[(s["labels"][0]["value"], int(sum(p.get("value", 0) for p in s["points"]))) for s in r["series"]]')
[ "$got" = "[[\"svc-a\", $(json 'j["total"]' <"$T/tl.json")]]" ] ||
	fail "SelectSeries by service_name from the fleet: $got"
[ "$(get series_env 'e["code"]')" = unimplemented ] ||
	fail "SelectSeries by env from the fleet: $(get series_env e)"
ok "SelectSeries by service_name from the fleet: $got; by env: unimplemented"
[ "$(get profile 'e["code"]')" = unimplemented ] ||
	fail "SelectMergeProfile from the fleet: $(get profile e)"
ok "SelectMergeProfile from the fleet: unimplemented"
