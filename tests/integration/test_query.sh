# POST /v1/query: the public views agree with /v1/top, the callsite tree
# can be walked, every kind of write is refused, one statement only, the
# time limit and the row cap hold, and profd keeps serving afterwards.
. "$(dirname "$0")/lib.sh"

start_profd

out=$(api POST '/v1/profiles?scope=svc-q&name=cpu.pprof' \
    --data-binary "@$FIXTURES/cpu.pprof")
[ "$(status_of "$out")" = 201 ] || fail "push cpu.pprof: $out"
ok "pushed cpu.pprof"

# q [PARAMS] SQL: POST the SQL; prints the body then the status.
q() {
	local params=
	if [ $# -gt 1 ]; then
		params="?$1"
		shift
	fi
	api POST "/v1/query$params" -H 'Content-Type: text/plain' \
	    --data-binary "$1"
}

# expect_400 WHAT SQL [PARAMS] [PATTERN]: the query is refused with a 400
# whose detail matches PATTERN (a grep -E pattern).
expect_400() {
	local what=$1 sql=$2 params=${3:-} pattern=${4:-.} r
	if [ -n "$params" ]; then
		r=$(q "$params" "$sql")
	else
		r=$(q "$sql")
	fi
	[ "$(status_of "$r")" = 400 ] || fail "$what: expected 400: $r"
	body_of "$r" | json 'j["detail"]' | grep -Eq -- "$pattern" ||
	    fail "$what: detail does not match /$pattern/: $r"
	ok "$what refused: $(body_of "$r" | json 'j["detail"]')"
}

# The shape of a reply.
r=$(q "SELECT 1 AS one, 2.5 AS two, 'x' AS three, NULL AS four, x'00ff' AS five")
[ "$(status_of "$r")" = 200 ] || fail "simple select: $r"
body_of "$r" | json 'j["columns"] == ["one","two","three","four","five"] and j["rows"] == [[1, 2.5, "x", None, "00ff"]] and j["truncated"] is False and isinstance(j["elapsed_ms"], float)' |
    grep -qx True || fail "reply shape: $r"
ok "reply shape"

# sum(value) over the cpu metric equals /v1/top's total.
top=$(api GET '/v1/top?scope=svc-q&metric=cpu')
[ "$(status_of "$top")" = 200 ] || fail "top: $top"
body_of "$top" >"$T/top.json"
total=$(json 'j["total"]' <"$T/top.json")
r=$(q "SELECT sum(value) FROM samples WHERE scope = 'svc-q' AND metric = 'cpu'")
[ "$(status_of "$r")" = 200 ] || fail "sum: $r"
got=$(body_of "$r" | json 'j["rows"][0][0]')
[ "$got" = "$total" ] || fail "sum(value) $got != top total $total"
ok "sum(value) = top total = $total"

# Flat per leaf function equals /v1/top's flat.
r=$(q "SELECT function, sum(value) AS flat FROM samples WHERE metric = 'cpu' GROUP BY function ORDER BY flat DESC")
[ "$(status_of "$r")" = 200 ] || fail "group by: $r"
body_of "$r" >"$T/flat.json"
python3 - "$T/top.json" "$T/flat.json" <<'PY' || fail "flat per function differs from /v1/top"
import json, sys
top = json.load(open(sys.argv[1]))
sql = json.load(open(sys.argv[2]))
want = {r["function"]: r["flat"] for r in top["rows"] if r["flat"] != 0}
got = {f: v for f, v in sql["rows"] if v != 0}
if want != got:
    for k in sorted(set(want) | set(got), key=str):
        if want.get(k) != got.get(k):
            print(k, want.get(k), got.get(k))
    sys.exit(1)
if not want:
    sys.exit("no rows")
PY
ok "flat per function = /v1/top"

# Walk the callsite tree from the leaf of the heaviest sample to the root:
# depths count down to 0 and the root has no parent.
r=$(q "WITH RECURSIVE up(id, parent, depth, function) AS (
	  SELECT c.callsite_id, c.parent_id, c.depth, c.function FROM callsites c
	  WHERE c.callsite_id = (SELECT callsite_id FROM samples
	      WHERE metric = 'cpu' ORDER BY value DESC LIMIT 1)
	  UNION ALL
	  SELECT c.callsite_id, c.parent_id, c.depth, c.function
	  FROM callsites c JOIN up ON c.callsite_id = up.parent)
	SELECT id, parent, depth, function FROM up")
[ "$(status_of "$r")" = 200 ] || fail "callsite chain: $r"
body_of "$r" | python3 -c '
import json, sys
rows = json.load(sys.stdin)["rows"]
assert len(rows) >= 2, rows
for i, (cid, parent, depth, fn) in enumerate(rows):
    assert depth == len(rows) - 1 - i, rows
    if i + 1 < len(rows):
        assert parent == rows[i + 1][0], rows
assert rows[-1][1] is None and rows[-1][2] == 0, rows
' || fail "callsite chain is not a path to the root: $r"
ok "callsite parent chain reaches the root"

# Every view answers and its columns are the documented ones.
for view in "samples:scope,profile_id,time_ns,metric,unit,value,callsite_id,function,file,line,depth,labelset_id" \
    "callsites:callsite_id,parent_id,depth,function,system_name,file,line,address,mapping,build_id,inlined" \
    "profiles:profile_id,scope,format,name,time_ns,duration_ns,imported_ns,samples,dropped_samples,period,bytes,dropped" \
    "profile_counts:profile_id,reason,count" \
    "profile_metrics:profile_id,metric,unit,kind,total,counted" \
    "profile_labels:profile_id,key,value" \
    "scopes:scope,profiles,first_time_ns,last_time_ns" \
    "labels:labelset_id,key,value,num,unit" \
    "metrics:metric_id,type,unit"; do
	name=${view%%:*}
	r=$(q "SELECT * FROM $name LIMIT 1")
	[ "$(status_of "$r")" = 200 ] || fail "view $name: $r"
	cols=$(body_of "$r" | json '",".join(j["columns"])')
	[ "$cols" = "${view#*:}" ] || fail "view $name has columns $cols"
done
r=$(q "SELECT profiles, first_time_ns > 0 FROM scopes WHERE scope = 'svc-q'")
body_of "$r" | json 'j["rows"]' | has -x '\[\[1, 1\]\]' ||
    fail "scopes view: $r"
r=$(q "SELECT count(*) FROM metrics WHERE type = 'cpu' AND unit = 'nanoseconds'")
body_of "$r" | json 'j["rows"][0][0]' | has -x 1 || fail "metrics view: $r"
ok "every view has its documented columns"

# Writes of every kind are refused; the data is unchanged afterwards.
expect_400 INSERT "INSERT INTO metric (type, unit) VALUES ('x', 'y')" "" \
    'not authorized|read-only'
expect_400 UPDATE "UPDATE profile SET name = 'x'" "" 'not authorized|read-only'
expect_400 DELETE "DELETE FROM profile" "" 'not authorized|read-only'
expect_400 DROP "DROP VIEW samples" "" 'not authorized|read-only'
expect_400 DROP "DROP TABLE sample" "" 'not authorized|read-only'
expect_400 CREATE "CREATE TABLE t (x)" "" 'not authorized|read-only'
expect_400 "CREATE TEMP" "CREATE TEMP TABLE t (x)" "" \
    'not authorized|read-only'
expect_400 ATTACH "ATTACH DATABASE '$T/other.db' AS o" "" \
    'not authorized|read-only|too many'
expect_400 "writable PRAGMA" "PRAGMA user_version = 7" "" \
    'not authorized|read-only'
expect_400 "PRAGMA journal_mode" "PRAGMA journal_mode = DELETE" "" \
    'not authorized|read-only'
expect_400 load_extension "SELECT load_extension('x')" "" 'not authorized'
expect_400 BEGIN "BEGIN" "" 'not authorized|read-only'
expect_400 VACUUM "VACUUM INTO '$T/copy.db'" "" 'not authorized|read-only'
[ ! -e "$T/copy.db" ] || fail "VACUUM INTO wrote a file"
[ ! -e "$T/other.db" ] || fail "ATTACH created a file"
expect_400 "two statements" "SELECT 1; DELETE FROM sample" "" \
    'only one SQL statement'
expect_400 "two selects" "SELECT 1; SELECT 2;" "" 'only one SQL statement'
r=$(q "SELECT 1; -- a comment
	")
[ "$(status_of "$r")" = 200 ] || fail "a trailing comment was refused: $r"
r=$(q "PRAGMA table_info(samples)")
[ "$(status_of "$r")" = 200 ] || fail "PRAGMA table_info: $r"
r=$(q "SELECT key, value FROM json_each('{\"a\": 1}')")
[ "$(status_of "$r")" = 200 ] || fail "json_each: $r"
r=$(q "SELECT sum(value) FROM samples WHERE metric = 'cpu'")
[ "$(body_of "$r" | json 'j["rows"][0][0]')" = "$total" ] ||
    fail "the data changed: $r"
ok "read-only pragmas and json_each are allowed; the data is unchanged"

# Errors of the statement itself.
expect_400 "syntax error" "SELEC 1" "" 'syntax error'
expect_400 "unknown table" "SELECT * FROM nope" "" 'no such table'
expect_400 "empty statement" " -- nothing" "" 'no SQL statement'
r=$(api POST /v1/query)
[ "$(status_of "$r")" = 400 ] || fail "empty body: $r"
expect_400 "bad max_rows" "SELECT 1" "max_rows=-1" 'max_rows'
expect_400 "max_rows too large" "SELECT 1" "max_rows=1000001" 'max_rows'
expect_400 "bad timeout_ms" "SELECT 1" "timeout_ms=60001" 'timeout_ms'
expect_400 "unknown parameter" "SELECT 1" "scope=svc-q" 'not a parameter'
r=$(api GET /v1/query)
[ "$(status_of "$r")" = 405 ] || fail "GET /v1/query: $r"

# A query that never ends hits the time limit: 503 (not the client's
# fault), naming the limit; that it answers at all is the check (how
# soon is the machine's speed: bench/).
r=$(q "timeout_ms=200" "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r")
[ "$(status_of "$r")" = 503 ] || fail "endless recursive CTE: expected 503: $r"
body_of "$r" | json 'j["detail"]' |
    has -x 'the query ran longer than its time limit (timeout_ms = 200)' ||
    fail "the time limit's error does not name it: $r"
ok "endless recursive CTE: 503 $(body_of "$r" | json 'j["detail"]')"

# The row cap.
r=$(q "max_rows=5" "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100) SELECT n FROM r")
[ "$(status_of "$r")" = 200 ] || fail "max_rows: $r"
body_of "$r" | json 'j["rows"] == [[1],[2],[3],[4],[5]] and j["truncated"] is True' |
    grep -qx True || fail "max_rows=5: $r"
r=$(q "max_rows=100" "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100) SELECT n FROM r")
body_of "$r" | json 'len(j["rows"]) == 100 and j["truncated"] is False' |
    grep -qx True || fail "max_rows=100 of 100 rows: $r"
ok "max_rows truncates and says so"

# Still serving: health, top and a query.
api GET /v1/health | tail -n 1 | has -x 200 || fail "health after queries"
[ "$(status_of "$(api GET '/v1/top?scope=svc-q&metric=cpu')")" = 200 ] ||
    fail "top after queries"
r=$(q "SELECT count(*) FROM profiles")
body_of "$r" | json 'j["rows"][0][0]' | has -x 1 || fail "query after: $r"
ok "profd still serves"

stop_profd
ok "stopped cleanly"
