# A store written by profd at schema version 6 (tests/fixtures/
# store-v6.sql.gz: block.pprof pushed to a scope then deleted and its rows
# collected, so callsite ids have gaps; cpu.pprof to svc-a with env=prod;
# heap.pprof, mutex.pprof and a folded file to svc-b) is upgraded when
# profd opens it: its callsite rows become chunks (schema 7) with the same
# count and sums, the callsites view reads the same row for row, every
# answer of store-v6.answers (top, tree, export) is byte for byte what
# profd answered before the upgrade, the same profile pushed again makes
# no callsite, and new ones go on after the largest id; the old blocks
# stay as they were (version 1) beside new, deflated ones (issue 29),
# their data moved to block_data and counted (schema 13, issue 41).
. "$(dirname "$0")/lib.sh"

store_from_dump store-v6.sql.gz 6
cs_before
max=$(sqlite3 "$DB" "SELECT max(id) FROM callsite")
[ "$max" -gt "$(sqlite3 "$DB" "SELECT count(*) FROM callsite")" ] ||
    fail "the fixture's callsite ids have no gap"

start_profd
# Upgraded to schema 7 and on to the latest.
last=$(ls "$TESTS_DIR/../schema" | sed -n 's/^0*\([0-9][0-9]*\)-.*\.sql$/\1/p' | sort -n | tail -1)
[ "$(sqlite3 "$DB" "PRAGMA user_version")" = "$last" ] ||
    fail "user_version $(sqlite3 "$DB" "PRAGMA user_version")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM sqlite_master WHERE name IN
    ('callsite', 'callsite_v6', 'callsite_key')")" = 0 ] ||
    fail "the old callsite table or its index is left"
ok "upgraded to 7"
cs_after

check_answers "$FIXTURES/store-v6.answers" 7

# (Not the heap fixture: the collection before the dump took some of its
# callsites, which a push makes again.)
c=$(cs_count)
out=$("$PROFCTL" push "$FIXTURES/cpu.pprof" --scope again) ||
    fail "push of the cpu fixture again: $out"
[ "$(cs_count)" = "$c" ] || fail "the same profile made $(($(cs_count) - c)) new callsites"
ok "the cpu fixture pushed again makes no new callsite ($c)"

out=$("$PROFCTL" push "$FIXTURES/block.pprof" --scope svc-c) ||
    fail "push after the upgrade: $out"
r=$(api POST '/v1/query' --data-binary "SELECT min(c.callsite_id),
    count(*) FROM samples s JOIN callsites c USING (callsite_id)
    WHERE s.scope = 'svc-c'")
[ "$(status_of "$r")" = 200 ] || fail "query: $r"
[ "$(body_of "$r" | json "j['rows'][0][0] > $max and j['rows'][0][1] > 0")" = True ] ||
    fail "new callsites not after the largest old id $max: $(body_of "$r")"
r=$(api GET "/v1/top?scope=svc-c&metric=delay")
[ "$(status_of "$r")" = 200 ] && [ "$(body_of "$r" | json 'j["total"]')" = \
    "$(sed -n 's/^#total\t//p' "$FIXTURES/expected/block.delay.tsv")" ] ||
    fail "top after the push: $r"
ok "pushes go on after the upgrade, new ids after $max"

# Schema 11 and deflated blocks (issue 29): the index is gone; the old
# store's blocks stay version 1, the new ones are version 2 (deflated),
# side by side, and the old answers are still the same.
[ "$(sqlite3 "$DB" "SELECT count(*) FROM sqlite_master WHERE
    name = 'profile_metric_metric'")" = 0 ] ||
    fail "profile_metric_metric is left after the upgrade"
v1=$(sqlite3 "$DB" "SELECT count(*) FROM sample_block b JOIN block_data d
    ON d.id = b.data_id WHERE substr(d.data, 1, 1) = x'01'")
v2=$(sqlite3 "$DB" "SELECT count(*) FROM sample_block b JOIN block_data d
    ON d.id = b.data_id WHERE substr(d.data, 1, 1) = x'02'")
[ "$v1" -gt 0 ] && [ "$v2" -gt 0 ] ||
    fail "blocks: $v1 of version 1, $v2 of version 2"
check_answers "$FIXTURES/store-v6.answers" 7
ok "old blocks ($v1) and deflated new ones ($v2) read side by side"

# Schema 13 (issue 41): every block's data a row of block_data, hashed,
# named by exactly as many blocks as it counts.
[ "$(sqlite3 "$DB" "SELECT count(*) FROM block_data d WHERE hash = 0 OR
    refs != (SELECT count(*) FROM sample_block WHERE data_id = d.id)")" = 0 ] ||
    fail "block_data: rows unhashed or counted wrong after the upgrade"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM sample_block b WHERE NOT EXISTS
    (SELECT 1 FROM block_data WHERE id = b.data_id)")" = 0 ] ||
    fail "blocks without their data after the upgrade"
ok "block data moved, hashed and counted (schema 13)"

stop_profd
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
ok "stopped cleanly"
