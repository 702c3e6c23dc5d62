# Shipping to ClickHouse (issue 16), against a real clickhouse-server of
# the test's own: every profile lands exactly once through ClickHouse
# going away, profd killed with -9 in the middle of shipping, and a crash
# between ClickHouse's acknowledgement and the cursor's advance.
#
# 0. Before ClickHouse is up, a push succeeds and counts as lag.
# 1. Three more pushed, ClickHouse up, profd ships the four; status shows
#    no lag.  --fleet-batch-bytes 1 makes each batch one profile (the
#    rows of any profile pass a byte): four batches, not two of 2.
# 2. ClickHouse is killed; eight more are pushed: the pushes succeed, the
#    status shows the lag (8 profiles, their bytes) and the last error.
# 3. ClickHouse comes back; profd is killed -9 once shipping has resumed.
# 4. With profd down, the first four are marked unshipped in the store
#    and their profiles rows deleted in ClickHouse (as if profd had died
#    after ClickHouse took their samples, before the rest and the
#    cursor); profd restarts and ships the backlog: it finds the four's
#    samples in ClickHouse, does not insert them again, and writes their
#    profiles rows.
# 5. ClickHouse holds every profile once: per scope and metric, the sum
#    of the values equals profd's own (POST /v1/query), the sample rows
#    equal what the profiles table says was shipped, one profiles row per
#    profile, and every stack a sample names is in the stacks table.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

command -v sqlite3 >/dev/null ||
    { echo "skip: the sqlite3 shell is not installed"; exit 77; }

ch_config a
FLEET=(--fleet-url "$(ch_url a)" --fleet-host h1 --fleet-database fleet_t
    --fleet-interval 1 --fleet-batch 2 --fleet-timeout 5
    --fleet-batch-bytes 1)
start_profd "${FLEET[@]}"

push() {	# push FILE SCOPE [label]
	local r
	r=$(api POST "/v1/profiles?scope=$2${3:+&label=$3}" \
	    --data-binary "@$FIXTURES/$1.pprof")
	[ "$(status_of "$r")" = 201 ] || fail "push $1 to $2: $r"
}
# Every profile marked shipped in the store, and the status says so.
shipped_all() {
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM profile WHERE
	    shipped_ns = 0")" = 0 ] && [ "$(fleet_status lag_profiles)" = 0 ]
}

has_error() { [ "$(fleet_status last_error)" != None ]; }

# 0. ClickHouse not started yet: the push succeeds, the backlog is
#    counted, the error shown.
push cpu web
lag1() { has_error && [ "$(fleet_status lag_profiles)" = 1 ]; }
wait_until "a lag of 1 before ClickHouse is up" lag1
ok "ClickHouse not up: lag 1, error: $(fleet_status last_error)"
for f in heap mutex block; do push "$f" web; done
ch_start a
# (Its backoff may be a minute by now: the bound past it.)
WAIT_S=300 wait_until "the first four shipped" shipped_all
[ "$(fleet_status shipped_profiles)" = 4 ] ||
    fail "shipped $(fleet_status shipped_profiles), not 4"
[ "$(fleet_status batches)" = 4 ] ||
    fail "$(fleet_status batches) batches for 4 profiles with --fleet-batch-bytes 1, not 4"
[ "$(fleet_status schema_version)" = 8 ] || fail "schema version $(fleet_status schema_version), not 8"
[ "$(ch a "SELECT count() FROM fleet_t.profiles FINAL")" = 4 ] ||
    fail "ClickHouse has not the four profiles"
ok "four profiles shipped, no lag"

# 2. ClickHouse gone: pushes go on, the lag grows.
ch_stop a
for f in cpu heap mutex block; do
	push "$f" db
	push "$f" api "env=prod"
done
failures=$(fleet_status failures)
failed_again() { [ "$(fleet_status failures)" -gt "$failures" ]; }
wait_until "a shipping error" failed_again
# The lag is counted at each round's look at the store: the next
# round (after the backoff) counts all eight.
lag8() { [ "$(fleet_status lag_profiles)" = 8 ]; }
wait_until "a lag of 8 profiles" lag8
bytes=$(( 2 * $(cat "$FIXTURES"/{cpu,heap,mutex,block}.pprof | wc -c) ))
[ "$(fleet_status lag_bytes)" = "$bytes" ] ||
    fail "lag bytes $(fleet_status lag_bytes), not $bytes"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has -i "fleet" "$T/status.txt" || fail "profctl status says nothing of the fleet"
has "8 profiles" "$T/status.txt" || fail "profctl status: no lag: $(cat "$T/status.txt")"
ok "ClickHouse down: pushes succeed, lag 8 profiles ($bytes bytes), error: $(fleet_status last_error)"

# 3. ClickHouse back; profd killed -9 once shipping has resumed.
ch_start a
resumed() { [ "$(fleet_status shipped_profiles)" -gt 4 ]; }
wait_until "shipping resumed" resumed
kill -9 "$PROFD_PID"
wait "$PROFD_PID" 2>/dev/null || true
PROFD_PID=
ok "profd killed -9 while shipping"

# 4. A crash after ClickHouse took the first four, before the cursor.
sqlite3 "$DB" "UPDATE profile SET shipped_ns = 0 WHERE scope_id =
    (SELECT id FROM scope WHERE name = 'web')" || fail "unmarking"
# ... and before their profiles rows went in (after the samples).
ch a "ALTER TABLE fleet_t.profiles DELETE WHERE scope = 'web'"
web_gone() { [ "$(ch a "SELECT count() FROM fleet_t.profiles WHERE
    scope = 'web'")" = 0 ]; }
wait_until "the web profiles rows deleted" web_gone
start_profd "${FLEET[@]}"
wait_until "the backlog shipped" shipped_all
[ "$(fleet_status skipped_profiles)" -ge 4 ] ||
    fail "skipped $(fleet_status skipped_profiles) profiles ClickHouse had, not 4 or more"
ok "restarted: backlog shipped, $(fleet_status skipped_profiles) already in ClickHouse skipped"

# 5. Every profile exactly once.
api POST /v1/query --data-binary "SELECT scope, metric || '/' || unit,
    sum(value) FROM samples GROUP BY 1, 2 ORDER BY 1, 2" |
    sed '$d' | json "'\n'.join('\t'.join(str(c) for c in r) for r in j['rows'])" \
    >"$T/profd-sums"
# What each profile counts (the raw rows, the values as given of a
# difference, aside: docs/FLEET.md "Aggregates").
ch a "SELECT scope, metric, sum(value) FROM fleet_t.samples
    WHERE host = 'h1' AND NOT endsWith(metric, '\\0raw')
    GROUP BY scope, metric ORDER BY scope, metric" \
    >"$T/ch-sums"
[ "$(wc -l <"$T/profd-sums")" -ge 12 ] || fail "few sums: $(cat "$T/profd-sums")"
diff "$T/profd-sums" "$T/ch-sums" >&2 ||
    fail "ClickHouse's sums differ from profd's"
ok "sums per scope and metric equal profd's ($(wc -l <"$T/ch-sums") of them)"
[ "$(ch a "SELECT count() FROM fleet_t.profiles FINAL")" = 12 ] ||
    fail "profiles rows: $(ch a "SELECT count() FROM fleet_t.profiles FINAL")"
[ "$(ch a "SELECT uniqExact(profile) FROM fleet_t.samples")" = 12 ] ||
    fail "profiles with samples: $(ch a "SELECT uniqExact(profile) FROM fleet_t.samples")"
rows=$(ch a "SELECT sum(arraySum(rows)) FROM fleet_t.profiles FINAL")
[ "$(ch a "SELECT count() FROM fleet_t.samples")" = "$rows" ] ||
    fail "sample rows $(ch a "SELECT count() FROM fleet_t.samples"), the profiles say $rows"
ok "12 profiles, $rows sample rows, each once"
[ "$(ch a "SELECT count() FROM fleet_t.samples WHERE stack_hash NOT IN
    (SELECT stack_hash FROM fleet_t.stacks)")" = 0 ] ||
    fail "samples name stacks the stacks table lacks"
[ "$(ch a "SELECT count() FROM fleet_t.samples WHERE scope = 'api' AND
    profile NOT IN (SELECT profile FROM fleet_t.profiles FINAL
    WHERE has(label_keys, 'env'))")" = 0 ] ||
    fail "the push labels of scope api are not in the profiles table"
ok "every stack in the stacks table; push labels shipped"

# SIGTERM with the shipper idle: a clean exit (a sanitizer build checks
# for leaks here).
stop_profd
ok "profd stopped cleanly"
