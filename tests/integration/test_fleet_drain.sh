#!/usr/bin/env bash
# The fleet's backlog drains with a rate and a time left (issue 31),
# against a real clickhouse-server of the test's own: profd (detached)
# ships to it before it is up, so 40 distinct profiles pushed meanwhile
# are a backlog, shown with no rate (nothing shipped yet).  ClickHouse
# starts and they are shipped, one profile a batch: a rate is known.
# ClickHouse stopped, 10 more pushed wait: the status shows lag_bytes
# with drain_bytes_per_s and an eta_s that covers them at that rate, and
# `profctl status` "about ... left".  ClickHouse back, they are shipped:
# the lag is 0 and eta_s null, each with its function sums, and
# `profctl top --fleet` prints what `profctl top` does.  tests/tools/drain_status.py does the
# asking; each state lasts while it is asked.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

N=40
M=10
ROUNDS=3
# ClickHouse starts slowly on a loaded machine: a bound against a hang.
CH_WAIT_S=300
# Python's monotonic clock, which drain_status.py compares with its own.
mono() { python3 -c 'import time; print(time.monotonic())'; }

ch_config a
# --fleet-timeout: a bound against a hang; a ClickHouse slow to answer
# on a loaded machine is waited for, not failed and backed off from.
start_profd_detached --fleet-url "$(ch_url a)" \
    --fleet-host h1 --fleet-database fleet_d --fleet-interval 1 \
    --fleet-timeout 60 --fleet-batch 1

mkdir "$T/p"
python3 "$TESTS_DIR/tools/distinct_pprof.py" "$FIXTURES/cpu.pprof" "$T/p" \
    $((N + ROUNDS * M))
pushed=0
# push K: the next K distinct profiles; their bytes in $bytes.
push() {
	local i r
	bytes=0
	for ((i = pushed; i < pushed + $1; i++)); do
		r=$(api POST "/v1/profiles?scope=web" --data-binary "@$T/p/$i.pb")
		[ "$(status_of "$r")" = 201 ] || fail "push $i: $r"
		bytes=$((bytes + $(wc -c <"$T/p/$i.pb")))
	done
	pushed=$i
}
lagged() { [ "$(fleet_status lag_profiles)" = "$1" ]; }

push "$N"
WAIT_S=300 wait_until "a lag of $N" lagged "$N"
got=$(api GET /v1/status | sed '$d' | json '(j["fleet"]["lag_bytes"],
    j["fleet"]["drain_bytes_per_s"], j["fleet"]["eta_s"])')
[ "$got" = "($bytes, None, None)" ] ||
	fail "ClickHouse down: lag_bytes, rate, eta $got, not ($bytes, None, None)"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has "^  behind: $N profiles (.*) to ship, rate not known yet\$" \
    "$T/status.txt" || fail "profctl status, down: $(cat "$T/status.txt")"
ok "ClickHouse down: $N profiles ($bytes bytes) behind, no rate yet"

# Shipped, then ClickHouse down again with more behind.  The rate is
# over the last 60 s of batches: a round asked later than that (a
# machine stalled for a minute) is tried again.
for ((round = 1; ; round++)); do
	since=$(mono)
	ch_start a
	python3 "$TESTS_DIR/tools/drain_status.py" fleet-drain "$SOCK" \
	    "$pushed" "$since" "$T/t_low" || fail "the fleet's backlog shipped"
	ch_stop a
	push "$M"
	WAIT_S=300 wait_until "a lag of $M" lagged "$M"
	rc=0
	python3 "$TESTS_DIR/tools/drain_status.py" fleet-held "$SOCK" \
	    "$PROFCTL" "$T/t_low" || rc=$?
	[ "$rc" = 0 ] && break
	[ "$rc" = 2 ] && [ "$round" -lt "$ROUNDS" ] ||
		fail "the fleet's backlog in the status, ClickHouse down"
done

since=$(mono)
ch_start a
python3 "$TESTS_DIR/tools/drain_status.py" fleet-drain "$SOCK" "$pushed" \
    "$since" "$T/t_low" || fail "the fleet's backlog shipped"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has "^  behind: 0 profiles (0) to ship\$" "$T/status.txt" ||
	fail "profctl status, shipped: $(cat "$T/status.txt")"
[ "$(ch a "SELECT count() FROM fleet_d.profiles")" = "$pushed" ] ||
	fail "ClickHouse has $(ch a "SELECT count() FROM fleet_d.profiles") profiles, not $pushed"
ok "$pushed profiles shipped, nothing behind"

# Each shipped with top's function sums (schema 8), over the outages:
# profctl's fleet top, which reads them, prints what its local top does.
[ "$(ch a "SELECT uniqExact(host, profile) FROM fleet_d.functions_profiles")" = "$pushed" ] ||
	fail "function sums of $(ch a "SELECT uniqExact(host, profile) FROM fleet_d.functions_profiles") profiles, not $pushed"
"$PROFCTL" top --scope web >"$T/local.top" || fail "profctl top"
"$PROFCTL" top --scope web --fleet >"$T/fleet.top" || fail "profctl top --fleet"
diff "$T/local.top" "$T/fleet.top" >&2 || fail "profctl top --fleet differs from the local top"
ok "the fleet's top of the $pushed profiles, from their function sums, prints the local top"

WAIT_S=300 stop_profd
ok "the detached profd stopped"
