# Selections shared by top and tree: several scopes merged by summing,
# profile ids, since/until windows, label filters on sample labels and
# push labels, and 400s that say which parameter is wrong.
. "$(dirname "$0")/lib.sh"
start_profd

total() {	# query string -> total of /v1/top
	local r
	r=$(api GET "/v1/top?$1")
	[ "$(status_of "$r")" = 200 ] || fail "/v1/top?$1: $r"
	body_of "$r" | json 'j["total"]'
}

"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope a --label env=prod >/dev/null
"$PROFCTL" push "$FIXTURES/block.pprof" --scope b >/dev/null
python3 "$TESTS_DIR/tools/genpprof.py" "$T/g.pb.gz" --samples 500 --seed 4
"$PROFCTL" push "$T/g.pb.gz" --scope b --label env=dev >/dev/null

# Several scopes: the sums of each.
ta=$(total "scope=a&metric=samples")
tb=$(total "scope=b&metric=samples")
tab=$(total "scope=a&scope=b&metric=samples")
[ "$tab" = $((ta + tb)) ] || fail "a+b: $tab != $ta + $tb"
# delay/nanoseconds (block) and cpu/nanoseconds are different metrics;
# contentions/count and samples/count stay apart too.
ok "scope=a&scope=b merges by summing ($ta + $tb = $tab)"

# Profile ids.
t3=$(total "scope=b&metric=samples&profile=3")
[ "$t3" = 500 ] || fail "profile=3: $t3"
[ "$(total "scope=b&metric=samples&profile=2&profile=3")" = "$tb" ] || fail "profile=2&3"
ok "profile ids select profiles"

# Label filters: sample labels (pprof's worker) and push labels (env).
w0=$(total "scope=a&metric=samples&label=worker=0")
wn0=$(total "scope=a&metric=samples&label=worker!=0")
[ "$w0" -gt 0 ] && [ "$wn0" -gt 0 ] || fail "worker split: $w0 $wn0"
[ $((w0 + wn0)) = "$ta" ] || fail "worker=0 ($w0) + worker!=0 ($wn0) != $ta"
if command -v go >/dev/null 2>&1; then
	want=$(go tool pprof -raw -tagfocus='worker=^0$' "$FIXTURES/cpu.pprof" 2>/dev/null |
	    awk '/^Samples:/{s=1;getline;next} /^Locations/{s=0} s && /^ *[0-9]+ +[0-9]+:/{t+=$1} END{print t}')
	[ "$w0" = "$want" ] || fail "label=worker=0: $w0, pprof -tagfocus: $want"
fi
[ "$(total "scope=a&metric=samples&label=worker=0&label=phase=hash")" -lt "$w0" ] ||
    fail "two label filters are not AND-ed"
[ "$(total "scope=a&scope=b&metric=samples&label=env=prod")" = "$ta" ] || fail "push label env=prod"
[ "$(total "scope=a&scope=b&metric=samples&label=env!=prod")" = "$tb" ] || fail "push label env!=prod"
ok "label filters on sample labels and push labels, AND-ed"

# Time windows: Perfetto samples keep their time (1.2 s of samples).
python3 "$TESTS_DIR/tools/genperfetto.py" "$T/p.trace" "$T/p.json" --samples 1200 --seed 2
"$PROFCTL" push "$T/p.trace" --scope pf >/dev/null
all=$(total "scope=pf&metric=samples")
first=$(total "scope=pf&metric=samples&until=2023-11-14T22:13:20Z")
second=$(total "scope=pf&metric=samples&since=2023-11-14T22:13:21Z")
[ "$first" = 1000 ] && [ "$second" = 200 ] && [ "$all" = 1200 ] ||
    fail "windows: $first + $second of $all"
[ "$(total "scope=pf&metric=samples&since=-1h")" = 0 ] || fail "since=-1h"
ok "since/until select time buckets ($first + $second = $all)"

# Trees take the same selection.
r=$(api GET "/v1/tree?scope=a&metric=samples&label=worker=0")
[ "$(body_of "$r" | json 'j["root"]["total"]')" = "$w0" ] || fail "tree with a label filter"

for q in "scope=a&since=yesterday" "scope=a&until=2026-13-01T00:00:00Z" \
    "scope=a&label=worker" "scope=a&profile=x" "scope=a&bogus=1" \
    "metric=cpu" "scope=a&since=-1h&until=-2h"; do
	r=$(api GET "/v1/top?$q")
	[ "$(status_of "$r")" = 400 ] || fail "/v1/top?$q: $r"
	echo "   $q -> $(body_of "$r" | json 'j["detail"]')"
done
ok "bad selections: 400 naming the parameter"

# The timeline: totals per step add up to top's total, for every step size
# and with a frame filter.
for q in "scope=pf&metric=samples" "scope=pf&metric=samples&step=10s" \
    "scope=pf&metric=samples&focus=lex" "scope=a&metric=cpu&label=worker=1"; do
	r=$(api GET "/v1/timeline?$q")
	[ "$(status_of "$r")" = 200 ] || fail "/v1/timeline?$q: $r"
	sum=$(body_of "$r" | json 'sum(p["value"] for p in j["points"])')
	flat=$(body_of "$(api GET "/v1/top?${q%&step=*}")" | json 'sum(r["flat"] for r in j["rows"])')
	[ "$sum" = "$flat" ] || fail "timeline $q: $sum, top: $flat"
done
r=$(api GET "/v1/timeline?scope=pf&metric=samples")
[ "$(body_of "$r" | json '[p["value"] for p in j["points"]]')" = "[1000, 200]" ] ||
    fail "timeline points: $r"
[ "$(status_of "$(api GET "/v1/timeline?scope=pf&step=0")")" = 400 ] || fail "step=0"
ok "timeline: points per step add up to top"

# Ends past the range of int64 nanoseconds keep their side, in every view
# (a since in 2300 selected everything, issue 24); the epoch is a bound
# like any other.  Scope a holds one profile of 2026.
all=$(total "scope=a&metric=samples")
[ "$all" -gt 0 ] || fail "scope a is empty"
for v in top tree timeline traces tags peek?regex=. list?regex=main; do
	sep='?'
	case $v in *\?*) sep='&' ;; esac
	for w in "since=2300-01-01T00:00:00Z:0" "until=1600-01-01T00:00:00Z:0" \
	    "until=1970-01-01T00:00:00Z:0" "since=2300-01-01T00:00:00Z&until=9999-01-01T00:00:00Z:0" \
	    "since=1600-01-01T00:00:00Z:$all" "until=2300-01-01T00:00:00Z:$all" \
	    "since=1970-01-01T00:00:00Z&until=9999-12-31T23:59:59Z:$all"; do
		q=${w%:*} want=${w##*:}
		r=$(api GET "/v1/$v${sep}scope=a&metric=samples&$q")
		case $(status_of "$r") in
		200) got=$(body_of "$r" | json 'j.get("total", 0)') ;;
		# peek and list answer 404 when nothing matches.
		404) got=0 ;;
		*) fail "/v1/$v?$q: $r" ;;
		esac
		[ "$got" = "$want" ] || fail "/v1/$v $q: total $got, want $want"
	done
done
n=$("$PROFCTL" export --scope a --since 2300-01-01T00:00:00Z -o - |
    python3 -c 'import gzip,sys; print(len(gzip.decompress(sys.stdin.buffer.read())))')
full=$("$PROFCTL" export --scope a --until 2300-01-01T00:00:00Z -o - |
    python3 -c 'import gzip,sys; print(len(gzip.decompress(sys.stdin.buffer.read())))')
[ "$n" -lt 200 ] && [ "$full" -gt 10000 ] ||
	fail "export: $n bytes since 2300, $full until 2300"
ok "since after 2262 and until before 1678 select nothing, the other way round everything (7 views, export)"
