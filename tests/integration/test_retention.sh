#!/usr/bin/env bash
# Deleting and retention: DELETE /v1/profiles by id, by time and a whole
# scope; the queries of what is left add up; max-age and size bounds (with
# a [scope] override) drop what they should on the periodic pass; unused
# interned rows are collected, a later push of the same profile reads the
# same, and the store stays consistent.  Shipping to a fleet that is not
# there (a closed port): retention keeps every unshipped profile over the
# store's bound, unless the backlog passes fleet-backlog-max: then the
# oldest go, logged and counted in the status.
source "$TESTS_DIR/integration/lib.sh"
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3"; exit 77; }

# Three distinct blobs of one real profile (the store dedupes by content).
zcat "$FIXTURES/cpu.pprof" >"$T/cpu1.pb"
gzip -1 -c "$T/cpu1.pb" >"$T/cpu2.pb.gz"
gzip -9 -c "$T/cpu1.pb" >"$T/cpu3.pb.gz"
push() { "$PROFCTL" push "$1" --scope "$2" >/dev/null || fail "push $1 $2"; }
total() {
	api GET "/v1/top?scope=$1&limit=1" | sed '$d' | json 'j["total"]'
}
nprofiles() {
	api GET "/v1/profiles?scope=$1" | sed '$d' | json 'len(j["profiles"])'
}
ids() {
	api GET "/v1/profiles?scope=$1" | sed '$d' |
	    json '" ".join(str(p["id"]) for p in j["profiles"])'
}

start_profd
for f in "$T/cpu1.pb" "$T/cpu2.pb.gz" "$T/cpu3.pb.gz"; do push "$f" a; done
push "$FIXTURES/cpu.pprof" b
push "$FIXTURES/heap.pprof" c
one=$(total b)
[ "$(total a)" = $((3 * one)) ] || fail "three copies: $(total a) != 3 x $one"
api GET "/v1/top?scope=b&limit=1000" | sed '$d' | json 'j["rows"]' >"$T/top-before"

# By id: one copy goes, the other two add up; an id of another scope or
# an unknown one deletes nothing.
set -- $(ids a)
out=$(api DELETE "/v1/profiles?scope=a&id=$(ids b)")
[ "$(status_of "$out")" = 404 ] || fail "an id of another scope: $out"
[ "$(status_of "$(api DELETE "/v1/profiles?scope=a&id=$1&id=999")")" = 404 ] ||
	fail "an unknown id"
[ "$(nprofiles a)" = 3 ] || fail "a refused delete deleted something"
out=$("$PROFCTL" delete --scope a --id "$1") || fail "profctl delete --id"
[ "$out" = "a: deleted 1 profile(s), 349 sample(s)" ] || fail "delete said: $out"
[ "$(nprofiles a)" = 2 ] && [ "$(total a)" = $((2 * one)) ] ||
	fail "after deleting one copy: $(nprofiles a) profiles, total $(total a)"

# By time: the profiles are from when the fixture was made.
out=$("$PROFCTL" delete --scope a --before 2000-01-01T00:00:00Z)
[ "$out" = "a: deleted 0 profile(s), 0 sample(s)" ] || fail "before 2000: $out"
out=$("$PROFCTL" delete --scope a --before -0s --json)
[ "$(printf '%s' "$out" | json 'j["deleted_profiles"]')" = 2 ] ||
	fail "before now: $out"
[ "$(nprofiles a)" = 0 ] || fail "profiles left in a"

# A whole scope.
out=$("$PROFCTL" delete --scope c) || fail "delete --scope c"
printf '%s' "$out" | has "the scope is gone" || fail "delete c: $out"
api GET /v1/scopes | sed '$d' | json '[s["name"] for s in j["scopes"]]' |
    has -v '"c"' || fail "scope c still listed"
set +e
"$PROFCTL" delete --scope c >"$T/out" 2>&1
rc=$?
"$PROFCTL" delete >"$T/out2" 2>&1
rc2=$?
set -e
[ "$rc" = 1 ] && has 'no scope "c"' "$T/out" || fail "unknown scope: $rc $(cat "$T/out")"
[ "$rc2" = 2 ] || fail "delete without --scope: exit $rc2"
[ "$(status_of "$(api DELETE "/v1/profiles?before=-1h")")" = 400 ] ||
	fail "DELETE without a scope"
ok "delete by id, by time and a whole scope; what is left adds up"

# Collection: the next pass collects what nothing uses any more.
stop_profd
rows() {
	# (callsite is profd's virtual table: the shell counts the chunks.)
	sqlite3 "$DB" "SELECT (SELECT ifnull(sum(count), 0) FROM callsite_chunk) || ' ' ||
	    (SELECT count(*) FROM frame) || ' ' || (SELECT count(*) FROM function)
	    || ' ' || (SELECT count(*) FROM string)"
}
before=$(rows)
start_profd --retention-interval 1
"$PROFCTL" delete --scope b >/dev/null
collected() {
	api GET /v1/health | sed '$d' |
	    json 'j["retention"]["rows_collected"] > 0' | has -x True
}
wait_until "a collection" collected
stop_profd
after=$(rows)
read -r cs0 fr0 fn0 st0 <<<"$before"
read -r cs1 fr1 fn1 st1 <<<"$after"
# What stays: the newest callsite (ids are never reused) and what it needs.
[ $((cs1 * 20)) -lt "$cs0" ] && [ $((fr1 * 20)) -lt "$fr0" ] &&
    [ $((fn1 * 10)) -lt "$fn0" ] && [ $((st1 * 10)) -lt "$st0" ] ||
	fail "rows before deleting everything: $before; after collection: $after"
# Pushed again, the same profile reads the same: no stale interned id.
start_profd --retention-interval 1
push "$FIXTURES/cpu.pprof" b
api GET "/v1/top?scope=b&limit=1000" | sed '$d' | json 'j["rows"]' >"$T/top-after"
cmp -s "$T/top-before" "$T/top-after" || fail "top after collection differs"
stop_profd
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
[ -z "$(sqlite3 "$DB" 'PRAGMA foreign_key_check')" ] || fail "foreign_key_check"
ok "collected callsites $cs0 -> $cs1, frames $fr0 -> $fr1, strings $st0 -> $st1; the same push reads the same"

# Retention by age and size, per scope: [scope keep] keeps everything.
cat >"$T/profd.conf" <<EOF
max-age = 30d
scope-max-size = 1
[scope keep]
max-size = 1G
EOF
push_all() {
	push "$T/cpu1.pb" "$1"
	push "$T/cpu2.pb.gz" "$1"
}
start_profd
push_all keep
push_all small
[ "$(nprofiles small)" = 2 ] || fail "setup"
stop_profd
start_profd --config "$T/profd.conf" --retention-interval 1
has_none() {
	[ "$(nprofiles "$1")" = 0 ]
}
wait_until "scope-max-size to drop the profiles of small" has_none small
[ "$(nprofiles keep)" = 2 ] || fail "[scope keep] max-size was not honoured"
has 'retention: dropped .* of small (max-size)' "$T/profd.log" ||
	fail "the drop was not logged"
stop_profd
# An hour: the fixture (made when the fixtures were) is older.
start_profd --max-age 1h --retention-interval 1
wait_until "max-age to drop the profiles of keep" has_none keep
# Folded stacks carry no time: stamped when imported, kept.
printf 'main;work 10\nmain;idle 5\n' >"$T/now.folded"
push "$T/now.folded" keep
# A whole retention pass after the push: the one running at the push may
# have looked before it, the next one cannot have.
passes() {
	api GET /v1/health | sed '$d' | json 'j["retention"]["passes"]'
}
p0=$(passes)
two_passes() {
	[ "$(passes)" -ge $((p0 + 2)) ]
}
wait_until "two retention passes" two_passes
[ "$(nprofiles keep)" = 1 ] || fail "a profile from now was dropped by max-age 1h"
stop_profd
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
ok "max-age, scope-max-size and a [scope] override drop what they should"

# The fleet: a port nothing listens on, so nothing ships.
DB=$T/fleet.db
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
FLEET=(--fleet-url "http://127.0.0.1:$port" --fleet-interval 1
    --fleet-timeout 1 --store-max-size 1 --retention-interval 1)
fleet_status() {
	api GET /v1/status | sed '$d' | json "j['fleet']['$1']"
}
start_profd "${FLEET[@]}"
for f in "$T/cpu1.pb" "$T/cpu2.pb.gz" "$T/cpu3.pb.gz"; do push "$f" fl; done
p0=$(passes)
wait_until "two retention passes" two_passes
[ "$(nprofiles fl)" = 3 ] || fail "retention dropped an unshipped profile"
[ "$(fleet_status unshipped_deleted)" = 0 ] || fail "unshipped_deleted"
[ "$(fleet_status lag_profiles)" = 3 ] || fail "lag $(fleet_status lag_profiles)"
stop_profd
# A limit of the two newest's bytes: the oldest goes, then the backlog is
# at the limit, not over it, and the other two stay.
set -- $(sqlite3 -separator ' ' "$DB" 'SELECT id, bytes FROM profile ORDER BY id')
max=$(($4 + $6))
start_profd "${FLEET[@]}" --fleet-backlog-max "$max"
two_left() { [ "$(nprofiles fl)" = 2 ]; }
wait_until "the backlog limit to drop the oldest" two_left
p0=$(passes)
wait_until "two retention passes" two_passes
[ "$(ids fl | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "$3 $5 " ] ||
	fail "left $(ids fl), not $3 $5"
[ "$(fleet_status unshipped_deleted)" = 1 ] ||
	fail "unshipped_deleted $(fleet_status unshipped_deleted), not 1"
[ "$(fleet_status backlog_max)" = "$max" ] || fail "backlog_max"
has -F "fleet: backlog over fleet-backlog-max ($(($2 + max)) bytes > $max): 1 unshipped profiles deleted by retention" \
    "$T/profd.log" || fail "the backlog drop was not logged"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has "1 unshipped profiles deleted" "$T/status.txt" ||
	fail "profctl status: $(cat "$T/status.txt")"
stop_profd
ok "fleet: unshipped profiles kept, but past fleet-backlog-max the oldest go"
