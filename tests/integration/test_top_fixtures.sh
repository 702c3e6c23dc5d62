# Pushes every committed real profile (written by Go's runtime/pprof) with
# profctl and checks, for every sample type, that flat and cum of every
# function and the total equal what go tool pprof -top printed for the same
# file (tests/fixtures/expected), both as exact numbers (--json) and as
# the text table profctl prints.
. "$(dirname "$0")/lib.sh"

start_profd

for prof in cpu heap mutex block; do
	out=$("$PROFCTL" push "$FIXTURES/$prof.pprof" --scope "fx-$prof") ||
	    fail "push $prof.pprof: $out"
	case "$out" in
	*"stored as profile"*) ;;
	*) fail "push $prof.pprof printed: $out" ;;
	esac
done
ok "pushed 4 fixtures"

checked=0
for tsv in "$FIXTURES"/expected/*.tsv; do
	[ -f "${tsv%.tsv}.cum.top" ] || fail "no ${tsv%.tsv}.cum.top"
	base=$(basename "$tsv" .tsv)
	prof=${base%%.*}
	metric=${base#*.}
	"$PROFCTL" top --scope "fx-$prof" --metric "$metric" --json \
	    >"$T/top.json" || fail "profctl top $base"
	python3 "$TESTS_DIR/tools/top_tsv.py" "$tsv" "$T/top.json" ||
	    fail "numbers of $base differ from pprof"
	# The text table, from the "Showing nodes" line on, byte for byte.
	"$PROFCTL" top --scope "fx-$prof" --metric "$metric" >"$T/top.txt" ||
	    fail "profctl top $base (text)"
	sed -n '/^Showing nodes/,$p' "${tsv%.tsv}.top" >"$T/want.txt"
	sed -n '/^Showing nodes/,$p' "$T/top.txt" >"$T/got.txt"
	[ -s "$T/want.txt" ] || fail "${tsv%.tsv}.top has no table"
	diff -u "$T/want.txt" "$T/got.txt" ||
	    fail "profctl top text of $base differs from go tool pprof -top"
	# And sorted by cum, as pprof -top -cum.
	"$PROFCTL" top --scope "fx-$prof" --metric "$metric" --cum \
	    >"$T/topc.txt" || fail "profctl top --cum $base"
	sed -n '/^Showing nodes/,$p' "${tsv%.tsv}.cum.top" >"$T/want.txt"
	sed -n '/^Showing nodes/,$p' "$T/topc.txt" >"$T/got.txt"
	diff -u "$T/want.txt" "$T/got.txt" ||
	    fail "profctl top --cum of $base differs from go tool pprof -top -cum"
	checked=$((checked + 1))
done
[ "$checked" -ge 10 ] || fail "only $checked sample types checked"
ok "flat, cum and total of every function equal pprof's for $checked sample types"

# Without frame filters top and tree are computed over the union of the
# stacks' callsites, with them stack by stack.  "--focus ." keeps every
# stack and frame, so both ways must give the same rows, inline labels,
# edges and tree, for every sample type and at every granularity.
same=0
for tsv in "$FIXTURES"/expected/*.tsv; do
	base=$(basename "$tsv" .tsv)
	prof=${base%%.*}
	metric=${base#*.}
	for g in function line file; do
		for way in "" "&focus=."; do
			r=$(api GET "/v1/top?scope=fx-$prof&metric=$metric&granularity=$g$way")
			[ "$(status_of "$r")" = 200 ] || fail "top $base $g $way: $r"
			body_of "$r" >"$T/top${way:+-f}.json"
		done
		python3 - "$T/top.json" "$T/top-f.json" <<'PY' ||
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(0 if (a["total"], a["rows"]) == (b["total"], b["rows"]) else 1)
PY
		    fail "top $base $g: the callsite tree and the stack walk differ"
	done
	for way in "" "--focus ."; do
		# shellcheck disable=SC2086
		"$PROFCTL" tree --scope "fx-$prof" --metric "$metric" $way \
		    --json >"$T/tree${way:+-f}.json" || fail "tree $base $way"
	done
	python3 - "$T/tree.json" "$T/tree-f.json" <<'PY' ||
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(0 if (a["total"], a["root"]) == (b["total"], b["root"]) else 1)
PY
	    fail "tree $base: the callsite tree and the stack walk differ"
	same=$((same + 1))
done
ok "top (3 granularities) and tree equal with and without the stack walk for $same sample types"
