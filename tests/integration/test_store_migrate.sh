# A store of schema version 2 (profd 0.1.0, whose sample table had a row
# per value; tests/fixtures/store-v2.sql.gz is its .dump) is upgraded when
# profd opens it: every row of the old sample table is in the sample table
# of version 3 once, with its value; top of the cpu fixture in it equals go
# tool pprof's; the rollups made from the old rows agree with the rows
# (top over all time, answered from rollups, equals top with a label filter
# that every row passes, which only the blocks can answer); new pushes go
# on from there.
. "$(dirname "$0")/lib.sh"

store_from_dump store-v2.sql.gz 2
sqlite3 -separator ' ' "$DB" "SELECT profile_id, metric_id, callsite_id,
    labelset_id, bucket, value FROM sample WHERE value != 0
    ORDER BY 1, 2, 3, 4, 5" >"$T/before.txt"
[ "$(wc -l <"$T/before.txt")" -gt 1000 ] || fail "the dump has few rows"
cs_before

start_profd
last=$(ls "$TESTS_DIR/../schema" | sed -n 's/^0*\([0-9][0-9]*\)-.*\.sql$/\1/p' | sort -n | tail -1)
[ "$(sqlite3 "$DB" "PRAGMA user_version")" = "$last" ] ||
    fail "user_version after the upgrade: $(sqlite3 "$DB" "PRAGMA user_version")"
cs_after
r=$(api POST '/v1/query?max_rows=1000000' --data-binary "SELECT profile_id,
    metric_id, callsite_id, labelset_id, bucket, value FROM sample
    ORDER BY 1, 2, 3, 4, 5")
[ "$(status_of "$r")" = 200 ] || fail "query: $r"
body_of "$r" | json '"\n".join(" ".join(str(x) for x in row) for row in j["rows"])' \
    >"$T/after.txt"
diff "$T/before.txt" "$T/after.txt" >/dev/null ||
    fail "the sample rows changed: $(diff "$T/before.txt" "$T/after.txt" | head -5)"
ok "$(wc -l <"$T/before.txt") sample rows kept, each once"

# The cpu fixture (pushed to svc-a before the upgrade) as pprof sees it.
"$PROFCTL" top --scope svc-a --metric cpu --json >"$T/top.json" ||
    fail "top svc-a"
python3 - "$FIXTURES/expected/cpu.cpu.tsv" "$T/top.json" <<'PY' || fail "top of the migrated cpu profile differs from pprof"
import json, sys
want, total = [], None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("#total\t"):
        total = int(line.split("\t")[1])
        continue
    name, flat, cum = line.rsplit("\t", 2)
    want.append((name, int(flat), int(cum)))
got = json.load(open(sys.argv[2]))
rows = [(r["function"], r["flat"], r["cum"]) for r in got["rows"]]
sys.exit(0 if got["total"] == total and rows == want else 1)
PY
ok "top of the migrated cpu profile equals go tool pprof -top"

# All time (rollups) against a filter no row fails (the blocks), for every
# scope and metric.
for q in "svc-a cpu" "svc-a samples" "svc-b contentions" "svc-b delay" \
    "trace wall_time" "svc-b samples"; do
	set -- $q
	a=$(api GET "/v1/top?scope=$1&metric=$2")
	b=$(api GET "/v1/top?scope=$1&metric=$2&label=no-such-label!=1")
	[ "$(status_of "$a")" = 200 ] && [ "$(status_of "$b")" = 200 ] ||
	    fail "top $q: $a $b"
	[ "$(body_of "$a" | json '[j["total"], j["profiles"], j["rows"]]')" = \
	    "$(body_of "$b" | json '[j["total"], j["profiles"], j["rows"]]')" ] ||
	    fail "top $q: rollups and blocks disagree"
	[ "$(body_of "$a" | json 'j["total"] > 0')" = True ] ||
	    fail "top $q is empty"
done
ok "rollups made from the old rows agree with the rows"

out=$("$PROFCTL" push "$FIXTURES/heap.pprof" --scope svc-a) ||
    fail "push after the upgrade: $out"
"$PROFCTL" top --scope svc-a --metric alloc_space --json >"$T/heap.json" ||
    fail "top after the upgrade"
[ "$(json 'j["total"]' <"$T/heap.json")" = \
    "$(sed -n 's/^#total\t//p' "$FIXTURES/expected/heap.alloc_space.tsv")" ] ||
    fail "heap pushed after the upgrade: wrong total"
ok "pushes go on after the upgrade"

# The cpu fixture again, in a scope of its own: no new callsite.
n=$(cs_count)
out=$("$PROFCTL" push "$FIXTURES/cpu.pprof" --scope again) ||
    fail "push of the cpu fixture again: $out"
[ "$(cs_count)" = "$n" ] || fail "the same profile made $(($(cs_count) - n)) new callsites"
ok "the cpu fixture pushed again makes no new callsite ($n)"

stop_profd
ok "stopped cleanly"
