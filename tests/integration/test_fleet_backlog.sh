#!/usr/bin/env bash
# The fleet's backlog in /v1/status with ClickHouse down (issue 24): a
# port nothing listens on, so nothing ships and rounds fail with a
# growing backoff.  lag_profiles and lag_bytes are the store's at every
# moment: counted at the start, raised by each import at once (they were
# counted at the rounds only, so a profile stored after a round showed
# as 0 until the next), lowered by each delete.  unshipped_deleted counts
# every profile deleted before it shipped, whatever deleted it: DELETE by
# id, of a whole scope, by age past fleet-backlog-max (a user's DELETE
# there was not counted: only retention's were), and retention (see
# test_retention.sh).  Shipping lowers the lag: test_fleet_ship.sh.
source "$TESTS_DIR/integration/lib.sh"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
FLEET=(--fleet-url "http://127.0.0.1:$port" --fleet-interval 1
    --fleet-timeout 1 --retention-interval 1h)
# want PROFILES BYTES DELETED WHAT
want() {
	local got
	got=$(api GET /v1/status | sed '$d' | json '" ".join(str(j["fleet"][k])
	    for k in ("lag_profiles", "lag_bytes", "unshipped_deleted"))')
	[ "$got" = "$1 $2 $3" ] ||
		fail "$4: lag_profiles lag_bytes unshipped_deleted $got, not $1 $2 $3"
}
push() {
	"$PROFCTL" push --scope "$2" "$1" |
	    sed -n 's/.*stored as profile \([0-9]*\).*/\1/p'
}
size() { wc -c <"$1"; }
cpu=$FIXTURES/cpu.pprof heap=$FIXTURES/heap.pprof mutex=$FIXTURES/mutex.pprof
block=$FIXTURES/block.pprof

start_profd "${FLEET[@]}"
want 0 0 0 "at the start"
a=$(push "$cpu" web)
want 1 "$(size "$cpu")" 0 "one import"
b=$(push "$heap" web)
want 2 $(($(size "$cpu") + $(size "$heap"))) 0 "two imports"
push "$mutex" db >/dev/null
want 3 $(($(size "$cpu") + $(size "$heap") + $(size "$mutex"))) 0 \
    "three imports"
ok "each import raises the lag at once"

r=$(api DELETE "/v1/profiles?scope=web&id=$b")
[ "$(status_of "$r")" = 200 ] || fail "delete by id: $r"
want 2 $(($(size "$cpu") + $(size "$mutex"))) 1 "a DELETE by id"
# Under the backlog limit (none here) a DELETE by age keeps the unshipped.
r=$(api DELETE "/v1/profiles?scope=web&before=2100-01-01T00:00:00Z")
[ "$(status_of "$r")" = 200 ] || fail "delete by age: $r"
want 2 $(($(size "$cpu") + $(size "$mutex"))) 1 "a DELETE by age, kept"
r=$(api DELETE "/v1/profiles?scope=db")
[ "$(status_of "$r")" = 200 ] || fail "delete of a scope: $r"
want 1 "$(size "$cpu")" 2 "a DELETE of a scope"
ok "deletes lower the lag and count the unshipped they delete"
stop_profd

# Past fleet-backlog-max a DELETE by age deletes unshipped profiles too,
# the oldest first, down to the limit: counted like retention's.
start_profd "${FLEET[@]}" --fleet-backlog-max "$(size "$block")"
want 1 "$(size "$cpu")" 0 "counted from the store at the start"
push "$heap" web >/dev/null
push "$block" web >/dev/null
want 3 $(($(size "$cpu") + $(size "$heap") + $(size "$block"))) 0 \
    "over the limit"
r=$(api DELETE "/v1/profiles?scope=web&before=2100-01-01T00:00:00Z")
[ "$(status_of "$r")" = 200 ] || fail "delete by age: $r"
body_of "$r" | json 'j["deleted_profiles"]' | has -x 2 ||
	fail "deleted past the limit: $(body_of "$r")"
want 1 "$(size "$block")" 2 "a DELETE by age past the limit"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has "2 unshipped profiles deleted" "$T/status.txt" ||
	fail "profctl status: $(cat "$T/status.txt")"
stop_profd
ok "a DELETE past fleet-backlog-max counts the unshipped it deletes"
