# Nothing lost, nothing counted twice: profd is killed with SIGKILL at
# several moments of spool imports (while a large Perfetto trace is being
# read, and at random), restarted each time, and at the end every file is
# gone from the spool, none is in failed/, each profile is stored exactly
# once and its totals are one copy's: the fixtures' those of go tool pprof
# (tests/fixtures/expected), the trace's those of the same file pushed.
# Then SIGTERM during a spool import: exit 0, and the file is imported
# exactly once by the time the next start is done.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spool-lib.sh"
GEN_TRACE="$BUILD_DIR/gen-trace"
[ -x "$GEN_TRACE" ] || { echo "skip: no $GEN_TRACE"; exit 77; }
SP="$T/spool"
# Sanitizer builds import several times slower.
WAIT_S=300

# 30 MB of samples over few stacks: long to import, quick to query.
"$GEN_TRACE" "$T/big.pftrace" 30000000 300 1000 2>/dev/null
mkdir -p "$SP/trace"
cp "$T/big.pftrace" "$SP/trace/.big.pftrace"
mv "$SP/trace/.big.pftrace" "$SP/trace/big.pftrace"
for p in cpu heap mutex block; do
	mkdir -p "$SP/fx-$p"
	cp "$FIXTURES/$p.pprof" "$SP/fx-$p/$p.pprof"
done
# The trace first (oldest), so the first kills land in it.
touch -d '-2 min' "$SP/trace/big.pftrace"
touch -d '-1 min' "$SP"/fx-*/*.pprof

kill_hard() {
	kill -KILL "$PROFD_PID"
	wait "$PROFD_PID" 2>/dev/null || true
	PROFD_PID=
}

# The trace is being read (or already gone: a machine fast enough).
trace_reading() {
	[ -e "$SP/trace/big.pftrace" ] || return 0
	status_field '(j["importing"] or {}).get("what", "").endswith("/trace/big.pftrace") and (j["importing"]["bytes_read"] or 0) > 0' |
	    has -x True
}

kills=0
mid=0
note_kill() {
	if [ "$(status_field 'j["importing"] is not None')" = True ]; then
		mid=$((mid + 1))
	fi
	kill_hard
	kills=$((kills + 1))
}

# Killed while the trace is being read.
for _ in 1 2 3; do
	start_profd --spool "$SP"
	wait_until "the trace's import" trace_reading
	sleep "0.$((RANDOM % 10))"
	note_kill
done
# Killed at random moments, from right after the start on.
for _ in 1 2 3 4; do
	start_profd --spool "$SP"
	sleep "$((RANDOM % 3)).$((RANDOM % 10))"
	note_kill
done
ok "killed $kills times, $mid of them during an import"

start_profd --spool "$SP"
wait_until "the spool to drain" spool_idle "$SP"
[ -z "$(pending "$SP")" ] || fail "left in the spool: $(pending "$SP")"
[ -z "$(find "$SP/failed" -mindepth 1)" ] ||
    fail "in failed/: $(find "$SP/failed" -mindepth 1; cat "$SP"/failed/*/*.error)"

# Each fixture once, with pprof's totals for every sample type.
for p in cpu heap mutex block; do
	[ "$(nprofiles "fx-$p")" = 1 ] || fail "fx-$p: $(nprofiles "fx-$p") profiles"
	for tsv in "$FIXTURES/expected/$p".*.tsv; do
		metric=$(basename "$tsv" .tsv)
		metric=${metric#*.}
		want=$(sed -n 's/^#total\t//p' "$tsv")
		got=$(body_of "$(api GET "/v1/top?scope=fx-$p&metric=$metric")" |
		    json 'j["total"]')
		[ "$got" = "$want" ] ||
		    fail "fx-$p $metric: total $got, one copy is $want"
	done
done
ok "each fixture stored once, totals equal go tool pprof's"

# The trace once, with the totals of the same file pushed.
[ "$(nprofiles trace)" = 1 ] || fail "trace: $(nprofiles trace) profiles"
"$PROFCTL" push "$T/big.pftrace" --scope ref >/dev/null || fail "push ref"
for s in trace ref; do
	body_of "$(api GET "/v1/top?scope=$s&limit=20")" |
	    json '(j["total"], [(r["function"], r["flat"], r["cum"]) for r in j["rows"]])' >"$T/top.$s"
	body_of "$(api GET "/v1/profiles?scope=$s")" |
	    json 'j["profiles"][0]["samples"]' >"$T/samples.$s"
done
cmp -s "$T/top.trace" "$T/top.ref" ||
    fail "trace totals $(cat "$T/top.trace") differ from one copy's $(cat "$T/top.ref")"
cmp -s "$T/samples.trace" "$T/samples.ref" || fail "trace samples differ"
ok "the trace stored once, totals equal one copy's ($(cat "$T/samples.ref") samples)"

# SIGTERM while a spool import runs: it finishes (or rolls back), profd
# exits 0, and the file ends up stored exactly once.
mkdir "$SP/trace2"
cp "$T/big.pftrace" "$SP/trace2/.big.pftrace"
mv "$SP/trace2/.big.pftrace" "$SP/trace2/big.pftrace"
importing_trace2() {
	status_field '(j["importing"] or {}).get("scope") == "trace2"' |
	    has -x True
}
wait_until "the second trace's import" importing_trace2
stop_profd
start_profd --spool "$SP"
wait_until "the spool to drain" spool_idle "$SP"
[ "$(nprofiles trace2)" = 1 ] || fail "trace2: $(nprofiles trace2) profiles"
ok "SIGTERM during a spool import: exit 0, stored once"
