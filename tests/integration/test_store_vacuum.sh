#!/usr/bin/env bash
# Deleting profiles gives disk space back: the store runs with
# auto_vacuum = INCREMENTAL, and the retention pass after a delete moves
# the free pages out of the file.  A store made without it (by an older
# profd) is rebuilt once at start and keeps every profile.
source "$TESTS_DIR/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3"; exit 77; }

# Profiles with values of their own: blocks alike would share their data
# (schema 13), and deleting two scopes of them would give little back.
mkdir "$T/p"
python3 "$TESTS_DIR/tools/distinct_pprof.py" --values 2 "$FIXTURES/cpu.pprof" \
    "$T/p" 300
passes() { api GET /v1/health | sed '$d' | json 'j["retention"]["passes"]'; }
nprofiles() {
	api GET "/v1/profiles?scope=$1" | sed '$d' | json 'len(j["profiles"])'
}

start_profd
for i in $(seq 0 299); do
	code=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" \
	    -X POST --data-binary "@$T/p/$i.pb" \
	    "http://localhost/v1/profiles?scope=s$((i % 3))")
	[ "$code" = 201 ] || fail "push $i: HTTP $code"
done
stop_profd
[ "$(sqlite3 "$DB" 'PRAGMA auto_vacuum')" = 2 ] ||
	fail "auto_vacuum is $(sqlite3 "$DB" 'PRAGMA auto_vacuum'), not 2 (incremental)"
full=$(stat -c %s "$DB")

start_profd --retention-interval 1
"$PROFCTL" delete --scope s0 >/dev/null || fail "delete s0"
"$PROFCTL" delete --scope s1 >/dev/null || fail "delete s1"
# The deletes ask for a collection: the next whole pass after them
# collects, then vacuums (the pass that ends next may have begun before
# them: the one after it).
p0=$(passes)
two_passes() { [ "$(passes)" -ge $((p0 + 2)) ]; }
WAIT_S=300 wait_until "two retention passes after the deletes" two_passes
stop_profd
after=$(stat -c %s "$DB")
[ "$(sqlite3 "$DB" 'PRAGMA freelist_count')" = 0 ] ||
	fail "free pages left: $(sqlite3 "$DB" 'PRAGMA freelist_count')"
[ $((after * 10)) -lt $((full * 7)) ] ||
	fail "the store is $after bytes after deleting 2 of 3 scopes ($full before)"
ok "deleting 2 of 3 scopes: the file $full -> $after bytes, no free page left"

# A store without auto_vacuum, as older profds made them.
sqlite3 "$DB" 'PRAGMA auto_vacuum = NONE; VACUUM' >/dev/null
[ "$(sqlite3 "$DB" 'PRAGMA auto_vacuum')" = 0 ] || fail "setup: auto_vacuum"
start_profd
[ "$(nprofiles s2)" = 100 ] || fail "$(nprofiles s2) profiles after the rebuild"
stop_profd
[ "$(sqlite3 "$DB" 'PRAGMA auto_vacuum')" = 2 ] ||
	fail "an older store was not made incremental"
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
ok "a store without auto_vacuum is rebuilt at start, its 100 profiles kept"
