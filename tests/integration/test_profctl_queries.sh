# profctl's query commands against a real profd: top with selection flags
# equals GET /v1/top with the same parameters, tree --folded equals GET
# /v1/tree?format=folded, diff shows rows; export, query and timeline are
# checked where the daemon answers those endpoints.
. "$(dirname "$0")/lib.sh"
start_profd
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope fx >/dev/null
"$PROFCTL" push "$FIXTURES/heap.pprof" --scope fxh >/dev/null

same_json() {	# what a.json b.json
	python3 - "$2" "$3" <<'PY' || fail "$1: profctl and the API differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a == b, (a, b)
PY
}

# top with labels and frame filters: the same JSON as the API's.
"$PROFCTL" top --scope fx --metric cpu --label 'nosuch!=x' --focus 'main\.' \
    --ignore 'crc32' --limit 10 --json >"$T/top.json" || fail "top --json"
body_of "$(api GET "/v1/top?scope=fx&metric=cpu&label=nosuch%21%3Dx&focus=main%5C.&ignore=crc32&limit=10")" \
    >"$T/top-api.json"
same_json "top --label --focus --ignore" "$T/top.json" "$T/top-api.json"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["rows"], j' \
    "$T/top.json" || fail "top with filters has no rows"
"$PROFCTL" top --scope fx --label 'nosuch=x' --json >"$T/none.json"
body_of "$(api GET "/v1/top?scope=fx&label=nosuch%3Dx")" >"$T/none-api.json"
same_json "top --label K=V" "$T/none.json" "$T/none-api.json"
out=$("$PROFCTL" top --scope fx --label 'x' 2>&1) && fail "bad --label accepted"
case $out in *"--label"*) ;; *) fail "bad --label: $out" ;; esac
ok "top with --label/--focus/--ignore equals GET /v1/top"

# Two scopes merge by summing.
"$PROFCTL" top --scope fx --scope fx --json >"$T/two.json"
body_of "$(api GET "/v1/top?scope=fx&scope=fx")" >"$T/two-api.json"
same_json "top --scope --scope" "$T/two.json" "$T/two-api.json"
ok "repeated --scope"

# tree --folded is the daemon's text, byte for byte.
"$PROFCTL" tree --scope fx --metric cpu --folded >"$T/folded" ||
    fail "tree --folded"
r=$(api GET "/v1/tree?scope=fx&metric=cpu&format=folded")
[ "$(status_of "$r")" = 200 ] || fail "GET folded tree: $r"
curl -s --unix-socket "$SOCK" \
    "http://localhost/v1/tree?scope=fx&metric=cpu&format=folded" \
    >"$T/folded-api"
cmp "$T/folded" "$T/folded-api" || fail "tree --folded differs from the API"
[ -s "$T/folded" ] || fail "tree --folded is empty"
ok "tree --folded equals GET /v1/tree?format=folded"

# tree --json is the API's JSON; the text tree has a line per node.
"$PROFCTL" tree --scope fx --metric cpu --json >"$T/tree.json"
body_of "$(api GET "/v1/tree?scope=fx&metric=cpu")" >"$T/tree-api.json"
same_json "tree --json" "$T/tree.json" "$T/tree-api.json"
count_nodes() {
	python3 -c '
import json, sys
def n(x): return 1 + sum(n(c) for c in x["children"])
print(n(json.load(open(sys.argv[1]))["root"]))' "$1"
}
# The text tree: a line per node of the JSON tree with the same fraction,
# 0.005 unless told (pprof -tree's default), and every node with 0.
"$PROFCTL" tree --scope fx --metric cpu --json --min-fraction 0.005 \
    >"$T/tree-trim.json" || fail "tree --json --min-fraction 0.005"
for f in default 0; do
	if [ "$f" = default ]; then
		"$PROFCTL" tree --scope fx --metric cpu >"$T/tree.txt" ||
		    fail "tree"
		nodes=$(count_nodes "$T/tree-trim.json")
	else
		"$PROFCTL" tree --scope fx --metric cpu --min-fraction "$f" \
		    >"$T/tree.txt" || fail "tree --min-fraction $f"
		nodes=$(count_nodes "$T/tree.json")
	fi
	lines=$(grep -c . "$T/tree.txt")
	# Scope, Type and the column header above the nodes.
	[ "$lines" -eq $((nodes + 3)) ] ||
	    fail "tree ($f): $lines lines for $nodes nodes"
	grep -q '^ *[0-9.a-z]* *100% .*  root$' "$T/tree.txt" ||
	    fail "tree ($f): no root line"
done
trimmed=$(count_nodes "$T/tree-trim.json")
[ "$trimmed" -lt "$nodes" ] ||
    fail "tree: 0.005 kept all $nodes nodes; the test proves nothing"
ok "tree --json and the text tree ($nodes nodes, $trimmed over 0.5%)"

# diff: a table with rows, and --json equals the API's.
"$PROFCTL" diff --scope fx --metric cpu --base-scope fx --base-ignore 'main\.' \
    --limit 5 >"$T/diff.txt" || fail "diff"
grep -q '^ *BASE *CURRENT *DELTA *DELTA%  NAME$' "$T/diff.txt" ||
    fail "diff: no header: $(cat "$T/diff.txt")"
rows=$(sed -n '/DELTA%/,$p' "$T/diff.txt" | tail -n +2 | wc -l)
[ "$rows" -ge 1 ] && [ "$rows" -le 5 ] || fail "diff: $rows rows"
"$PROFCTL" diff --scope fx --metric cpu --base-scope fx --base-ignore 'main\.' \
    --limit 5 --json >"$T/diff.json"
body_of "$(api GET "/v1/diff?scope=fx&metric=cpu&base.scope=fx&base.ignore=main%5C.&limit=5")" \
    >"$T/diff-api.json"
same_json "diff --json" "$T/diff.json" "$T/diff-api.json"
"$PROFCTL" diff --scope fx 2>/dev/null && fail "diff without --base-scope"
"$PROFCTL" flamegraph --scope fx --metric cpu --base-scope fx \
    --base-ignore 'main\.' -o "$T/diff.svg" || fail "flamegraph --base-scope"
grep -q 'data-diff="1"' "$T/diff.svg" || fail "flamegraph: not differential"
ok "diff ($rows rows) and the differential flame graph"

# export: only where the daemon has it.
r=$(api GET "/v1/export?scope=fx&metric=cpu" -o /dev/null)
if [ "$(status_of "$r")" = 404 ]; then
	echo "skip: export (GET /v1/export answers 404)"
else
	"$PROFCTL" export --scope fx --metric cpu -o "$T/out.pb.gz" ||
	    fail "export"
	curl -s --unix-socket "$SOCK" \
	    "http://localhost/v1/export?scope=fx&metric=cpu" >"$T/out-api.pb.gz"
	cmp "$T/out.pb.gz" "$T/out-api.pb.gz" || fail "export differs"
	gzip -t "$T/out.pb.gz" || fail "export is not gzip"
	ls "$T"/out.pb.gz.* >/dev/null 2>&1 && fail "export left a temp file"
	ok "export writes the daemon's bytes"
fi

# query: only where the daemon has it.
r=$(api POST "/v1/query" -H 'Content-Type: text/plain' \
    --data-binary 'SELECT 1 AS one')
if [ "$(status_of "$r")" = 404 ]; then
	echo "skip: query (POST /v1/query answers 404)"
else
	[ "$(status_of "$r")" = 200 ] || fail "POST /v1/query: $r"
	out=$("$PROFCTL" query "SELECT 1 AS one, 'a,b' AS two, NULL AS three" \
	    2>"$T/query.err") || fail "query"
	[ "$out" = "$(printf 'one  two  three\n  1  a,b  NULL')" ] ||
	    fail "query table: $out"
	grep -qx '(1 row)' "$T/query.err" || fail "query: $(cat "$T/query.err")"
	out=$("$PROFCTL" query --csv "SELECT 1 AS one, 'a,b' AS two, NULL AS three" |
	    tr -d '\r')
	[ "$out" = "$(printf 'one,two,three\n1,"a,b",')" ] ||
	    fail "query csv: $out"
	"$PROFCTL" query --max-rows 1 \
	    "SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3" >/dev/null \
	    2>"$T/query.err" || fail "query --max-rows"
	grep -qx '(truncated at 1 rows)' "$T/query.err" ||
	    fail "query --max-rows: $(cat "$T/query.err")"
	"$PROFCTL" query --json "SELECT 2 AS two" | json 'j["rows"]' |
	    grep -qx '\[\[2\]\]' || fail "query --json"
	ok "query as a table, CSV and JSON"
fi

# timeline: only where the daemon has it.
r=$(api GET "/v1/timeline?scope=fx&metric=cpu")
if [ "$(status_of "$r")" = 404 ]; then
	echo "skip: timeline (GET /v1/timeline answers 404)"
else
	[ "$(status_of "$r")" = 200 ] || fail "GET /v1/timeline: $r"
	"$PROFCTL" timeline --scope fx --metric cpu --json >"$T/tl.json"
	body_of "$r" >"$T/tl-api.json"
	same_json "timeline --json" "$T/tl.json" "$T/tl-api.json"
	"$PROFCTL" timeline --scope fx --metric cpu >"$T/tl.txt" ||
	    fail "timeline"
	[ "$(wc -l <"$T/tl.txt")" -eq 2 ] || fail "timeline: $(cat "$T/tl.txt")"
	grep -q ' max ' "$T/tl.txt" || fail "timeline: no max"
	head -n 1 "$T/tl.txt" | has '█' || fail "timeline: no full block"
	ok "timeline as a sparkline"
fi
