#!/usr/bin/env bash
# The fleet's backlog drains with a rate and a time left (issue 31),
# against a real clickhouse-server of the test's own: profd (detached)
# ships to it before it is up, so 40 distinct profiles pushed meanwhile
# are a backlog, shown with no rate (nothing shipped yet); ClickHouse
# starts, and while profd ships one profile a batch the status shows
# lag_bytes with drain_bytes_per_s and an eta_s that covers them at that
# rate, and `profctl status` "about ... left"; once shipped the lag is 0
# and eta_s null.  tests/tools/drain_status.py does the asking while it
# ships.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

N=40
ch_config a
"$PROFD" --no-config --spool none --socket "$SOCK" --db "$DB" \
    --fleet-url "$(ch_url a)" --fleet-host h1 --fleet-database fleet_d \
    --fleet-interval 1 --fleet-timeout 5 --fleet-batch 1 \
    >>"$T/profd.log" 2>&1 || fail "profd did not detach"
wait_until "profd to answer" curl -sf --unix-socket "$SOCK" \
    http://localhost/v1/health -o /dev/null
detached_pid=$(api GET /v1/status | sed '$d' | json 'j["pid"]')
trap 'kill "$detached_pid" 2>/dev/null || true; ch_cleanup || true' EXIT

mkdir "$T/p"
python3 "$TESTS_DIR/tools/distinct_pprof.py" "$FIXTURES/cpu.pprof" "$T/p" "$N"
bytes=0
for ((i = 0; i < N; i++)); do
	r=$(api POST "/v1/profiles?scope=web" --data-binary "@$T/p/$i.pb")
	[ "$(status_of "$r")" = 201 ] || fail "push $i: $r"
	bytes=$((bytes + $(wc -c <"$T/p/$i.pb")))
done
lagged() { [ "$(fleet_status lag_profiles)" = "$N" ]; }
wait_until "a lag of $N" lagged
got=$(api GET /v1/status | sed '$d' | json '(j["fleet"]["lag_bytes"],
    j["fleet"]["drain_bytes_per_s"], j["fleet"]["eta_s"])')
[ "$got" = "($bytes, None, None)" ] ||
	fail "ClickHouse down: lag_bytes, rate, eta $got, not ($bytes, None, None)"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has "^  behind: $N profiles (.*) to ship, rate not known yet\$" \
    "$T/status.txt" || fail "profctl status, down: $(cat "$T/status.txt")"
ok "ClickHouse down: $N profiles ($bytes bytes) behind, no rate yet"

ch_start a
python3 "$TESTS_DIR/tools/drain_status.py" fleet "$SOCK" "$N" "$PROFCTL" ||
	fail "the fleet's drain in the status"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has "^  behind: 0 profiles (0) to ship\$" "$T/status.txt" ||
	fail "profctl status, shipped: $(cat "$T/status.txt")"
[ "$(ch a "SELECT count() FROM fleet_d.profiles")" = "$N" ] ||
	fail "ClickHouse has $(ch a "SELECT count() FROM fleet_d.profiles") profiles, not $N"
ok "$N profiles shipped, nothing behind"

kill -TERM "$detached_pid"
WAIT_S=60 wait_until "the detached profd to stop" \
    sh -c "! kill -0 $detached_pid 2>/dev/null"
ok "the detached profd stopped"
