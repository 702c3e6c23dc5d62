# A store written by profd at schema version 4 (tests/fixtures/
# store-v4-windows.sql.gz: 120 one-minute CPU profiles across hours and a
# day boundary, and the cpu, heap and mutex fixtures) is upgraded when
# profd opens it: its rollups are made again as runs with their profile
# lists, and its per-bucket totals from the blocks.  Every answer of
# store-v4-windows.answers (top, tree, timeline, export; rollups, blocks
# and totals) is byte for byte what profd answered before the upgrade
# (its SHA-256 and length), and pushes go on from there.  Its callsite
# rows become chunks (schema 7): the same count and sums, the same
# callsites view, and a profile pushed again makes none.
. "$(dirname "$0")/lib.sh"

store_from_dump store-v4-windows.sql.gz 4
cs_before

start_profd
[ "$(sqlite3 "$DB" "SELECT count(*) FROM pragma_table_info('rollup')
    WHERE name = 'profiles'")" = 1 ] || fail "rollup has no profile lists"
[ "$(sqlite3 "$DB" "SELECT count(DISTINCT profile_id) FROM sample_total")" = 123 ] ||
    fail "totals: $(sqlite3 "$DB" "SELECT count(DISTINCT profile_id) FROM sample_total") profiles"
ok "upgraded to $(sqlite3 "$DB" "PRAGMA user_version")"
cs_after

check_answers "$FIXTURES/store-v4-windows.answers" 15

# Rollups against a filter no row fails (blocks only), after the upgrade.
for m in cpu samples; do
	a=$(api GET "/v1/top?scope=svc&metric=$m")
	b=$(api GET "/v1/top?scope=svc&metric=$m&label=no-such-label!=1")
	[ "$(body_of "$a")" = "$(body_of "$b")" ] ||
	    fail "top $m: rollups and blocks disagree"
done
ok "rollups made again agree with the blocks"

out=$("$PROFCTL" push "$FIXTURES/block.pprof" --scope svc-b) ||
    fail "push after the upgrade: $out"
r=$(api GET "/v1/top?scope=svc-b&metric=delay")
[ "$(status_of "$r")" = 200 ] && [ "$(body_of "$r" | json 'j["profiles"]')" = 2 ] ||
    fail "top after the push: $r"
ok "pushes go on after the upgrade"

# The cpu fixture again, in a scope of its own: every callsite it needs
# is there already.
n=$(cs_count)
out=$("$PROFCTL" push "$FIXTURES/cpu.pprof" --scope again) ||
    fail "push of the cpu fixture again: $out"
[ "$(cs_count)" = "$n" ] || fail "the same profile made $(($(cs_count) - n)) new callsites"
ok "the cpu fixture pushed again makes no new callsite ($n)"

stop_profd
ok "stopped cleanly"
