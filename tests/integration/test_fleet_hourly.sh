#!/usr/bin/env bash
# test_fleet_hourly.sh: the fleet's hourly sums (schema/clickhouse/
# 005-hourly.sql, issue 29), profile rows (006-profile-rows.sql, issue
# 41), daily sums (007-daily.sql) and top's function sums
# (008-functions.sql, issue 41) give what the rows give.  Real profiles
# (the CPU and heap fixtures) re-timed 20 minutes apart over five hours,
# instances a and b alternating, are shipped to one ClickHouse: half of
# them before the database has versions 5 to 8 (the steps then run on a
# database holding rows, and their backfills sum and count them; the
# function sums have no backfill: those profiles have none), half after
# (the materialized views do as they land).  Every view of the fleet
# (top, tree, timeline, diff) equals the local one over the whole
# series, a window of whole hours, a window with partial hours at both
# ends, a label filter, and for the heap's gauge (an average per
# series); a row added to the hourly sums shows which windows read them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

ch_start a
db=fh
fleet_up() {
	start_profd --fleet-url "$(ch_url a)" --fleet-host h1 \
	    --fleet-database "$db" --fleet-interval 1 --fleet-timeout 30
}
fleet_up

# 2026-01-05 00:00:00 UTC, a whole hour in every zone.
H0=1767571200
# push_at K: the fixtures re-timed to H0 + 7 min + K x 20 min.
push_at() {
	local t=$((H0 + 420 + $1 * 1200)) inst=a
	[ $(($1 % 2)) = 0 ] || inst=b
	python3 "$TESTS_DIR/tools/retime_pprof.py" "$FIXTURES/cpu.pprof" \
	    "$T/cpu.$1.pb" "${t}000000000" || fail "retime cpu $1"
	python3 "$TESTS_DIR/tools/retime_pprof.py" "$FIXTURES/heap.pprof" \
	    "$T/heap.$1.pb" "${t}000000000" || fail "retime heap $1"
	fleet_push "$SOCK" "$T/cpu.$1.pb" cpu "instance=$inst"
	fleet_push "$SOCK" "$T/heap.$1.pb" heap "instance=$inst"
}
for k in 0 1 2 3 4 5 6; do push_at "$k"; done
wait_until "14 profiles shipped" fleet_shipped "$SOCK" 14

# The database as version 4 left it: no hourly sums, profile rows,
# daily sums nor function sums, versions 5 to 8 not recorded; profd
# started again runs the steps on it.
stop_profd
for t in samples_hourly_mv samples_hourly samples_profiles_mv \
    samples_profiles samples_daily_mv samples_daily functions_hourly_mv \
    functions_hourly functions_daily_mv functions_daily \
    functions_profiles_mv functions_profiles function_rows \
    function_names; do
	ch a "DROP TABLE $db.$t" >/dev/null
done
ch a "DROP TABLE $db.schema_version" >/dev/null
ch a "CREATE TABLE $db.schema_version (version UInt32, applied DateTime)
    ENGINE = ReplacingMergeTree ORDER BY version" >/dev/null
ch a "INSERT INTO $db.schema_version VALUES (1, now()), (2, now()),
    (3, now()), (4, now())" >/dev/null
fleet_up
# A function, asked again each time: an argument's $(...) would be read
# once, when wait_until is called, before profd has run the step.
version_is() {
	[ "$(ch a "SELECT max(version) FROM $db.schema_version")" = "$1" ]
}
wait_until "version 8 recorded" version_is 8
# sums_of TABLE KEYS: per key the sum of value (but sums of 0, which a
# SummingMergeTree's merge drops).
sums_of() {
	ch a "SELECT $2, sum(value) AS v FROM $db.$1 WHERE NOT endsWith(metric,
	    '\\0raw') GROUP BY $2 HAVING v != 0 ORDER BY $2"
}
sums_same() {
	sums_of samples "scope, metric, host, toStartOfHour(time), stack_hash" >"$T/h.want"
	sums_of samples_hourly "scope, metric, host, hour, stack_hash" >"$T/h.got"
	sums_of samples "scope, metric, date, stack_hash" >"$T/d.want"
	sums_of samples_daily "scope, metric, date, stack_hash" >"$T/d.got"
	[ -s "$T/h.want" ] && cmp -s "$T/h.want" "$T/h.got" &&
	    cmp -s "$T/d.want" "$T/d.got"
}
sums_same || fail "the backfill's hourly or daily sums are not the rows'"
# profile_rows: per (scope, metric, host, time, profile) what samples has.
profile_rows() {
	ch a "SELECT scope, metric, host, time, profile, sum(rows) FROM
	    $db.$1 GROUP BY scope, metric, host, time, profile ORDER BY
	    scope, metric, host, time, profile"
}
profile_rows_of_samples() {
	ch a "SELECT scope, metric, host, time, profile, count() FROM
	    $db.samples GROUP BY scope, metric, host, time, profile ORDER BY
	    scope, metric, host, time, profile"
}
profile_rows samples_profiles >"$T/pr.got"
profile_rows_of_samples >"$T/pr.want"
[ -s "$T/pr.want" ] && cmp -s "$T/pr.want" "$T/pr.got" ||
    fail "the backfill's profile rows are not samples': $(diff "$T/pr.want" "$T/pr.got" | head -5)"
ok "versions 5 to 8 on a database with rows: the hourly sums, the profile rows and the daily sums are the rows' ($(ch a "SELECT count() FROM $db.samples_hourly"), $(ch a "SELECT count() FROM $db.samples_profiles") and $(ch a "SELECT count() FROM $db.samples_daily") rows for $(ch a "SELECT count() FROM $db.samples"))"

# Shipped after: the view sums them.  The store holds all 30.
for k in 7 8 9 10 11 12 13 14; do push_at "$k"; done
wait_until "16 more profiles shipped" fleet_shipped "$SOCK" 16
sums_same || fail "the views' hourly or daily sums are not the rows'"
profile_rows samples_profiles >"$T/pr.got"
profile_rows_of_samples >"$T/pr.want"
cmp -s "$T/pr.want" "$T/pr.got" ||
    fail "the view's profile rows are not samples': $(diff "$T/pr.want" "$T/pr.got" | head -5)"
ok "rows shipped after versions 5 to 8 are summed per hour and day and counted per profile as they land"

iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
whole="since=$(iso $((H0 + 3600)))&until=$(iso $((H0 + 4 * 3600 - 1)))"
part="since=$(iso $((H0 + 1500)))&until=$(iso $((H0 + 4 * 3600 + 1700)))"
# Days around the series' day: it is whole in any time zone.
wide="since=$(iso $((H0 - 172800)))&until=$(iso $((H0 + 259200)))"
n=0
for w in "" "&$whole" "&$part"; do
	for q in "scope=cpu" "scope=cpu&label=instance%3Da" \
	    "scope=cpu&label=instance%3D~b" "scope=heap&metric=inuse_space" \
	    "scope=heap&metric=alloc_space" \
	    "scope=heap&metric=inuse_space&label=instance%3Db"; do
		fleet_same top "$q$w" "$SOCK" "$SOCK"
		fleet_same tree "$q$w" "$SOCK" "$SOCK"
		fleet_same timeline "$q$w&step=1h" "$SOCK" "$SOCK"
		fleet_same diff "$q$w&base.scope=${q#scope=}" "$SOCK" "$SOCK"
		n=$((n + 4))
	done
done
# Whole days (of every host, and with a host named: its hours).
for q in "scope=cpu" "scope=heap&metric=alloc_space"; do
	for w in "" "&$wide"; do
		fleet_same top "$q$w" "$SOCK" "$SOCK"
		fleet_same tree "$q$w" "$SOCK" "$SOCK"
		fleet_same top "$q$w&host=h1" "$SOCK" "$SOCK"
		n=$((n + 3))
	done
done
# Each window's profiles counted: 5 whole hours' worth.
total() {	# total QUERY: the fleet's top total and profile count
	curl -s --unix-socket "$SOCK" "http://localhost/v1/top?$1&fleet=1" |
	    json '"%s %s" % (j["total"], j["profiles"])'
}
[ "$(total "scope=cpu&$whole" | cut -d' ' -f2)" = 9 ] &&
    [ "$(total "scope=cpu&$part" | cut -d' ' -f2)" = 13 ] ||
    fail "windows' profiles: $(total "scope=cpu&$whole"), $(total "scope=cpu&$part")"
ok "the fleet's $n views equal the local ones: whole series, whole days, whole hours, partial hours, a host named, label filters, the heap's gauge average"

# Which windows read the sums: one more in an hour of the whole window
# (the stack of the CPU profile's first row) moves the fleet's default
# sum there, not a label filter's, nor a window that has that hour only
# in part.
hash=$(ch a "SELECT any(stack_hash) FROM $db.samples WHERE scope = 'cpu'
    AND metric = 'cpu/nanoseconds'")
before_w=$(total "scope=cpu&metric=cpu&$whole" | cut -d' ' -f1)
before_l=$(total "scope=cpu&metric=cpu&$whole&label=instance%3D~.*" | cut -d' ' -f1)
before_e=$(total "scope=cpu&metric=cpu&since=$(iso $((H0 + 3700)))&until=$(iso $((H0 + 3 * 3600 - 1)))" | cut -d' ' -f1)
ch a "INSERT INTO $db.samples_hourly VALUES (toDate($((H0 + 3600))), 'cpu',
    'cpu/nanoseconds', 'h1', toDateTime($((H0 + 3600))), $hash, 1000)" >/dev/null
[ "$(total "scope=cpu&metric=cpu&$whole" | cut -d' ' -f1)" = $((before_w + 1000)) ] ||
    fail "a whole-hour window does not read the hourly sums"
[ "$(total "scope=cpu&metric=cpu&$whole&label=instance%3D~.*" | cut -d' ' -f1)" = "$before_l" ] ||
    fail "a label filter reads the hourly sums"
[ "$(total "scope=cpu&metric=cpu&since=$(iso $((H0 + 3700)))&until=$(iso $((H0 + 3 * 3600 - 1)))" | cut -d' ' -f1)" = "$before_e" ] ||
    fail "an hour in part reads the hourly sums"
ok "whole hours read the hourly sums; a label filter and the hours in part read the rows"

# The profile count reads samples_profiles, but for a label filter: a
# profile row there (of no sample) is counted in a window that has its
# time, not under a label filter nor outside the window.
before_p=$(total "scope=cpu&metric=cpu&$whole" | cut -d' ' -f2)
before_pl=$(total "scope=cpu&metric=cpu&$whole&label=instance%3D~.*" | cut -d' ' -f2)
ch a "INSERT INTO $db.samples_profiles VALUES (toDate($((H0 + 3600))), 'cpu',
    'cpu/nanoseconds', 'h1', toDateTime($((H0 + 3600))), 12345, 1)" >/dev/null
[ "$(total "scope=cpu&metric=cpu&$whole" | cut -d' ' -f2)" = $((before_p + 1)) ] ||
    fail "the profile count does not read samples_profiles"
[ "$(total "scope=cpu&metric=cpu&$whole&label=instance%3D~.*" | cut -d' ' -f2)" = "$before_pl" ] ||
    fail "a label filter's profile count reads samples_profiles"
[ "$(total "scope=cpu&metric=cpu&since=$(iso $((H0 + 3601)))&until=$(iso $((H0 + 4 * 3600 - 1)))" | cut -d' ' -f2)" = "$before_p" ] ||
    fail "a window from a second after the profile row counts it: $(total "scope=cpu&metric=cpu&since=$(iso $((H0 + 3601)))&until=$(iso $((H0 + 4 * 3600 - 1)))")"
ok "the profile count reads samples_profiles, to the second; a label filter reads the rows"

# Whole days asked of every host read samples_daily: a row added there
# moves a window without ends and one holding the whole day, not one of
# some of its hours, nor one naming a host.
before_a=$(total "scope=cpu&metric=cpu" | cut -d' ' -f1)
before_d=$(total "scope=cpu&metric=cpu&$wide" | cut -d' ' -f1)
before_p=$(total "scope=cpu&metric=cpu&$part" | cut -d' ' -f1)
before_h=$(total "scope=cpu&metric=cpu&host=h1" | cut -d' ' -f1)
ch a "INSERT INTO $db.samples_daily VALUES (toDate(toDateTime($((H0 + 600)))),
    'cpu', 'cpu/nanoseconds', $hash, 500)" >/dev/null
[ "$(total "scope=cpu&metric=cpu" | cut -d' ' -f1)" = $((before_a + 500)) ] &&
    [ "$(total "scope=cpu&metric=cpu&$wide" | cut -d' ' -f1)" = $((before_d + 500)) ] ||
    fail "whole days of every host do not read the daily sums"
[ "$(total "scope=cpu&metric=cpu&$part" | cut -d' ' -f1)" = "$before_p" ] ||
    fail "a window of some hours reads the daily sums"
[ "$(total "scope=cpu&metric=cpu&host=h1" | cut -d' ' -f1)" = "$before_h" ] ||
    fail "a window naming a host reads the daily sums"
ok "whole days of every host read the daily sums; some hours of a day, or a host named, do not"

# top's function sums (008-functions.sql): the profiles shipped since
# version 8 have them (k = 7 to 14, from 02:27 on), those before not.
# top over whole hours all of whose profiles have them reads them, and
# a window with partial hours reads those hours' stacks beside them:
# equal to the local top (exact to the inline marks), over every host
# (the daily sums) and with the host named (the hourly ones).
new="since=$(iso $((H0 + 3 * 3600)))&until=$(iso $((H0 + 5 * 3600 - 1)))"
newp="since=$(iso $((H0 + 3 * 3600 - 1500)))&until=$(iso $((H0 + 5 * 3600 + 600)))"
n=0
for w in "$new" "$newp"; do
	for q in "scope=cpu" "scope=heap&metric=alloc_space" \
	    "scope=heap&metric=alloc_objects"; do
		fleet_same top "$q&$w" "$SOCK" "$SOCK"
		fleet_same top "$q&$w&host=h1" "$SOCK" "$SOCK"
		fleet_same top "$q&$w&sort=cum" "$SOCK" "$SOCK"
		n=$((n + 3))
	done
done
# They are what it reads: a function's flat added in one of those hours
# moves that window's top, but not a window that also holds a profile
# shipped before version 8 (it reads the stacks), and no longer once a
# profile without sums (a row of samples_profiles alone) is in it.
flat_of() {	# flat_of QUERY NAME: the fleet top's flat of function NAME
	curl -s --unix-socket "$SOCK" "http://localhost/v1/top?$1&fleet=1" |
	    python3 -c 'import json, sys
j = json.load(sys.stdin)
print(sum(r["flat"] for r in j["rows"] if r["function"] == sys.argv[1]))' "$2"
}
fn=$(curl -s --unix-socket "$SOCK" "http://localhost/v1/top?scope=cpu&metric=cpu&$new&fleet=1" |
    json 'j["rows"][0]["function"]')
[ -n "$fn" ] || fail "no function in the fleet's top of $new"
case "$fn" in *"'"*|*'\\'*) fail "function name $fn: quote it" ;; esac
# The metric as a type, whole, and the scope's default (a warm top asks
# everything in one question once its default is known: the second
# call of each), by every host and with the host named.
views="metric=cpu metric=cpu%2Fnanoseconds metric=cpu&host=h1 sort=flat"
for v in $views; do
	flat_of "scope=cpu&$v&$new" "$fn" >"$T/before.$v"
	flat_of "scope=cpu&$v&$whole" "$fn" >"$T/before_o.$v"
done
key=$(ch a "SELECT fn FROM $db.function_names WHERE caller = '' AND
    name = '$fn' LIMIT 1")
[ -n "$key" ] || fail "no key of function $fn in function_names"
ch a "INSERT INTO $db.functions_hourly VALUES (toDate($((H0 + 3 * 3600))),
    'cpu', 'cpu/nanoseconds', 'h1', toDateTime($((H0 + 3 * 3600))), 0,
    $key, 1000, 0)" >/dev/null
for v in $views; do
	for i in 1 2; do
		[ "$(flat_of "scope=cpu&$v&$new" "$fn")" = $(($(cat "$T/before.$v") + 1000)) ] ||
		    fail "top ($v) of whole hours with function sums does not read them"
		[ "$(flat_of "scope=cpu&$v&$whole" "$fn")" = "$(cat "$T/before_o.$v")" ] ||
		    fail "top ($v) of a window with profiles shipped before version 8 reads the function sums"
	done
done
ch a "INSERT INTO $db.samples_profiles VALUES (toDate($((H0 + 4 * 3600))),
    'cpu', 'cpu/nanoseconds', 'h1', toDateTime($((H0 + 4 * 3600 + 100))),
    54321, 1)" >/dev/null
for v in $views; do
	[ "$(flat_of "scope=cpu&$v&$new" "$fn")" = "$(cat "$T/before.$v")" ] ||
	    fail "top ($v) reads function sums that lack a profile of the window"
done
ok "top's function sums: $n tops of whole and partial hours equal the local ones; read where every profile of the whole hours has them (metric named, whole, or the default; every host and one), not where one has none"
