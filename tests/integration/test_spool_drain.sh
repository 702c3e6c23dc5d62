#!/usr/bin/env bash
# The spool's backlog drains with a rate and a time left (issue 31).
# Files dropped into the spool while the store is locked all wait: before
# any file is done the status shows the waiting bytes with no rate; once
# a few were stored, 300 more held the same way show drain_bytes_per_s
# and an eta_s that covers the waiting bytes at that rate, and `profctl
# status` "about ... left"; released, they drain, and at the end nothing
# waits and eta_s is null.  tests/tools/drain_status.py does the dropping
# and the asking.
#
# profd runs detached, as contrib/demo.sh starts it: the lock the test
# takes beside it must hold its imports back.  (A detached profd once
# carried its store's connections across daemon(3)'s fork, whose SQLite
# locks stayed with the parent: a lock beside it held nothing back, and
# the files were stored while they should have waited.)
. "$(dirname "$0")/lib.sh"

SP="$T/spool"
mkdir -p "$SP"
start_profd_detached --spool "$SP"
# The store's tables, for the lock to take.
r=$(api POST "/v1/profiles?scope=first" --data-binary @"$FIXTURES/heap.pprof")
[ "$(status_of "$r")" = 201 ] || fail "first push: $r"

python3 "$TESTS_DIR/tools/drain_status.py" spool \
    "$SOCK" "$DB" "$SP" "$FIXTURES/cpu.pprof" 300 "$PROFCTL" |
    tee "$T/drain.out" || fail "the spool's drain in the status"
# Every file dropped (300 and the few before, more if a round was tried
# again) stored once.
n=$(sed -n 's/^ok: drained: \([0-9]*\) files .*/\1/p' "$T/drain.out")
[ -n "$n" ] && [ "$n" -gt 300 ] || fail "drain_status.py said no count"
[ "$(api GET "/v1/profiles?scope=drain" | sed '$d' |
    json 'len(j["profiles"])')" = "$n" ] || fail "not $n profiles stored"
ok "$n spool files stored once"

WAIT_S=300 stop_profd
ok "the detached profd stopped"
