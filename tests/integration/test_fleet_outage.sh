# The fleet's answer through shard outages (issue 41): two ClickHouse
# servers are the shards of cluster "fleet2"; profd a ships the committed
# Go-written CPU profile to the first, profd b a second one (written now
# by tests/fixtures/gen) to the second through tests/tools/ch_relay.py,
# which can refuse one table's inserts.
#
# 1. Cut mid-batch: the relay refuses b's inserts into stack_frames, so
#    b's batch stops after its samples (and whatever came before the
#    frames); top --fleet is asked of both profd meanwhile (their caches
#    of frames see that state).  Then the shard comes back, b ships.
# 2. Down: the second server is killed; top --fleet fails naming
#    ClickHouse; it is started again.
#
# After each, every line of `profctl top --fleet` of either profd (flat
# and cum, every CPU sample type) equals `go tool pprof -top` over both
# files: numbers, names and their "(inline)" and "(partial-inline)"
# marks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

fleet_gen2

ch_cluster_config fleet2 s1 s2
ch_start s1
ch_start s2
mkdir -p "$T/relay"
echo stack_frames >"$T/relay/refuse"
python3 "$TESTS_DIR/tools/ch_relay.py" "$T/relay" \
    "$(cat "$T/ch-s2/http_port")" >"$T/relay.log" 2>&1 &
RELAY_PID=$!
wait_until "the relay's port" test -s "$T/relay/port"
fleet() {	# fleet URL HOST
	echo --fleet-url "$1" --fleet-host "$2" --fleet-database fo \
	    --fleet-cluster fleet2 --fleet-interval 1 --fleet-timeout 10
}
# shellcheck disable=SC2046
start_profd $(fleet "$(ch_url s1)" a)
# shellcheck disable=SC2046
fleet_profd b $(fleet "http://127.0.0.1:$(cat "$T/relay/port")" b)
trap 'rc=$?; [ "$rc" = 0 ] || { echo "--- b log ---"; tail -n 20 "$T/b.log"; } >&2
    kill "$RELAY_PID" "$(cat "$T/b.pid")" 2>/dev/null; ch_cleanup' EXIT

# want_of METRIC [-cum]: go tool pprof -top over both files, the table's
# file in $want: made at its first use only (the files never change; go
# tool pprof was run 16 times for these 4 tables).  Not in a $(...):
# a fail there would end the subshell, not the test.
want_of() {
	want="$T/want-$1$2.txt"
	if [ ! -s "$want" ]; then
		pprof_want cpu "$1" ${2:+"$2"}
		cp "$T/want.txt" "$want"
	fi
}

# every_line SOCK WHAT: top --fleet of SOCK, each CPU sample type, flat
# and cum, equals go tool pprof -top over both files, line by line (the
# lines compared added to $lines).
lines=0
every_line() {
	local metric cum want
	for metric in samples cpu; do
		for cum in "" -cum; do
			want_of "$metric" "$cum"
			"$PROFCTL" --socket "$1" top --fleet --scope fx-cpu \
			    --metric "$metric" ${cum:+--cum} >"$T/got.top" ||
			    fail "$2: profctl top --fleet of $1"
			table_of "$T/got.top" >"$T/got.txt"
			diff -u "$want" "$T/got.txt" >&2 ||
			    fail "$2: top --fleet $metric $cum of $1 differs from go tool pprof -top over both files"
			lines=$((lines + $(wc -l <"$want")))
		done
	done
	# The marks this checks are there to lose.
	want_of cpu ""
	grep -q '(partial-inline)$' "$want" && grep -q '(inline)$' \
	    "$want" || fail "pprof shows no inline marks to compare"
}

# 1. b's batch cut between its samples and its frames.
fleet_push "$T/b.sock" "$GEN2/cpu.pprof" fx-cpu
WAIT_S=300 wait_until "the relay refusing b's stack_frames" \
    sh -c "[ \"\$(cat '$T/relay/refused' 2>/dev/null || echo 0)\" -ge 1 ]"
[ "$(ch s2 "SELECT count() FROM fo.samples WHERE host = 'b'")" -gt 0 ] ||
    fail "b's samples should be in before its frames were refused"
[ "$(ch s2 "SELECT count() FROM fo.stack_frames")" = 0 ] ||
    fail "the relay let stack_frames rows through"
# (The metric named: b's profiles row, which names the default one,
# comes after its stacks.)
for s in "$SOCK" "$T/b.sock"; do
	"$PROFCTL" --socket "$s" top --fleet --scope fx-cpu --metric cpu \
	    >/dev/null || fail "top --fleet of $s while b's batch is cut"
done
fleet_push "$SOCK" "$FIXTURES/cpu.pprof" fx-cpu
WAIT_S=300 wait_until "a's profile shipped" fleet_shipped "$SOCK" 1
rm "$T/relay/refuse"
# Its samples landed before the cut: the retry finds the profile there
# and ships the rest of it (counted as skipped, not shipped).
b_done() {
	[ "$(curl -s --unix-socket "$T/b.sock" http://localhost/v1/status |
	    json "j['fleet']['lag_profiles']")" = 0 ]
}
# (Its backoff may have grown to a minute meanwhile.)
WAIT_S=300 wait_until "b's profile shipped once its shard is back" b_done
for s in "$SOCK" "$T/b.sock"; do
	every_line "$s" "after b's batch was cut"
done
ok "a batch cut between its samples and its frames: top --fleet of a and b equals go tool pprof -top over both files, every line ($lines), marks included"

# 2. The second shard down, then back.
ch_stop s2
r=$(api GET "/v1/top?scope=fx-cpu&fleet=1")
[ "$(status_of "$r")" = 503 ] && has ClickHouse <(body_of "$r") ||
    fail "top --fleet with a shard down: $r"
ch_start s2
lines=0
for s in "$SOCK" "$T/b.sock"; do
	every_line "$s" "after the shard was down"
done
ok "a shard down: top --fleet is a 503 naming ClickHouse; back, top --fleet of a and b equals go tool pprof -top, every line ($lines)"
