# A store written by profd at schema version 13 (tests/fixtures/
# store-v13.sql.gz, main 4ccb555f: cpu.pprof to svc-a with env=prod;
# heap.pprof, mutex.pprof and a folded file to svc-b) is upgraded when
# profd opens it (issue 41, store growth): frame_key, the unique index on
# every column of frame, is replaced by frame_hash (schema 16), which is
# dropped in turn (schema 17): frame has no index, and the writer finds
# every old frame in its map of them, read from the table (the same
# profiles pushed again make no frame and no callsite, before and after a
# restart, and no frame is stored twice); the old callsite chunks stay
# plain beside new packed ones (cschunk.h), and every answer of
# store-v13.answers is byte for byte what that profd answered.
. "$(dirname "$0")/lib.sh"

store_from_dump store-v13.sql.gz 13

# No two frames of the same six columns (no unique index says so now).
frames_unique() {
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM frame")" = \
	    "$(sqlite3 "$DB" "SELECT count(*) FROM (SELECT DISTINCT
	    function_id, mapping_id, address, line, col, flags FROM frame)")" ] ||
		fail "frames stored twice: $(sqlite3 "$DB" "SELECT count(*)
		    FROM frame") rows, $(sqlite3 "$DB" "SELECT count(*) FROM
		    (SELECT DISTINCT function_id, mapping_id, address, line,
		    col, flags FROM frame)") distinct"
}
frames=$(sqlite3 "$DB" "SELECT count(*) FROM frame")
# (The callsites view needs profd's virtual table: the chunks' bytes are
# what the shell can compare.)
chunks=$(sqlite3 "$DB" "SELECT last_id, first_id, count, hex(data) FROM
    callsite_chunk ORDER BY last_id" | sha256sum)
[ "$(sqlite3 "$DB" "SELECT count(*) FROM callsite_chunk WHERE
    substr(data, 1, 1) != x'01'")" = 0 ] ||
    fail "the fixture has chunks that are not plain"

start_profd
last=$(ls "$TESTS_DIR/../schema" | sed -n 's/^0*\([0-9][0-9]*\)-.*\.sql$/\1/p' | sort -n | tail -1)
[ "$(sqlite3 "$DB" "PRAGMA user_version")" = "$last" ] ||
    fail "user_version $(sqlite3 "$DB" "PRAGMA user_version")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM sqlite_master WHERE
    tbl_name = 'frame' AND type = 'index'")" = 0 ] ||
    fail "frame's indexes: $(sqlite3 "$DB" "SELECT group_concat(name)
    FROM sqlite_master WHERE tbl_name = 'frame' AND type = 'index'")"
ok "upgraded to $last: frame has no index (frame_key, then frame_hash gone)"
[ "$(sqlite3 "$DB" "SELECT last_id, first_id, count, hex(data) FROM
    callsite_chunk ORDER BY last_id" | sha256sum)" = "$chunks" ] ||
    fail "the upgrade rewrote callsite chunks"
check_answers "$FIXTURES/store-v13.answers" 7

c=$(cs_count)
out=$("$PROFCTL" push "$FIXTURES/cpu.pprof" "$FIXTURES/heap.pprof" --scope again) ||
    fail "push of the fixtures again: $out"
[ "$(cs_count)" = "$c" ] || fail "the same profiles made $(($(cs_count) - c)) new callsites"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM frame")" = "$frames" ] ||
    fail "the same profiles made $(($(sqlite3 "$DB" "SELECT count(*) FROM frame") - frames)) new frames"
ok "the fixtures pushed again make no frame ($frames) and no callsite ($c)"

# New callsites: a packed chunk (first byte 0) beside the old plain ones.
out=$("$PROFCTL" push "$FIXTURES/block.pprof" --scope svc-c) ||
    fail "push after the upgrade: $out"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM callsite_chunk WHERE
    substr(data, 1, 1) = x'00'")" -ge 1 ] ||
    fail "no packed chunk after a push of new callsites: $(sqlite3 "$DB" \
    "SELECT last_id, count, hex(substr(data, 1, 4)) FROM callsite_chunk")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM frame")" -gt "$frames" ] ||
    fail "block.pprof made no frame"
frames_unique
r=$(api GET "/v1/top?scope=svc-c&metric=delay")
[ "$(status_of "$r")" = 200 ] && [ "$(body_of "$r" | json 'j["total"]')" = \
    "$(sed -n 's/^#total\t//p' "$FIXTURES/expected/block.delay.tsv")" ] ||
    fail "top after the push: $r"
check_answers "$FIXTURES/store-v13.answers" 7
ok "packed and plain chunks read side by side; frames unique"

stop_profd
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
# Read again from the chunks alone (a fresh profd loads its maps of
# callsites and frames from the chunks and the frame rows).
start_profd
check_answers "$FIXTURES/store-v13.answers" 7
c=$(cs_count)
f=$(sqlite3 "$DB" "SELECT count(*) FROM frame")
out=$("$PROFCTL" push "$FIXTURES/block.pprof" "$FIXTURES/cpu.pprof" --scope svc-d) ||
    fail "push of block.pprof and cpu.pprof again: $out"
[ "$(cs_count)" = "$c" ] || fail "block.pprof again made $(($(cs_count) - c)) new callsites"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM frame")" = "$f" ] ||
    fail "block.pprof again made $(($(sqlite3 "$DB" "SELECT count(*) FROM frame") - f)) new frames"
frames_unique
stop_profd
ok "a restarted profd reads the packed chunks and finds every frame: block.pprof and cpu.pprof again make no callsite and no frame"
