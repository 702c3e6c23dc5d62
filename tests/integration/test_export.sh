# GET /v1/export: a selection as a gzipped pprof profile.  go tool pprof
# -top of the export gives /v1/top's rows for the same selection (name, flat,
# cum, inline mark, order) and its total; -raw shows every sample type of
# the selected profiles, the sample labels and inlined locations; pushed
# back into profd the export gives the same top again.  Needs go.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null 2>&1 || { echo "SKIP: go not installed"; exit 77; }
PTOP="$TESTS_DIR/tools/pprof_top.py"
start_profd
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope cpu >/dev/null
"$PROFCTL" push "$FIXTURES/heap.pprof" --scope heap >/dev/null
python3 "$TESTS_DIR/tools/genperfetto.py" "$T/pf.trace" "$T/pf.json" \
    --kind mixed --samples 600 --seed 3
"$PROFCTL" push "$T/pf.trace" --scope pf >/dev/null

pprof_unit() {	# profd unit -> pprof's -unit
	case $1 in
	nanoseconds) echo ns ;;
	bytes) echo B ;;
	*) echo "$1" ;;
	esac
}

n=0
# check METRIC QUERY: export the selection, compare pprof -top of it and
# the top of its re-import with /v1/top.
check() {
	local metric=$1 q=$2 unit punit r totalflag=
	n=$((n + 1))
	r=$(api GET "/v1/top?metric=$metric&$q")
	[ "$(status_of "$r")" = 200 ] || fail "top $q: $r"
	body_of "$r" >"$T/top.json"
	unit=$(json 'j["unit"]' <"$T/top.json")
	punit=$(pprof_unit "$unit")
	curl -sf --unix-socket "$SOCK" -o "$T/ex$n.pb.gz" -D "$T/hdr" \
	    "http://localhost/v1/export?metric=$metric&$q" || fail "export $q"
	grep -qi '^content-type: application/octet-stream' "$T/hdr" ||
	    fail "export $q: $(cat "$T/hdr")"
	# pprof's total is taken before the frame filters; the export has
	# dropped what they dropped.
	case $q in *focus=*|*ignore=*|*hide=*|*show=*) totalflag=--no-total ;; esac
	TZ=UTC go tool pprof -symbolize=none -top -nodefraction=0 \
	    -nodecount=100000 -sample_index="$metric" -unit="$punit" \
	    "$T/ex$n.pb.gz" >"$T/want.txt" 2>"$T/pprof.err" ||
	    fail "go tool pprof on the export of $q: $(cat "$T/pprof.err")"
	python3 "$PTOP" "$T/want.txt" "$T/top.json" "$punit" $totalflag ||
	    fail "pprof -top of the export of $q ($metric) differs from /v1/top"
	# Back into profd: the same rows (and total, less what was filtered).
	"$PROFCTL" push "$T/ex$n.pb.gz" --scope "rt$n" >/dev/null ||
	    fail "push the export of $q"
	r=$(api GET "/v1/top?scope=rt$n&metric=$metric")
	[ "$(status_of "$r")" = 200 ] || fail "top of the re-import: $r"
	body_of "$r" >"$T/rt.json"
	python3 - "$T/top.json" "$T/rt.json" "$totalflag" <<'PY' ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
rows = lambda j: [(r["function"], r["flat"], r["cum"], r["inline"]) for r in j["rows"]]
ok = rows(a) == rows(b) and a["metric"] == b["metric"]
if sys.argv[3] == "":
    ok = ok and a["total"] == b["total"]
sys.exit(0 if ok else 1)
PY
	    fail "the re-imported export of $q ($metric) has another top"
	echo "   $metric $q: $(json 'len(j["rows"])' <"$T/top.json") rows"
}

check cpu 'scope=cpu'
check samples 'scope=cpu'
check cpu 'scope=cpu&label=phase%3Dhash'
check samples 'scope=cpu&label=worker!%3D0'
check cpu 'scope=cpu&focus=main%5C.fib'
check cpu 'scope=cpu&hide=%5Eruntime'
check cpu 'scope=cpu&focus=Phase&hide=pprof%5C.Do'
check cpu 'scope=cpu&show=%5Emain%5C.'
check cpu 'scope=cpu&ignore=sha256%7Ccrc32&hide=main%5C.mix64'
check alloc_space 'scope=heap'
check inuse_objects 'scope=heap'
check alloc_space 'scope=heap&focus=main%5C.&hide=%5Eruntime'
for m in $(json '" ".join(j)' <"$T/pf.json"); do
	check "$m" 'scope=pf'
done
check wall_time 'scope=pf&label=tid%3D43'
ok "pprof -top of the export, and of its re-import, equal /v1/top"

# -raw: every sample type (the selection's metric the default), labels,
# inlined locations.
raw() { TZ=UTC go tool pprof -symbolize=none -raw "$1" 2>/dev/null; }
curl -sf --unix-socket "$SOCK" -o "$T/heap.pb.gz" \
    "http://localhost/v1/export?scope=heap&metric=inuse_space"
raw "$T/heap.pb.gz" >"$T/raw.txt"
grep -qx ' *alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes\[dflt\] *' \
    "$T/raw.txt" || fail "heap sample types: $(grep -A1 '^Samples' "$T/raw.txt")"
curl -sf --unix-socket "$SOCK" -o "$T/cpu.pb.gz" "http://localhost/v1/export?scope=cpu"
raw "$T/cpu.pb.gz" >"$T/raw.txt"
raw "$FIXTURES/cpu.pprof" >"$T/raw-orig.txt"
python3 - "$T/raw.txt" "$T/raw-orig.txt" <<'PY' || fail "cpu -raw differs"
import re, sys
def parse(path):
    text = open(path).read()
    samples = text.split("Samples:\n", 1)[1].split("Locations\n", 1)[0]
    types = samples.splitlines()[0].replace("[dflt]", "").split()
    labels = sorted(set(re.findall(r"\w+:\[[^\]]*\]", samples)))
    locs = text.split("Locations\n", 1)[1].split("Mappings\n", 1)[0]
    inlined = len(re.findall(r"^\s+\d+: .*\n(?=\s+[^\s\d])", locs, re.M))
    period = re.findall(r"^(?:PeriodType|Period):.*$", text, re.M)
    maps = text.split("Mappings\n", 1)[1].split()
    return types, labels, inlined, period, maps
got, orig = parse(sys.argv[1]), parse(sys.argv[2])
bad = 0
for what, g, o in zip(("types", "labels", "inlined locations", "period",
                       "mappings"), got, orig):
    print("  ", what, g)
    if g != o or not g:
        print("   differs from the fixture's:", o)
        bad = 1
sys.exit(bad)
PY
grep -q '^Time: ' "$T/raw.txt" || fail "no time in the export"
grep -q ' cpu/nanoseconds\[dflt\]' "$T/raw.txt" || fail "cpu is not the default"
ok "-raw: all sample types, labels, inlined locations, period, mappings"

curl -sf --unix-socket "$SOCK" -o "$T/pf.pb.gz" "http://localhost/v1/export?scope=pf"
raw "$T/pf.pb.gz" | has 'pid:\[42\]' || fail "numeric labels of the trace"
ok "numeric labels"

r=$(api GET "/v1/export?scope=nope")
[ "$(status_of "$r")" = 404 ] || fail "unknown scope: $r"
r=$(api GET "/v1/export?scope=cpu&limit=3")
[ "$(status_of "$r")" = 400 ] || fail "a parameter that is not one: $r"
r=$(api GET "/v1/export?scope=cpu&metric=nope")
[ "$(status_of "$r")" = 400 ] || fail "unknown metric: $r"
ok "bad selections: 404 and 400"
