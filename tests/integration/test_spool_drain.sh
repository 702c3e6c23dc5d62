#!/usr/bin/env bash
# The spool's backlog drains with a rate and a time left (issue 31): a
# detached profd with a spool; 300 distinct profiles dropped into it
# while the store is locked (so all wait), then the lock released.  The
# status shows the waiting bytes with no rate before any file is done,
# then drain_bytes_per_s and an eta_s that covers the waiting bytes at
# that rate, and `profctl status` "about ... left"; at the end nothing
# waits and eta_s is null.  tests/tools/drain_status.py does the dropping
# and the asking.
. "$(dirname "$0")/lib.sh"

SP="$T/spool"
mkdir -p "$SP"
"$PROFD" --no-config --spool "$SP" --socket "$SOCK" --db "$DB" \
    >>"$T/profd.log" 2>&1 || fail "profd did not detach"
wait_until "profd to answer" curl -sf --unix-socket "$SOCK" \
    http://localhost/v1/health -o /dev/null
detached_pid=$(api GET /v1/status | sed '$d' | json 'j["pid"]')
trap 'kill "$detached_pid" 2>/dev/null || true; cleanup || true' EXIT
# The store's tables, for the lock to take.
r=$(api POST "/v1/profiles?scope=first" --data-binary @"$FIXTURES/heap.pprof")
[ "$(status_of "$r")" = 201 ] || fail "first push: $r"

python3 "$TESTS_DIR/tools/drain_status.py" spool \
    "$SOCK" "$DB" "$SP" "$FIXTURES/cpu.pprof" 300 "$PROFCTL" ||
	fail "the spool's drain in the status"
[ "$(api GET "/v1/profiles?scope=drain" | sed '$d' |
    json 'len(j["profiles"])')" = 300 ] || fail "not 300 profiles stored"
ok "300 spool files stored once"

kill -TERM "$detached_pid"
WAIT_S=60 wait_until "the detached profd to stop" \
    sh -c "! kill -0 $detached_pid 2>/dev/null"
ok "the detached profd stopped"
