# Nothing lost, nothing counted twice: profd is killed with SIGKILL at
# a fixed list of moments of spool imports (at the start, while a large
# Perfetto trace is being read, inside an import held by the test, after
# files are stored), restarted each time, and at the end every file is
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

# note_kill WHEN: SIGKILL, saying what was in flight.
kills=0
mid=0
note_kill() {
	local at
	at=$(status_field '"%s, %s of %s bytes read" % (j["importing"]["what"], j["importing"]["bytes_read"], j["importing"]["bytes"]) if j["importing"] else "no import"')
	[ "$at" = "no import" ] || mid=$((mid + 1))
	kill_hard
	kills=$((kills + 1))
	echo "kill $kills, $1: $at"
}

# The kills land at events, not after a delay: the list below covers what
# random delays aimed at, the same on every run.  Where a machine is fast
# enough to be past an event before it is seen (the trace stored before a
# third of it is seen read), the kill lands later; it is counted all the
# same, and the end state must be the same.

# trace_read FRACTION: more than FRACTION of the trace has been read by
# the import in flight (or the trace is stored already).
trace_read() {
	[ -e "$SP/trace/big.pftrace" ] || return 0
	status_field "(lambda i: i.get('what', '').endswith('/trace/big.pftrace') and (i['bytes_read'] or 0) > $1 * (i['bytes'] or 0))(j['importing'] or {})" |
	    has -x True
}

# At the start: as soon as /v1/health answers, whatever the spool does.
start_profd --spool "$SP"
note_kill "at the start"
# While the trace is being read: its first bytes, a third, two thirds.
for f in 0 0.33 0.67; do
	start_profd --spool "$SP"
	wait_until "the trace's import past $f of it" trace_read "$f"
	note_kill "the trace read past $f of it"
done

# Inside an import, before it writes: the store's write lock is held by
# the test (BEGIN IMMEDIATE) from before the start, so the spool's first
# import waits for it inside its job, in flight until the kill.  (It waits
# 5 s, then the spool tries the file again after a pause: in flight while
# the lock is held means waiting for it.)
python3 - "$DB" "$T" <<'EOF' &
import os, sqlite3, sys, time
db, t = sys.argv[1:]
c = sqlite3.connect(db, isolation_level=None, timeout=300)
c.execute("BEGIN IMMEDIATE")
open(os.path.join(t, "locked"), "w").close()
# Until told, or until the test is gone (it failed and cleaned up).
end = time.monotonic() + 300
while (not os.path.exists(os.path.join(t, "unlock")) and
       os.path.exists(t) and time.monotonic() < end):
    time.sleep(0.05)
c.execute("ROLLBACK")
EOF
locker=$!
wait_until "the store's write lock" test -e "$T/locked"
start_profd --spool "$SP"
# (The trace's, unless it is stored already.)
held_import() {
	[ "$(status_field 'j["importing"] is not None')" = True ] ||
	    [ -z "$(pending "$SP")" ]
}
wait_until "the held import" held_import
note_kill "an import held"
touch "$T/unlock"
wait "$locker" || fail "the lock holder failed"

# After files are stored: the trace (its file gone: after the commit and
# the removal), then two more in the next run.
start_profd --spool "$SP"
wait_until "the trace stored" test ! -e "$SP/trace/big.pftrace"
note_kill "the trace stored"
two_more() {
	[ -z "$(pending "$SP")" ] ||
	    [ "$(status_field 'j["imports"]["spool"]["done"] >= 2')" = True ]
}
start_profd --spool "$SP"
wait_until "two files stored" two_more
note_kill "two more files stored"
ok "killed $kills times, $mid of them during an import"

# Between the commit and the removal a kill leaves the file in the spool
# and its profile stored: no event of profd's marks that moment, so the
# state is made as it would be left, a copy of a stored file put back
# (old enough for the listing to take it), for the check below.
start_profd --spool "$SP"
wait_until "the spool to drain" spool_idle "$SP"
kill_hard
cp "$FIXTURES/cpu.pprof" "$SP/fx-cpu/.cpu.pprof"
touch -d '-1 min' "$SP/fx-cpu/.cpu.pprof"
mv "$SP/fx-cpu/.cpu.pprof" "$SP/fx-cpu/cpu.pprof"

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
