#!/usr/bin/env bash
# The store's files are mode 0600 whatever the umask: a new store, its
# -wal and -shm while profd runs; a store an older profd left 0644 (with
# its -wal and -shm) is brought back to 0600.
source "$TESTS_DIR/integration/lib.sh"

modes() {
	local f out=
	for f in "$DB" "$DB-wal" "$DB-shm"; do
		out="$out $(stat -c %a "$f" 2>/dev/null || echo none)"
	done
	echo "${out# }"
}

umask 000
start_profd
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope m >/dev/null || fail "push"
[ "$(modes)" = "600 600 600" ] || fail "modes under umask 000: $(modes)"
ok "under umask 000 the store, -wal and -shm are 0600"
stop_profd

# A store an older profd left 0644 when it was killed (with its -wal and
# -shm): the next start makes all three 0600.
umask 022
start_profd
"$PROFCTL" push "$FIXTURES/heap.pprof" --scope m >/dev/null || fail "push"
kill -KILL "$PROFD_PID"
wait "$PROFD_PID" 2>/dev/null || true
PROFD_PID=
chmod 0644 "$DB" "$DB-wal" "$DB-shm" || fail "no -wal or -shm after kill -9"
start_profd
[ "$(modes)" = "600 600 600" ] || fail "modes after a start on a 0644 store: $(modes)"
n=$(api GET "/v1/profiles?scope=m" | sed '$d' | json 'len(j["profiles"])')
[ "$n" = 2 ] || fail "$n profiles after the restart, expected 2"
ok "a 0644 store left by kill -9 is 0600 again, with its -wal and -shm"
stop_profd
