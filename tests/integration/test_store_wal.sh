#!/usr/bin/env bash
# The WAL stays bounded under steady pushes and queries: 700 distinct
# profiles (about 50 MB of WAL frames if nothing were checkpointed) while a
# client queries without pause; the -wal file never passes its bound (the
# writer waits for a checkpoint past 4000 pages, about 16 MiB), the
# database file takes the pages while profd runs, and a clean exit (SIGTERM)
# checkpoints and removes the WAL and the shared-memory file.
source "$TESTS_DIR/integration/lib.sh"

N=700
BOUND=$((20 << 20))

# Distinct blobs of one real profile: the raw protobuf with an unknown
# field (skipped by the decoder) holding a counter, and one more sample
# of its own (the store keeps equal blocks' data once: each must write).
mkdir "$T/p"
python3 "$TESTS_DIR/tools/distinct_pprof.py" --values 2 "$FIXTURES/cpu.pprof" \
    "$T/p" "$N"

start_profd
db0=$(stat -c %s "$DB")
# Queries while the pushes go on: readers in the checkpoints' way.
(
	while [ ! -e "$T/stop" ]; do
		curl -s --unix-socket "$SOCK" \
		    "http://localhost/v1/top?scope=s1&limit=5" >/dev/null
	done
) &
qpid=$!
max=0
for i in $(seq 0 $((N - 1))); do
	code=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" \
	    -X POST --data-binary "@$T/p/$i.pb" \
	    "http://localhost/v1/profiles?scope=s$((i % 4))")
	[ "$code" = 201 ] || fail "push $i: HTTP $code"
	w=$(stat -c %s "$DB-wal" 2>/dev/null || echo 0)
	[ "$w" -gt "$max" ] && max=$w
done
touch "$T/stop"
wait "$qpid" || true
db=$(stat -c %s "$DB")
[ "$max" -le "$BOUND" ] ||
	fail "the WAL grew to $max bytes over $N pushes (bound $BOUND)"
# (Only checkpoints grow the file: 700 of these profiles take about
# 700 kB of pages, their sample blocks deflated.)
[ "$db" -gt $((db0 + (256 << 10))) ] ||
	fail "the database file is $db bytes ($db0 at the start): nothing was checkpointed"
ok "$N pushes with queries: WAL at most $max bytes, database $db bytes"

n=$(api GET /v1/scopes | sed '$d' |
    json 'sum(s["profiles"] for s in j["scopes"])')
[ "$n" = "$N" ] || fail "$n profiles stored, $N pushed"
stop_profd
[ ! -e "$DB-wal" ] || fail "the WAL is left after SIGTERM: $(ls -l "$DB-wal")"
[ ! -e "$DB-shm" ] || fail "the -shm file is left after SIGTERM"
[ "$(stat -c %s "$DB")" -ge "$db" ] || fail "the database shrank at exit"
if command -v sqlite3 >/dev/null; then
	[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] ||
		fail "integrity_check after exit"
fi
ok "SIGTERM checkpointed and removed the WAL; $N profiles kept"
