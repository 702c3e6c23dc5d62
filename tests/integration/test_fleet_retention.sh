# Retention in ClickHouse (issue 16): ClickHouse 18.16 has no TTL, so
# profd drops the day partitions of samples, profiles, profile_metrics,
# samples_hourly, samples_profiles, samples_daily and the function sums
# (functions_hourly, functions_daily, functions_profiles) that lie wholly
# before its max-age, against a real clickhouse-server of the test's own.
#
# Profiles: copies of the Go CPU fixture with their time_nanos set
# (bench/gen -mode retime): at noon of each of the five days before today
# (D-1 .. D-5, days as ClickHouse counts them) and at 00:30 of D-3.
#
# 1. No max-age: everything ships, passes run, nothing is dropped; the
#    status says so.
# 2. A max-age that puts the cutoff at 01:00 of D-3: D-4's and D-5's
#    partitions go from samples, profiles, profile_metrics,
#    samples_hourly, samples_profiles, samples_daily and the three
#    function sums tables (18 drops, logged, counted in
#    /v1/status and profctl status); D-3's stays whole, its 00:30 profile
#    past the age included, because its noon profile is not; D-1 and D-2
#    are untouched: per-day profile and row counts in SQL.
# 3. Dropping a partition that is gone (another profd on the node got
#    there first) is no error, and a restarted profd with the same max-age
#    finds nothing more to drop.
# 4. Two profd sharing the node, same max-age: h1 (all shipped) and h2
#    shipping the same dated profiles from a store of its own. h2 does
#    not send D-5's (more than 26 hours before the cutoff, so on an
#    earlier day in any time zone: a day ClickHouse drops) but marks it
#    shipped and counts it expired; D-4's noon is 13 hours before the
#    cutoff and goes, then its day is dropped by the passes. Both pass
#    every second over the same partitions: no failure on either, and
#    the end state is as with one: D-1 to D-3 with both hosts' rows, no
#    D-4 or D-5.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

command -v go >/dev/null ||
    { echo "skip: go (golang-go) is not installed"; exit 77; }
command -v sqlite3 >/dev/null ||
    { echo "skip: the sqlite3 shell is not installed"; exit 77; }

export GOFLAGS= GOPROXY=off GOTOOLCHAIN=local GOWORK=off GO111MODULE=on
cache=$(go env GOCACHE 2>/dev/null || true)
[[ -n $cache && $cache != off ]] && mkdir -p "$cache" 2>/dev/null &&
    [[ -w $cache ]] || export GOCACHE=$T/gocache
(cd "$TESTS_DIR/../bench/gen" && go build -trimpath -o "$T/gen" .) ||
    fail "building bench/gen"

ch_start a
# Days as ClickHouse makes partitions of them (its time zone), counted
# back from its today at the start: a test that runs past midnight
# expects the same partitions.
TODAY=$(ch a "SELECT toString(today())")
day() { ch a "SELECT toString(toDate('$TODAY') - $1)"; }
at() {	# at DAYS_BACK SECONDS_INTO_THE_DAY: Unix seconds
	ch a "SELECT toUnixTimestamp(toDateTime(toDate('$TODAY') - $1)) + $2"
}
"$T/gen" -mode retime -in "$FIXTURES/cpu.pprof" -n 5 -step 24h \
    -end "$(at 1 43200)" -o "$T/noon" || fail "retime"
"$T/gen" -mode retime -in "$FIXTURES/cpu.pprof" -n 1 \
    -end "$(at 3 1800)" -o "$T/early" || fail "retime"

FLEET=(--fleet-url "$(ch_url a)" --fleet-host h1 --fleet-database fleet_t
    --fleet-interval 1 --retention-interval 1)
start_profd "${FLEET[@]}"
for f in "$T"/noon/*.pb.gz "$T"/early/*.pb.gz; do
	r=$(api POST "/v1/profiles?scope=web" --data-binary "@$f")
	[ "$(status_of "$r")" = 201 ] || fail "push $f: $r"
done
shipped_all() {
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM profile WHERE
	    shipped_ns = 0")" = 0 ] && [ "$(fleet_status lag_profiles)" = 0 ]
}
wait_until "six profiles shipped" shipped_all

# Profiles and sample rows per day partition, in the three tables.
per_day() {
	ch a "SELECT date, uniqExact(profile), count() FROM fleet_t.samples
	    GROUP BY date ORDER BY date"
	ch a "SELECT date, count() FROM fleet_t.profiles FINAL
	    GROUP BY date ORDER BY date"
	ch a "SELECT date, count() FROM fleet_t.profile_metrics FINAL
	    GROUP BY date ORDER BY date"
}
rows=$(ch a "SELECT count() FROM fleet_t.samples")
one=$(( rows / 6 ))
[ $(( one * 6 )) = "$rows" ] && [ "$one" -gt 0 ] ||
    fail "$rows sample rows for six copies of one profile"
expect_days() {	# expect_days D...: the days left, D-3 with two profiles
	local d
	for d in "$@"; do
		if [ "$d" = 3 ]; then
			printf '%s\t2\t%s\n' "$(day "$d")" $((2 * one))
		else
			printf '%s\t1\t%s\n' "$(day "$d")" "$one"
		fi
	done
	for t in profiles profile_metrics; do
		for d in "$@"; do
			printf '%s\t%s\n' "$(day "$d")" \
			    $([ "$d" = 3 ] && echo 2 || echo 1)
		done
	done
}

# rounds N STATUS...: N more rounds of each profd (STATUS: its
# fleet_status), counted as its last_success moves on, or until one
# fails.  A round sets last_success, then runs retention's pass if one
# is due, then waits for the next: after N rounds the passes of N - 1
# are over.
declare -A was_success was_failures
moved_on() {
	local st
	for st in "$@"; do
		[ "$($st failures)" = "${was_failures[$st]}" ] || continue
		[ "$($st last_success)" != "${was_success[$st]}" ] || return 1
	done
}
rounds() {
	local n=$1 i st
	shift
	for ((i = 1; i <= n; i++)); do
		for st in "$@"; do
			was_success[$st]=$($st last_success)
			was_failures[$st]=$($st failures)
		done
		WAIT_S=300 wait_until "round $i of $n of $*" moved_on "$@"
	done
}

# 1. No max-age: rounds come and go, nothing is dropped.
rounds 3 fleet_status
[ "$(fleet_status max_age_s)" = 0 ] && [ "$(fleet_status partitions_dropped)" = 0 ] ||
    fail "max-age 0: max_age_s $(fleet_status max_age_s), dropped $(fleet_status partitions_dropped)"
per_day >"$T/days"
expect_days 5 4 3 2 1 >"$T/want"
diff "$T/want" "$T/days" >&2 || fail "max-age 0 dropped something"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has "retention in ClickHouse: none" "$T/status.txt" ||
    fail "profctl status: $(cat "$T/status.txt")"
ok "no max-age: six profiles on five days, nothing dropped"
stop_profd

# 2. The cutoff at 01:00 of D-3 (the seconds profd takes to start move it
#    a little later, still well before noon).
age=$(( $(date +%s) - $(at 3 3600) ))
start_profd "${FLEET[@]}" --max-age "${age}s"
dropped18() { [ "$(fleet_status partitions_dropped)" = 18 ]; }
wait_until "eighteen partitions dropped" dropped18
per_day >"$T/days"
expect_days 3 2 1 >"$T/want"
diff "$T/want" "$T/days" >&2 || fail "not D-4 and D-5 dropped, D-1 to D-3 whole"
[ "$(fleet_status max_age_s)" = "$age" ] || fail "max_age_s $(fleet_status max_age_s)"
[ "$(fleet_status last_drop)" != None ] || fail "no last_drop"
for d in 4 5; do
	for t in samples profiles profile_metrics samples_hourly \
	    samples_profiles samples_daily; do
		has -F "fleet: dropped partition $(day $d) of fleet_t.$t: all of it older than max-age ($age s)" \
		    "$T/profd.log" || fail "the drop of $t $(day $d) was not logged"
	done
done
[ "$(ch a "SELECT count() FROM system.parts WHERE database = 'fleet_t'
    AND active AND partition IN ('$(day 4)', '$(day 5)')")" = 0 ] ||
    fail "parts of D-4 or D-5 left"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has "retention in ClickHouse: day partitions past .* dropped: 18 so far" \
    "$T/status.txt" || fail "profctl status: $(cat "$T/status.txt")"
ok "max-age to 01:00 of D-3: D-4 and D-5 dropped from the nine tables, D-3 (one profile past the age) kept"

# 3. Another profd sharing the node would drop the same partitions: a
#    drop of one that is gone does nothing and is no error.
ch a "ALTER TABLE fleet_t.samples DROP PARTITION '$(day 5)'"
per_day >"$T/days"
diff "$T/want" "$T/days" >&2 || fail "a second drop changed something"
failures=$(fleet_status failures)
stop_profd
start_profd "${FLEET[@]}" --max-age "${age}s"
rounds 3 fleet_status
[ "$(fleet_status partitions_dropped)" = 0 ] &&
    [ "$(fleet_status failures)" = 0 ] ||
    fail "after a restart: dropped $(fleet_status partitions_dropped), failures $(fleet_status failures)"
per_day >"$T/days"
diff "$T/want" "$T/days" >&2 || fail "the restart changed something"
ok "a drop of a gone partition is a no-op; restarted, nothing more to drop (failures before: $failures)"

# 4. A second profd, host h2, on the same node.
"$PROFD" --foreground --no-config --spool none --socket "$T/h2.sock" \
    --db "$T/h2.db" --fleet-url "$(ch_url a)" --fleet-host h2 \
    --fleet-database fleet_t --fleet-interval 1 --retention-interval 1 \
    --max-age "${age}s" >>"$T/h2.log" 2>&1 &
H2_PID=$!
CH_PIDS+=("$H2_PID")	# killed at exit with the servers
wait_health "$T/h2.sock"
h2_status() {
	curl -s --unix-socket "$T/h2.sock" http://localhost/v1/status |
	    json "j['fleet']['$1']"
}
for f in "$T"/noon/*.pb.gz "$T"/early/*.pb.gz; do
	r=$(curl -s -w '\n%{http_code}' --unix-socket "$T/h2.sock" \
	    "http://localhost/v1/profiles?scope=web" --data-binary "@$f")
	[ "$(status_of "$r")" = 201 ] || fail "push $f to h2: $r"
done
h2_done() {
	[ "$(h2_status shipped_profiles)" = 5 ] &&
	    [ "$(h2_status expired_profiles)" = 1 ] &&
	    [ "$(h2_status lag_profiles)" = 0 ] &&
	    [ "$(ch a "SELECT count() FROM system.parts WHERE
	    database = 'fleet_t' AND active AND partition IN
	    ('$(day 4)', '$(day 5)')")" = 0 ]
}
end=$((SECONDS + 300))	# a bound against a hang
until h2_done; do
	[ "$SECONDS" -le "$end" ] || break
	sleep 0.1
done
h2_done || fail "h2 shipped and the old days dropped: shipped $(h2_status shipped_profiles), expired $(h2_status expired_profiles), lag $(h2_status lag_profiles), dropped $(h2_status partitions_dropped), error $(h2_status last_error), parts $(ch a "SELECT table, partition FROM system.parts WHERE database = 'fleet_t' AND active" | tr '\t\n' ': ')"
# A few more passes of both over the same partitions.
rounds 3 h2_status fleet_status
[ "$(h2_status failures)" = 0 ] && [ "$(fleet_status failures)" = 0 ] ||
    fail "failures: h1 $(fleet_status failures), h2 $(h2_status failures): $(h2_status last_error)"
ch a "SELECT date, host, uniqExact(profile), count() FROM fleet_t.samples
    GROUP BY date, host ORDER BY date, host" >"$T/days"
for d in 3 2 1; do
	for h in h1 h2; do
		if [ "$d" = 3 ]; then
			printf '%s\t%s\t2\t%s\n' "$(day $d)" $h $((2 * one))
		else
			printf '%s\t%s\t1\t%s\n' "$(day $d)" $h "$one"
		fi
	done
done >"$T/want"
diff "$T/want" "$T/days" >&2 || fail "two hosts: not D-1 to D-3 of each"
[ "$(ch a "SELECT count() FROM fleet_t.profiles FINAL WHERE
    date < '$(day 3)'")" = 0 ] || fail "profiles rows of D-4 or D-5 left"
[ "$(ch a "SELECT count() FROM fleet_t.profile_metrics FINAL WHERE
    date < '$(day 3)'")" = 0 ] || fail "profile_metrics rows of D-4 or D-5 left"
[ "$(sqlite3 "$T/h2.db" "SELECT count(*) FROM profile WHERE shipped_ns = 0")" = 0 ] ||
    fail "h2 left profiles unmarked"
has -F "fleet: 1 profile not sent, older than max-age by more than a day" "$T/h2.log" ||
    fail "the expired profile was not logged"
! has -F "dropped partition $(day 5)" "$T/h2.log" || fail "h2 sent rows of D-5"
[ "$(fleet_status expired_profiles)" = 0 ] || fail "h1 counts expired profiles"
PROFD_SOCKET=$T/h2.sock "$PROFCTL" status >"$T/h2status.txt" || fail "profctl status of h2"
has -x "  1 not sent: older than ClickHouse keeps (max-age), their day dropped there" \
    "$T/h2status.txt" || fail "profctl status of h2: $(cat "$T/h2status.txt")"
kill "$H2_PID"
wait "$H2_PID" 2>/dev/null || fail "h2 did not stop cleanly"
stop_profd
ok "two profd on one node: no failure, D-1 to D-3 of both kept, h2 sent 5 and marked D-5's without sending, $(grep -c 'dropped partition' "$T/h2.log") drops by h2"
