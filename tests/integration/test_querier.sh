#!/usr/bin/env bash
# test_querier.sh: Grafana's Pyroscope data source's calls
# (querier.v1.QuerierService over Connect, docs/GRAFANA.md) made by a real
# Connect client from npm (tests/tools/querier_connect.js: @connectrpc/
# connect-node and @bufbuild/protobuf v2 over .proto files of our own,
# compiled by protoc) against a profd started detached, in both
# encodings (protobuf and JSON), which must answer alike.  Real profiles
# are pushed first (cpu and heap, several times a minute apart, labelled,
# in two scopes); then the answers are checked against profctl on the
# same selection: the profile types, label names and values, series; the
# flame graph's total and every function's self and total against
# profctl top's flat and cum; the time series against profctl timeline;
# the merged profile through go tool pprof against profctl top; pruning
# to max_nodes; errors as Connect's.
. "$(dirname "$0")/lib.sh"

need_connect_node
command -v go >/dev/null || { echo "SKIP: go (golang-go) is missing"; exit 77; }
protoc -I "$TESTS_DIR/tools/proto" --include_imports \
    --descriptor_set_out="$T/querier.desc" querier/v1/querier.proto ||
	fail "protoc: the test's .proto files"

. "$(dirname "$0")/tls-lib.sh"
# Grafana's way in: https on the TCP listener with a reader's token (the
# writers' token would be refused: test_tls.sh).
tls_ca ca
tls_cert server ca
READ_TOKEN=reader-0123456789abcdef
start_profd_detached --listen-tcp 127.0.0.1:0 \
    --tls-cert "$TLS/server.pem" --tls-key "$TLS/server.key" \
    --tcp-read-token "$READ_TOKEN" \
    --tcp-auth-token writer-0123456789abcdef
PORT=$(tcp_port)

# Four minutes of pushes, half an hour ago: svc-a's CPU (env=prod),
# svc-b's heap (env=stg) and one CPU profile of svc-b (env=dev).
t0=$(( $(date +%s) / 60 * 60 - 1800 ))
push() { # FILE SCOPE LABEL TIME_S
	python3 "$TESTS_DIR/tools/retime_pprof.py" "$FIXTURES/$1" "$T/p.pb" \
	    "$(( $4 * 1000000000 ))" || fail "retime $1"
	out=$("$PROFCTL" push "$T/p.pb" --scope "$2" --label "$3") ||
	    fail "push $1: $out"
}
for i in 0 1 2 3; do
	push cpu.pprof svc-a env=prod $(( t0 + i * 60 ))
	push heap.pprof svc-b env=stg $(( t0 + i * 60 ))
done
push cpu.pprof svc-b env=dev $(( t0 + 30 ))
ok "pushed 9 profiles"

start=$(( (t0 - 60) * 1000 )) end=$(( (t0 + 600) * 1000 ))
since=$(date -u -d "@$(( t0 - 60 ))" +%Y-%m-%dT%H:%M:%SZ)
until=$(date -u -d "@$(( t0 + 600 ))" +%Y-%m-%dT%H:%M:%SZ)
win="\"start\":\"$start\",\"end\":\"$end\""
CPU=process_cpu:cpu:nanoseconds:cpu:nanoseconds
INUSE=memory:inuse_space:bytes:space:bytes
sel() { printf '"profileTypeID":"%s","labelSelector":"%s",%s' "$1" "$2" "$win"; }
A='{service_name=\"svc-a\"}'
B='{service_name=\"svc-b\"}'
AB='{service_name=~\"svc-.*\"}'
cat >"$T/calls" <<EOF
{"name":"pt","method":"ProfileTypes","request":{$win}}
{"name":"pt_before","method":"ProfileTypes","request":{"start":"$(( (t0 - 7200) * 1000 ))","end":"$(( (t0 - 3600) * 1000 ))"}}
{"name":"ln_all","method":"LabelNames","request":{"matchers":["{}"],$win}}
{"name":"ln_a","method":"LabelNames","request":{"matchers":["$A"],$win}}
{"name":"lv_env","method":"LabelValues","request":{"name":"env",$win}}
{"name":"lv_env_b","method":"LabelValues","request":{"name":"env","matchers":["$B"],$win}}
{"name":"lv_svc","method":"LabelValues","request":{"name":"service_name",$win}}
{"name":"lv_svc_prod","method":"LabelValues","request":{"name":"service_name","matchers":["{env=\"prod\"}"],$win}}
{"name":"lv_svc_re","method":"LabelValues","request":{"name":"service_name","matchers":["{env=~\"d.*\"}"],$win}}
{"name":"lv_pt_b","method":"LabelValues","request":{"name":"__profile_type__","matchers":["$B"],$win}}
{"name":"series_b","method":"Series","request":{"matchers":["$B"],"labelNames":["service_name","env","__profile_type__"],$win}}
{"name":"flame_a","method":"SelectMergeStacktraces","request":{$(sel $CPU "$A"),"maxNodes":"1000000000"}}
{"name":"flame_ab","method":"SelectMergeStacktraces","request":{$(sel $CPU "$AB"),"maxNodes":"1000000000"}}
{"name":"flame_dev","method":"SelectMergeStacktraces","request":{$(sel $CPU '{service_name=~\"svc-.*\", env=\"dev\"}'),"maxNodes":"1000000000"}}
{"name":"flame_re","method":"SelectMergeStacktraces","request":{$(sel $CPU '{service_name=~\"svc-.*\", env=~\"de.|stg\"}'),"maxNodes":"1000000000"}}
{"name":"flame_heap","method":"SelectMergeStacktraces","request":{$(sel $INUSE "$B"),"maxNodes":"1000000000"}}
{"name":"flame_pruned","method":"SelectMergeStacktraces","request":{$(sel $CPU "$A"),"maxNodes":"8"}}
{"name":"flame_none","method":"SelectMergeStacktraces","request":{$(sel $CPU '{service_name=\"nope\"}')}}
{"name":"series_a","method":"SelectSeries","request":{$(sel $CPU "$A"),"step":60}}
{"name":"series_heap","method":"SelectSeries","request":{$(sel $INUSE "$B"),"step":120}}
{"name":"series_group","method":"SelectSeries","request":{$(sel $CPU "$AB"),"step":60,"groupBy":["service_name"]}}
{"name":"series_phase","method":"SelectSeries","request":{$(sel $CPU "$A"),"step":60,"groupBy":["phase"]}}
{"name":"series_none","method":"SelectSeries","request":{$(sel $CPU '{service_name=\"nope\"}'),"step":60}}
{"name":"profile_a","method":"SelectMergeProfile","request":{$(sel $CPU "$A")},"out":"$T/merged.@FORMAT@.pb"}
{"name":"bad_sel","method":"SelectMergeStacktraces","request":{$(sel $CPU '{service_name=\"svc-a\"')}}
{"name":"bad_type","method":"SelectSeries","request":{$(sel process_cpu:cpu "$A"),"step":60}}
{"name":"bad_time","method":"SelectMergeStacktraces","request":{"profileTypeID":"$CPU","labelSelector":"$A","start":"$end","end":"$start"}}
{"name":"stats","method":"GetProfileStats","request":{}}
{"name":"diff","method":"Diff","request":{}}
{"name":"span","method":"SelectMergeSpanProfile","request":{"profileTypeID":"$CPU"}}
EOF
# Over the TCP listener in TLS with the reader's token, as Grafana calls.
where=(--url "https://127.0.0.1:$PORT" --ca "$TLS/ca.pem" --token "$READ_TOKEN")
how="the TCP listener over TLS"
for f in binary json; do
	sed "s/@FORMAT@/$f/" "$T/calls" |
	    node "$TESTS_DIR/tools/querier_connect.js" --modules "$CONNECT_NODE_DIR" \
	    --desc "$T/querier.desc" "${where[@]}" --format "$f" \
	    >"$T/$f.jsonl" 2>"$T/node.err" ||
		fail "querier_connect.js ($f): $(tail -n 5 "$T/node.err")"
done
R=$T/binary.jsonl
check() { python3 "$TESTS_DIR/tools/querier_check.py" "$@"; }
get() { check get "$R" "$1" "$2"; }
check same "$R" "$T/json.jsonl" profile_a || fail "the encodings differ"
ok "every call answered alike in protobuf and JSON, over $how"

# The profile types of the window: those of the pushed metrics.
want='["memory:alloc_objects:count:space:bytes", "memory:alloc_space:bytes:space:bytes", "memory:inuse_objects:count:space:bytes", "memory:inuse_space:bytes:space:bytes", "process_cpu:cpu:nanoseconds:cpu:nanoseconds", "process_cpu:samples:count:cpu:nanoseconds"]'
got=$(get pt '[t["ID"] for t in r["profileTypes"]]')
[ "$got" = "$want" ] || fail "ProfileTypes: $got"
got=$(get pt '[t for t in r["profileTypes"] if t["ID"].startswith("process_cpu:cpu:")][0]')
[ "$got" = '{"ID": "process_cpu:cpu:nanoseconds:cpu:nanoseconds", "name": "process_cpu", "sampleType": "cpu", "sampleUnit": "nanoseconds", "periodType": "cpu", "periodUnit": "nanoseconds"}' ] ||
	fail "ProfileTypes: $got"
[ "$(get pt_before 'r.get("profileTypes", [])')" = "[]" ] ||
	fail "ProfileTypes before the pushes: $(get pt_before r)"
ok "ProfileTypes"

# Label names: the series' and the CPU profile's sample labels.
"$PROFCTL" tags --scope svc-a --metric cpu --json >"$T/tags.json" ||
	fail "profctl tags"
keys=$(json '" ".join(t["key"] for t in j["tags"])' <"$T/tags.json")
[ -n "$keys" ] || fail "cpu.pprof has no sample labels"
want=$(printf '%s\n' __name__ __profile_type__ env service_name $keys |
    sort -u | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().split()))')
[ "$(get ln_a 'r["names"]')" = "$want" ] ||
	fail "LabelNames of svc-a: $(get ln_a r), want $want"
got=$(get ln_all '[n for n in r["names"] if n in ("env", "service_name", "__name__", "__profile_type__")]')
[ "$got" = '["__name__", "__profile_type__", "env", "service_name"]' ] ||
	fail "LabelNames: $got"
[ "$(get lv_env 'r["names"]')" = '["dev", "prod", "stg"]' ] ||
	fail "LabelValues env: $(get lv_env r)"
[ "$(get lv_env_b 'r["names"]')" = '["dev", "stg"]' ] ||
	fail "LabelValues env of svc-b: $(get lv_env_b r)"
[ "$(get lv_svc 'r["names"]')" = '["svc-a", "svc-b"]' ] ||
	fail "LabelValues service_name: $(get lv_svc r)"
[ "$(get lv_svc_prod 'r["names"]')" = '["svc-a"]' ] ||
	fail "LabelValues service_name of env=prod: $(get lv_svc_prod r)"
[ "$(get lv_svc_re 'r["names"]')" = '["svc-b"]' ] ||
	fail "LabelValues service_name of env=~d.*: $(get lv_svc_re r)"
[ "$(get lv_pt_b 'len(r["names"])')" = 6 ] ||
	fail "LabelValues __profile_type__ of svc-b: $(get lv_pt_b r)"
ok "LabelNames, LabelValues"

# Series: svc-b's CPU metrics with env=dev, its heap's with env=stg.
got=$(get series_b 'sorted((l["labels"][1]["value"], l["labels"][0]["value"]) for l in r["labelsSet"])')
want='[["dev", "process_cpu:cpu:nanoseconds:cpu:nanoseconds"], ["dev", "process_cpu:samples:count:cpu:nanoseconds"], ["stg", "memory:alloc_objects:count:space:bytes"], ["stg", "memory:alloc_space:bytes:space:bytes"], ["stg", "memory:inuse_objects:count:space:bytes"], ["stg", "memory:inuse_space:bytes:space:bytes"]]'
[ "$got" = "$want" ] || fail "Series: $(get series_b r)"
ok "Series"

# The flame graphs against profctl top, function by function.
top() { # OUT profctl selection...
	local out=$1
	shift
	"$PROFCTL" top --since "$since" --until "$until" --limit 100000 \
	    --json "$@" >"$T/$out.json" || fail "profctl top $*"
}
top a --scope svc-a --metric cpu
top ab --scope svc-a --scope svc-b --metric cpu
top dev --scope svc-a --scope svc-b --metric cpu --label env=dev
top heap --scope svc-b --metric inuse_space
top re --scope svc-a --scope svc-b --metric cpu --label 'env=~de.|stg'
for n in a ab dev re heap; do
	out=$(check flame "$R" "flame_$n" "$T/$n.json") ||
	    fail "flame_$n differs from profctl top"
	ok "SelectMergeStacktraces flame_$n: $out, as profctl top"
done
[ "$(json 'j["total"]' <"$T/dev.json")" -lt "$(json 'j["total"]' <"$T/ab.json")" ] ||
	fail "env=dev selected all of svc-a and svc-b"
out=$(check pruned "$R" flame_a flame_pruned 8) || fail "max_nodes 8"
ok "max_nodes 8: $out, the totals whole"
[ "$(get flame_none 'int(r["flamegraph"].get("total", 0))')" = 0 ] ||
	fail "an unknown service: $(get flame_none r)"
ok "an unknown service: an empty flame graph"

# The time series against profctl timeline at the same step.
"$PROFCTL" timeline --scope svc-a --metric cpu --since "$since" \
    --until "$until" --step 60s --json >"$T/tl_a.json" || fail "timeline"
"$PROFCTL" timeline --scope svc-b --metric inuse_space --since "$since" \
    --until "$until" --step 120s --json >"$T/tl_heap.json" || fail "timeline"
out=$(check series "$R" series_a "$T/tl_a.json") || fail "series_a"
ok "SelectSeries of svc-a's CPU: $out, as profctl timeline"
out=$(check series "$R" series_heap "$T/tl_heap.json") || fail "series_heap"
ok "SelectSeries of svc-b's heap (a gauge, averaged): $out, as profctl timeline"
got=$(get series_group 'sorted((s["labels"][0]["value"], int(sum(p.get("value", 0) for p in s["points"]))) for s in r["series"])')
a_total=$(json 'j["total"]' <"$T/a.json")
b_total=$(( $(json 'j["total"]' <"$T/ab.json") - a_total ))
[ "$got" = "[[\"svc-a\", $a_total], [\"svc-b\", $b_total]]" ] ||
	fail "SelectSeries by service_name: $got ($a_total, $b_total)"
# By a sample label (pprof's labels of cpu.pprof): a series per value,
# each as profctl timeline --label phase=VALUE.
nphases=0
for v in $(json '" ".join(v["str"] for t in j["tags"] if t["key"] == "phase" for v in t["values"])' <"$T/tags.json"); do
	want=$("$PROFCTL" timeline --scope svc-a --metric cpu --since "$since" \
	    --until "$until" --step 60s --label "phase=$v" --json |
	    json 'j["total"]') || fail "profctl timeline phase=$v"
	got=$(get series_phase "[int(sum(p.get('value', 0) for p in s['points'])) for s in r['series'] if s['labels'][0].get('value', '') == '$v']")
	[ "$got" = "[$want]" ] || fail "SelectSeries by phase, $v: $got, not $want"
	nphases=$((nphases + 1))
done
[ "$nphases" -ge 2 ] || fail "cpu.pprof has $nphases phase values"
# The samples without a phase (if any): the series of phase "".
want=$("$PROFCTL" timeline --scope svc-a --metric cpu --since "$since" \
    --until "$until" --step 60s --label 'phase!~.+' --json |
    json 'j["total"]') || fail "profctl timeline phase!~.+"
got=$(get series_phase "[int(sum(p.get('value', 0) for p in s['points'])) for s in r['series'] if s['labels'][0].get('value', '') == '']")
[ "$got" = "[$want]" ] || { [ "$want" = 0 ] && [ "$got" = "[]" ]; } ||
	fail "SelectSeries by phase, no phase: $got, not $want"
[ "$(get series_none 'r.get("series", [])')" = "[]" ] ||
	fail "SelectSeries of an unknown service: $(get series_none r)"
ok "SelectSeries grouped by service_name, by a sample label; an unknown service has none"

# The merged profile, read by go tool pprof, as profctl top.
[ -s "$T/merged.binary.pb" ] || fail "SelectMergeProfile: no profile"
TZ=UTC go tool pprof -symbolize=none -top -nodefraction=0 \
    -nodecount=100000 -sample_index=cpu -unit=ns \
    "$T/merged.binary.pb" \
    >"$T/pprof.txt" 2>"$T/pprof.err" || fail "pprof: $(cat "$T/pprof.err")"
python3 "$TESTS_DIR/tools/pprof_top.py" "$T/pprof.txt" "$T/a.json" \
    ns || fail "SelectMergeProfile differs from profctl top"
[ "$(check get "$T/json.jsonl" profile_a 'e["code"]')" = unimplemented ] ||
	fail "SelectMergeProfile in JSON: $(check get "$T/json.jsonl" profile_a e)"
ok "SelectMergeProfile: go tool pprof -top says what profctl top says"

# GetProfileStats, which the Drilldown app asks first: the oldest and
# newest profile's times; settings.v1's Get: no settings.
got=$(get stats '[r["dataIngested"], int(r["oldestProfileTime"]) // 1000, int(r["newestProfileTime"]) // 1000]')
[ "$got" = "[true, $t0, $(( t0 + 180 ))]" ] || fail "GetProfileStats: $got"
for ct in json proto; do
	r=$(curl -s --unix-socket "$SOCK" -H "Content-Type: application/$ct" \
	    -w ' %{http_code} %{content_type}' --data-binary '' \
	    http://localhost/settings.v1.SettingsService/Get | tr -d '\n')
	case "$ct:$r" in
	"json:{} 200 application/json" | "proto: 200 application/proto") ;;
	*) fail "settings.v1.SettingsService/Get ($ct): $r" ;;
	esac
done
ok "GetProfileStats; the Drilldown app's settings: none"

# Errors, as Connect's, in both encodings (check same compared them).
[ "$(get bad_sel 'e["code"]')" = invalid_argument ] ||
	fail "a bad selector: $(get bad_sel e)"
case "$(get bad_sel 'e["message"]')" in
*label_selector*offset*) ;;
*) fail "a bad selector's message: $(get bad_sel e)" ;;
esac
[ "$(get bad_type 'e["code"]')" = invalid_argument ] ||
	fail "a bad profile type: $(get bad_type e)"
[ "$(get bad_time 'e["code"]')" = invalid_argument ] ||
	fail "end before start: $(get bad_time e)"
[ "$(get diff 'e["code"]')" = unimplemented ] || fail "Diff: $(get diff e)"
[ "$(get span 'e["code"]')" = unimplemented ] ||
	fail "SelectMergeSpanProfile: $(get span e)"
for path in querier.v1.QuerierService/SelectHeatmap \
    querier.v1.QuerierService/AnalyzeQuery settings.v1.SettingsService/Set \
    vcs.v1.VCSService/GetFile adhocprofiles.v1.AdHocProfileService/List; do
	r=$(curl -s --unix-socket "$SOCK" -H 'Content-Type: application/json' \
	    -d '{}' -w ' %{http_code}' "http://localhost/$path")
	case "$r" in
	*'"code":"unimplemented"'*"$path is not served"*' 501') ;;
	*) fail "$path: $r" ;;
	esac
done
ok "invalid_argument and unimplemented as Connect's"

# A gzipped JSON request (Content-Encoding: gzip), by curl.
printf '{"name":"env",%s}' "$win" | gzip >"$T/req.gz"
r=$(curl -s --unix-socket "$SOCK" -H 'Content-Type: application/json' \
    -H 'Content-Encoding: gzip' --data-binary @"$T/req.gz" \
    http://localhost/querier.v1.QuerierService/LabelValues)
[ "$r" = '{"names": ["dev", "prod", "stg"]}' ] ||
	[ "$(printf '%s' "$r" | json 'j["names"]')" = '["dev", "prod", "stg"]' ] ||
	fail "a gzipped request: $r"
ok "a gzipped request"

stop_profd
