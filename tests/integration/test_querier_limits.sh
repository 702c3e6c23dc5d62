#!/usr/bin/env bash
# test_querier_limits.sh: Grafana's SelectSeries bounded in its work and
# its reply (issue 40): a group_by on a label of 3,000 values (a profile
# of 3,005 samples, 3,000 `path` values) is refused naming
# query-max-series, answers its top N with limit, and answers every
# group (each the numbers profctl timeline --label path=VALUE gives)
# once query-max-series allows it; a year at a step of 1 s is refused
# naming the 10,000 points a series holds and the step it needs; a reply
# of more points than query-max-points is refused naming it; a panel of
# a few groups (a day at step 15 s, by a push label; a gauge averaged per
# series) answers profctl timeline's numbers.  /v1/timeline and
# /pyroscope/render over a year keep to 10,000 points a series by a
# coarser step.  JSON over the socket, as Grafana's calls read it.
. "$(dirname "$0")/lib.sh"

start_profd --query-max-series 2000 --query-max-points 50

CPU=process_cpu:cpu:nanoseconds:cpu:nanoseconds
HEAP=memory:inuse_space:bytes:space:bytes
# On a minute, two hours ago: every profile of the test is after t0 and
# a day's window before now holds them all.
t0=$(( $(date +%s) / 60 * 60 - 7200 ))
now=$(( t0 + 7200 ))

# 3,005 samples of 10 ms over 3,000 paths: /p/0 to /p/4 have two.
python3 "$TESTS_DIR/tools/genpprof.py" "$T/paths.pb.gz" --samples 3005 \
    --label-values 3000 --stacks 50 --functions 100 --depth 8 --seed 7 \
    --time "$t0" || fail "genpprof"
"$PROFCTL" push "$T/paths.pb.gz" --scope paths --label env=prod \
    >/dev/null || fail "push paths"
# The Go CPU profile in web at t0, +15 s and +60 s (env=prod), +30 s
# (env=stg), and 300 days before (env=old); its heap in mem at t0, +5 s
# and +20 s (region=a), +10 s (region=b): a gauge, averaged per series
# and step.  Re-timed copies (retime_pprof.py's), written by one Python.
cat >"$T/pushes" <<EOF
cpu.pprof web $((t0 - 300 * 86400)) env=old
cpu.pprof web $t0 env=prod
cpu.pprof web $((t0 + 15)) env=prod
cpu.pprof web $((t0 + 60)) env=prod
cpu.pprof web $((t0 + 30)) env=stg
heap.pprof mem $t0 region=a
heap.pprof mem $((t0 + 5)) region=a
heap.pprof mem $((t0 + 20)) region=a
heap.pprof mem $((t0 + 10)) region=b
EOF
python3 - "$TESTS_DIR/tools" "$FIXTURES" "$T" <<'EOF' ||
import gzip, sys
sys.path.insert(0, sys.argv[1])
from pbwire import fv
from retime_pprof import without_field
for i, line in enumerate(open(sys.argv[3] + "/pushes")):
    name, _, t, _ = line.split()
    raw = open("%s/%s" % (sys.argv[2], name), "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    with open("%s/p%d.pb" % (sys.argv[3], i), "wb") as f:
        f.write(without_field(raw, 9) + fv(9, int(t) * 10**9))
EOF
	fail "retime the fixtures"
i=0
while read -r f scope t label; do
	"$PROFCTL" push "$T/p$i.pb" --scope "$scope" --label "$label" \
	    >/dev/null || fail "push $f to $scope at $t"
	i=$((i + 1))
done <"$T/pushes"
ok "pushed a profile of 3,000 path values, 5 CPU and 4 heap profiles"

# series NAME JSON-REQUEST: SelectSeries over the socket into $T/NAME,
# its status in $T/NAME.code.
series() {
	curl -s --unix-socket "$SOCK" -H 'Content-Type: application/json' \
	    -d "$2" -o "$T/$1" -w '%{http_code}' \
	    http://localhost/querier.v1.QuerierService/SelectSeries \
	    >"$T/$1.code" || fail "curl SelectSeries $1"
}
code() { cat "$T/$1.code"; }
field() { json "$2" <"$T/$1"; }
day="\"start\":\"$(( (now - 86400) * 1000 ))\",\"end\":\"$(( now * 1000 ))\""
year="\"start\":\"$(( (now - 365 * 86400) * 1000 ))\",\"end\":\"$(( now * 1000 ))\""
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
WIN=(--since "$(iso $((now - 86400)))" --until "$(iso "$now")")
# tl FILE SELECTION...: profctl timeline over the day into FILE.
tl() {
	local out=$1
	shift
	"$PROFCTL" timeline "${WIN[@]}" --json "$@" >"$T/$out" ||
	    fail "profctl timeline $*"
}
# same NAME INDEX TIMELINE: series INDEX of NAME has the timeline's
# points with a value (ms, value) and its total.
same() {
	python3 - "$T/$1" "$2" "$T/$3" <<'EOF' || fail "series $1[$2] is not profctl timeline's $3"
import json, sys
r = json.load(open(sys.argv[1]))["series"][int(sys.argv[2])]
tl = json.load(open(sys.argv[3]))
got = [(int(p["timestamp"]), p.get("value", 0)) for p in r["points"]]
want = [(p["time_ns"] // 10**6, float(p["value"])) for p in tl["points"]]
nz = lambda v: [x for x in v if x[1] != 0]
if nz(got) != nz(want) or sum(v for _, v in got) != tl["total"]:
    sys.exit("%s: %s, profctl: %s" % (r["labels"], nz(got)[:6], nz(want)[:6]))
# Points run from the first step with a value to the last, 0 between.
steps = [t for t, _ in got]
if any(b - a != steps[1] - steps[0] for a, b in zip(steps, steps[1:])):
    sys.exit("%s: points not one a step: %s" % (r["labels"], steps[:6]))
EOF
}
# labels NAME: each series' label values, "|"-joined, one a line.
labels() { field "$1" '"\n".join("|".join(l["value"] for l in s["labels"]) for s in j.get("series", []))'; }

# A panel of a few groups: web's CPU by env over the day at 15 s.
series env "{\"profileTypeID\":\"$CPU\",\"labelSelector\":\"{service_name=\\\"web\\\"}\",$day,\"step\":15,\"groupBy\":[\"env\"]}"
[ "$(code env)" = 200 ] || fail "group_by env: $(code env) $(cat "$T/env")"
[ "$(labels env | tr '\n' ' ')" = "prod stg " ] ||
	fail "group_by env: series $(labels env)"
tl env_prod --scope web --metric cpu --label env=prod --step 15s
tl env_stg --scope web --metric cpu --label env=stg --step 15s
same env 0 env_prod
same env 1 env_stg
[ "$(field env 'len(j["series"][0]["points"])')" = 5 ] ||
	fail "env=prod: $(field env 'j["series"][0]["points"]'), not 5 points of 15 s"
ok "a day at 15 s by env: two series, profctl timeline's points and totals"

# A gauge by a push label: each series' profiles of a step averaged.
series region "{\"profileTypeID\":\"$HEAP\",\"labelSelector\":\"{service_name=\\\"mem\\\"}\",$day,\"step\":60,\"groupBy\":[\"region\"]}"
[ "$(code region)" = 200 ] || fail "group_by region: $(code region) $(cat "$T/region")"
[ "$(labels region | tr '\n' ' ')" = "a b " ] ||
	fail "group_by region: series $(labels region)"
tl region_a --scope mem --metric inuse_space --label region=a --step 60s
tl region_b --scope mem --metric inuse_space --label region=b --step 60s
same region 0 region_a
same region 1 region_b
[ "$(json 'j["total"]' <"$T/region_a")" = "$(json 'j["total"]' <"$T/region_b")" ] ||
	fail "three heaps of region a averaged are not the one of b"
ok "a gauge by region: averaged per series, as profctl timeline"

# 3,000 groups: more series than query-max-series (2000), refused with a
# message naming it; the top 5 by total with limit.
P="{\"profileTypeID\":\"$CPU\",\"labelSelector\":\"{service_name=\\\"paths\\\"}\",$day,\"step\":60,\"groupBy\":[\"path\"]"
series paths "$P}"
[ "$(code paths)" = 429 ] || fail "3,000 groups: $(code paths) $(head -c 300 "$T/paths")"
[ "$(field paths 'j["code"]')" = resource_exhausted ] ||
	fail "3,000 groups: $(cat "$T/paths")"
case "$(field paths 'j["message"]')" in
*"3000 series"*"2000"*query-max-series*) ;;
*) fail "3,000 groups, the message: $(cat "$T/paths")" ;;
esac
ok "3,000 groups over query-max-series 2000: $(field paths 'j["message"]')"
series top "$P,\"limit\":\"5\"}"
[ "$(code top)" = 200 ] || fail "limit 5: $(code top) $(cat "$T/top")"
[ "$(labels top | tr '\n' ' ')" = "/p/0 /p/1 /p/2 /p/3 /p/4 " ] ||
	fail "limit 5: $(labels top)"
tl p3 --scope paths --metric cpu --label path=/p/3 --step 60s
tl p7 --scope paths --metric cpu --label path=/p/7 --step 60s
same top 3 p3
[ "$(json 'j["total"]' <"$T/p3")" = $(( 2 * $(json 'j["total"]' <"$T/p7") )) ] ||
	fail "/p/3 has two samples, /p/7 one: $(json 'j["total"]' <"$T/p3")"
ok "limit 5: the five paths of two samples, each profctl timeline's"

# A year at a step of 1 s: 31,536,001 points a series, refused before
# any read, naming the bound and the step that fits.
series year "{\"profileTypeID\":\"$CPU\",\"labelSelector\":\"{}\",$year,\"step\":1,\"groupBy\":[\"env\",\"service_name\"]}"
[ "$(code year)" = 400 ] || fail "a year at 1 s: $(code year) $(cat "$T/year")"
[ "$(field year 'j["code"]')" = invalid_argument ] || fail "a year at 1 s: $(cat "$T/year")"
case "$(field year 'j["message"]')" in
step:*31536001*10000*"3154 s"*) ;;
*) fail "a year at 1 s, the message: $(cat "$T/year")" ;;
esac
ok "a year at 1 s: $(field year 'j["message"]')"
# Two hours at 1 s fit a series (7,201 points), but web's two groups
# make 62 points (prod from t0 to t0+60, stg one): over
# query-max-points 50.
series points "{\"profileTypeID\":\"$CPU\",\"labelSelector\":\"{service_name=\\\"web\\\"}\",\"start\":\"$(( (now - 7200) * 1000 ))\",\"end\":\"$(( now * 1000 ))\",\"step\":1,\"groupBy\":[\"env\"]}"
[ "$(code points)" = 429 ] || fail "62 points: $(code points) $(cat "$T/points")"
case "$(field points 'j["message"]')" in
*"2 series of 62 points"*"at most 50 points"*query-max-points*) ;;
*) fail "62 points, the message: $(cat "$T/points")" ;;
esac
ok "62 points over query-max-points 50: refused, naming it"

# The timeline's own views over a year at 1 s (web's profiles 300 days
# apart): a coarser step, 10,000 points at most (TIMELINE_MAX_POINTS),
# not refused.
r=$(api GET "/v1/timeline?scope=web&metric=cpu&since=$(iso $((now - 365 * 86400)))&until=$(iso "$now")&step=1s")
[ "$(status_of "$r")" = 200 ] || fail "/v1/timeline over a year: $r"
n=$(body_of "$r" | json 'len(j["points"])')
step=$(body_of "$r" | json 'j["step_s"]')
[ "$n" -le 10000 ] && [ "$step" -ge 2592 ] ||
	fail "/v1/timeline over a year at 1 s: $n points of $step s"
q=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$CPU{service_name=\"web\"}")
r=$(api GET "/pyroscope/render?query=$q&from=$((now - 365 * 86400))&until=$now")
[ "$(status_of "$r")" = 200 ] || fail "render over a year: $r"
m=$(body_of "$r" | json 'len(j["timeline"]["samples"])')
[ "$m" -le 10000 ] || fail "render over a year: $m samples"
ok "/v1/timeline and render over a year at 1 s: $n points of $step s, $m samples"

# Every group once query-max-series allows 3,000 series: each path's
# numbers, their sum the scope's total.
stop_profd
start_profd --query-max-series 4000
series all "$P}"
[ "$(code all)" = 200 ] || fail "3,000 groups: $(code all) $(head -c 300 "$T/all")"
[ "$(field all 'len(j["series"])')" = 3000 ] ||
	fail "3,000 groups: $(field all 'len(j["series"])') series"
tl p2999 --scope paths --metric cpu --label path=/p/2999 --step 60s
i=$(field all '[s["labels"][0]["value"] for s in j["series"]].index("/p/2999")')
same all "$i" p2999
tl paths_tl --scope paths --metric cpu --step 60s
[ "$(field all 'int(sum(p.get("value", 0) for s in j["series"] for p in s["points"]))')" = \
    "$(json 'j["total"]' <"$T/paths_tl")" ] || fail "the 3,000 series do not add up to the scope's total"
ok "3,000 groups under query-max-series 4000: each path's numbers, the scope's total"
