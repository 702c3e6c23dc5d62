# profctl peek, traces, tags and list against go tool pprof -peek,
# -traces, -tags and -list on the committed Go fixtures: a CPU profile
# with labels and inlined frames, a heap profile with four sample types
# and numeric labels, a mutex profile, a merged series of three CPU
# profiles (pprof given the three files), with and without
# focus/ignore/hide/show.  Text bodies must be pprof's line for line:
# peek from "Showing nodes" on, tags whole, list whole (after profctl's
# two header lines), traces block by block (the store keeps no sample
# order, so the blocks are compared as multisets).
. "$(dirname "$0")/lib.sh"

command -v go >/dev/null 2>&1 || { echo "SKIP: go not installed"; exit 77; }
export TZ=UTC GOFLAGS= GOPROXY=off GOTOOLCHAIN=local

start_profd

for prof in cpu heap mutex; do
	"$PROFCTL" push "$FIXTURES/$prof.pprof" --scope "fx-$prof" >/dev/null ||
	    fail "push $prof.pprof"
done
mkdir -p "$T/s"
python3 "$TESTS_DIR/tools/distinct_pprof.py" "$FIXTURES/cpu.pprof" "$T/s" 3
for i in 0 1 2; do
	"$PROFCTL" push "$T/s/$i.pb" --scope fx-series >/dev/null ||
	    fail "push series $i"
done
ok "pushed the fixtures and a series of 3"

# pprof_of SCOPE: the files pprof reads for a scope.
pprof_of() {
	case $1 in
	fx-series) echo "$T/s/0.pb $T/s/1.pb $T/s/2.pb" ;;
	*) echo "$FIXTURES/${1#fx-}.pprof" ;;
	esac
}

# pp VIEW SCOPE METRIC [pprof flags...]: go tool pprof's output and
# status, its errors in $T/pprof.err.
pp() {
	local view=$1 scope=$2 metric=$3
	shift 3
	# shellcheck disable=SC2046
	go tool pprof -symbolize=none "$view" "$@" -sample_index="$metric" \
	    $(pprof_of "$scope") 2>"$T/pprof.err"
}

# The frame filter cases: pprof's flag and profctl's.
filters=("" "focus=hash" "ignore=sort" "hide=runtime" "show=main|sha256")

# flags_of CASE: "-focus=RE" for pprof into PF, "--focus RE" into CF.
flags_of() {
	PF=() CF=()
	[ -n "$1" ] || return 0
	PF=("-$1")
	CF=("--${1%%=*}" "${1#*=}")
}

n=0
for c in "fx-cpu cpu ." "fx-cpu samples main\\." "fx-heap alloc_space ." \
    "fx-heap inuse_space runtime" "fx-heap alloc_objects main" \
    "fx-heap inuse_objects ." "fx-mutex delay ." "fx-series cpu main"; do
	set -- $c
	for f in "${filters[@]}"; do
		flags_of "$f"
		pp "-peek=$3" "$1" "$2" "${PF[@]}" >"$T/want" 2>/dev/null || {
			# pprof fails when nothing matches: so must profctl.
			"$PROFCTL" peek "$3" --scope "$1" --metric "$2" \
			    "${CF[@]}" >/dev/null 2>&1 &&
			    fail "peek $c $f: pprof found nothing, profctl did"
			continue
		}
		"$PROFCTL" peek "$3" --scope "$1" --metric "$2" "${CF[@]}" \
		    >"$T/got" || fail "profctl peek $c $f"
		diff -u <(sed -n '/^Showing nodes/,$p' "$T/want") \
		    <(sed -n '/^Showing nodes/,$p' "$T/got") ||
		    fail "peek $c $f differs from go tool pprof -peek"
		n=$((n + 1))
	done
done
[ "$n" -ge 30 ] || fail "only $n peek cases compared"
ok "peek equals go tool pprof -peek in $n cases"

# The JSON says what the text (pprof's, above) says: the same nodes in
# the same order, each with the same callers and callees, inline marks,
# in the same order; flat of every node = flat_sum.
"$PROFCTL" peek 'main\.' --scope fx-cpu --metric cpu >"$T/peek.txt" ||
    fail "peek text"
"$PROFCTL" peek 'main\.' --scope fx-cpu --metric cpu --json \
    >"$T/peek.json" || fail "peek json"
"$PROFCTL" top --scope fx-cpu --metric cpu --json >"$T/top.json" ||
    fail "top json"
python3 - "$T/peek.json" "$T/peek.txt" "$T/top.json" <<'PY' ||
import json, sys
j = json.load(open(sys.argv[1]))
top = json.load(open(sys.argv[3]))
fns = j["functions"]
want = [(n["function"],
         [fns[f] + (" (inline)" if i else "") for f, w, i in n["callers"]],
         [fns[f] + (" (inline)" if i else "") for f, w, i in n["callees"]])
        for n in j["nodes"]]
got, cur = [], None
for line in open(sys.argv[2]).read().split("\n"):
    if line.startswith("-----"):
        cur = [None, [], []]
        got.append(cur)
    elif cur is not None and "                | " in line:
        cur[0] = line.split("                | ", 1)[1]
    elif cur is not None and " |   " in line:
        (cur[1] if cur[0] is None else cur[2]).append(
            line.split(" |   ", 1)[1])
got = [tuple(g) for g in got if g[0] is not None]
assert got == want, "nodes or edges differ"
rows = {r["function"]: (r["flat"], r["cum"]) for r in top["rows"]}
for n in j["nodes"]:
    assert rows[n["function"]] == (n["flat"], n["cum"]), n["function"]
assert j["flat_sum"] == sum(r["flat"] for r in top["rows"])
assert j["nodes_total"] == len(top["rows"])
PY
    fail "peek JSON is not its text"
ok "peek's JSON says what its text says"

# traces and tags: a host's own samples one by one, which the fleet
# does not keep (fleet-mode.sh); the blocks below are not indented.
if [ -n "${PROFD_TEST_FLEET:-}" ]; then
	fleet_mode_skip "traces and tags"
else
n=0
for c in "fx-cpu cpu" "fx-cpu samples" "fx-heap alloc_space" \
    "fx-heap inuse_objects" "fx-mutex contentions" "fx-series cpu"; do
	set -- $c
	for f in "${filters[@]}"; do
		flags_of "$f"
		pp -traces "$1" "$2" "${PF[@]}" >"$T/want" ||
		    fail "pprof -traces $c $f: $(cat "$T/pprof.err")"
		"$PROFCTL" traces --scope "$1" --metric "$2" "${CF[@]}" \
		    >"$T/got" || fail "profctl traces $c $f"
		python3 "$TESTS_DIR/tools/compare_traces.py" "$T/want" \
		    "$T/got" || fail "traces $c $f differ from pprof -traces"
		n=$((n + 1))
	done
done
ok "traces equal go tool pprof -traces in $n cases"

# Largest first, and --limit keeps the largest.
"$PROFCTL" traces --scope fx-cpu --metric cpu --json >"$T/all.json" ||
    fail "traces --json"
"$PROFCTL" traces --scope fx-cpu --metric cpu --json --limit 3 \
    >"$T/three.json" || fail "traces --limit 3"
python3 - "$T/all.json" "$T/three.json" <<'PY' || fail "traces JSON"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
vals = [t["value"] for t in a["traces"]]
assert vals == sorted(vals, key=abs, reverse=True), "not largest first"
assert a["traces_total"] == len(a["traces"]) > 3
assert sum(abs(v) for v in vals) == a["total"], (sum(vals), a["total"])
assert b["traces_total"] == a["traces_total"]
assert b["traces"] == a["traces"][:3], "limit kept other traces"
fns, sets = a["functions"], a["label_sets"]
assert len(fns) == len(set(fns)), "a function listed twice"
assert all(0 <= f < len(fns) for t in a["traces"] for f in t["frames"])
assert any(t.get("inline") for t in a["traces"])
assert all(0 <= i < len(t["frames"]) for t in a["traces"]
           for i in t.get("inline", []))
assert any(set(sets[t["label_set"]]["labels"]) == {"phase", "worker"}
           for t in a["traces"] if "label_set" in t)
assert b["functions"] == fns[:len(b["functions"])], "tables in first-use order"
PY
# The JSON says what the text (pprof's, above) says: the same stacks,
# inline marks and labels, trace by trace, in the same order.
"$PROFCTL" traces --scope fx-cpu --metric cpu >"$T/all.txt" ||
    fail "traces text"
python3 - "$T/all.json" "$T/all.txt" <<'PY' || fail "traces JSON is not the text"
import json, sys
j = json.load(open(sys.argv[1]))
fns, sets = j["functions"], j["label_sets"]
SEP = "-----------+-------------------------------------------------------"
blocks, cur = [], None
for line in open(sys.argv[2]).read().split("\n"):
    if line == SEP:
        if cur is not None:
            blocks.append(cur)
        cur = []
    elif cur is not None and line:
        cur.append(line)
assert len(blocks) == len(j["traces"]), (len(blocks), len(j["traces"]))
for t, b in zip(j["traces"], blocks):
    want = []
    if "label_set" in t:
        ls = sets[t["label_set"]]["labels"]
        want += sorted("%10s:  %s" % (k, " ".join(v)) for k, v in ls.items())
    inl = set(t.get("inline", []))
    names = [fns[f] + (" (inline)" if i in inl else "")
             for i, f in enumerate(t["frames"])]
    got = b[:len(want)] + [l[13:] for l in b[len(want):]]
    assert got == want + names, (got, want + names)
PY
ok "traces come largest first; --limit 3 keeps the 3 largest; JSON = text"

n=0
for c in "fx-cpu cpu" "fx-cpu samples" "fx-heap alloc_space" \
    "fx-heap inuse_space" "fx-heap inuse_objects" "fx-series cpu"; do
	set -- $c
	for f in "${filters[@]}"; do
		flags_of "$f"
		pp -tags "$1" "$2" "${PF[@]}" >"$T/want" ||
		    fail "pprof -tags $c $f: $(cat "$T/pprof.err")"
		"$PROFCTL" tags --scope "$1" --metric "$2" "${CF[@]}" \
		    >"$T/got" || fail "profctl tags $c $f"
		diff -u "$T/want" <(tail -n +3 "$T/got") ||
		    fail "tags $c $f differ from go tool pprof -tags"
		n=$((n + 1))
	done
done
"$PROFCTL" tags --scope fx-heap --metric alloc_space >"$T/got" ||
    fail "tags heap"
grep -q '^ *bytes: Total' "$T/got" || fail "no numeric label in tags"
ok "tags equal go tool pprof -tags in $n cases"

# --tag KEY: that key's block of the whole.
pp -tags fx-cpu cpu >"$T/want" || fail "pprof -tags"
"$PROFCTL" tags --scope fx-cpu --metric cpu --tag worker >"$T/got" ||
    fail "tags --tag worker"
diff -u <(sed -n '/^ *worker:/,/^$/p' "$T/want") <(tail -n +3 "$T/got") ||
    fail "tags --tag worker is not pprof's worker block"
ok "tags --tag worker prints pprof's worker block"
fi

# list: the generator's source where pprof looks for it (its files are
# recorded as profd-fixtures/main.go), the standard library's in GOROOT.
mkdir -p "$T/src/profd-fixtures"
cp "$FIXTURES"/gen/*.go "$T/src/profd-fixtures/"
goroot=$(go env GOROOT)/src
n=0
for c in "fx-cpu cpu main\\.(hash|mix64|fold)" "fx-cpu samples sortPhase" \
    "fx-heap alloc_space main\\." "fx-series cpu main\\.fib" \
    "fx-cpu cpu sha256\\.block"; do
	set -- $c
	for f in "" "focus=hash" "ignore=sha256" "hide=mix64"; do
		flags_of "$f"
		for sp in "$T/src" "$goroot"; do
			pp "-list=$3" "$1" "$2" -source_path "$sp" \
			    "${PF[@]}" >"$T/want" 2>/dev/null || {
				"$PROFCTL" list "$3" --scope "$1" \
				    --metric "$2" "${CF[@]}" \
				    >/dev/null 2>&1 &&
				    fail "list $c $f: only pprof found none"
				continue
			}
			grep -q ' Error: ' "$T/want" && continue
			"$PROFCTL" list "$3" --scope "$1" --metric "$2" \
			    --source-path "$sp" "${CF[@]}" >"$T/got" ||
			    fail "profctl list $c $f"
			diff -u "$T/want" <(tail -n +3 "$T/got") ||
			    fail "list $c $f ($sp) differs from pprof -list"
			n=$((n + 1))
		done
	done
done
[ "$n" -ge 12 ] || fail "only $n list cases compared"
ok "list equals go tool pprof -list in $n cases"

# Functions with start lines (Go 1.19 writes none): pprof starts a
# ROUTINE at the function's first line.
python3 "$TESTS_DIR/tools/genlist.py" "$T/gl.pb.gz" "$T/glsrc"
"$PROFCTL" push "$T/gl.pb.gz" --scope gl >/dev/null || fail "push gl"
for m in cpu samples; do
	go tool pprof -symbolize=none -list 'main\.' -sample_index=$m \
	    -source_path "$T/glsrc" "$T/gl.pb.gz" >"$T/want" 2>/dev/null ||
	    fail "pprof -list of gl"
	grep -q '^ *\. *\. *10:' "$T/want" || fail "pprof did not start at 10"
	"$PROFCTL" list 'main\.' --scope gl --metric $m \
	    --source-path "$T/glsrc" >"$T/got" || fail "list gl"
	diff -u "$T/want" <(tail -n +3 "$T/got") ||
	    fail "list with start lines differs from pprof -list"
done
ok "list starts at the functions' start lines as pprof does"

# Without the source: no error, the lines with values by number, the
# numbers pprof shows beside the source text.
pp '-list=main\.(hash|mix64)' fx-cpu cpu -source_path "$T/src" \
    >"$T/want" || fail "pprof -list"
(cd "$T" && "$PROFCTL" list 'main\.(hash|mix64)' --scope fx-cpu \
    --metric cpu --source-path /nonexistent >"$T/got") ||
    fail "list without source failed"
python3 - "$T/want" "$T/got" <<'PY' || fail "list without source: other numbers"
import re, sys
def rows(path, src):
    out = []
    for line in open(path):
        if line.startswith(("ROUTINE", "Total:")) or "(flat, cum)" in line:
            out.append(line.rstrip("\n"))
            continue
        m = re.match(r"^ *(\S+) +(\S+) +(\d+):", line)
        if m and (m.group(1), m.group(2)) != (".", "."):
            out.append("%s %s %s" % m.groups())
    return out
want, got = rows(sys.argv[1], 1), rows(sys.argv[2], 0)
if want != got:
    for a, b in zip(want, got):
        if a != b:
            print("pprof %r, profctl %r" % (a, b))
    sys.exit(1)
assert len(want) > 10
PY
grep -q '^ (no source: could not find file profd-fixtures/main.go' "$T/got" ||
    fail "list without source does not say why"
ok "list without the source lists pprof's numbers by line"

# Errors: no match, a bad regex, a missing regex.
r=$(api GET "/v1/peek?scope=fx-cpu&regex=no_such_function")
[ "$(status_of "$r")" = 404 ] || fail "peek without a match: $r"
r=$(api GET "/v1/list?scope=fx-cpu&regex=(")
[ "$(status_of "$r")" = 400 ] || fail "list with a bad regex: $r"
r=$(api GET "/v1/peek?scope=fx-cpu")
[ "$(status_of "$r")" = 400 ] || fail "peek without a regex: $r"
r=$(api GET "/v1/traces?scope=fx-cpu&limit=x")
[ "$(status_of "$r")" = 400 ] || fail "traces with a bad limit: $r"
r=$(api GET "/v1/tags?scope=fx-cpu&tag=")
[ "$(status_of "$r")" = 400 ] || fail "tags with an empty tag: $r"
ok "no match is 404, a bad or missing parameter 400"
