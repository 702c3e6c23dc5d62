#!/usr/bin/env bash
# profd started as its users start it, and stopped with SIGTERM:
#  - detached, by contrib/demo.sh itself (no --foreground, local defaults;
#    as root, as the README runs it, in a mount namespace of its own whose
#    /run, /var/lib and /var/spool are empty: the system paths, untouched);
#  - in the foreground (as systemd's unit and the other tests run it);
#  - socket-activated (systemd-socket-activate holds the socket).
# In each: a profile of more than 25 MB imports, SIGTERM ends the process
# (cutting nothing short), the store is whole (PRAGMA integrity_check), and
# a restart finds every profile; detached, 200 distinct pushes keep the
# WAL under 32 MB as well.  A detached profd that started its checkpoint
# thread before detaching hung on the first large import and on SIGTERM
# (issue 24).
if [ "$(id -u)" = 0 ] && [ -z "${PROFD_TEST_NS:-}" ]; then
	command -v unshare >/dev/null ||
	    { echo "skip: no unshare (util-linux)"; exit 77; }
	exec env PROFD_TEST_NS=1 unshare --mount --propagation private \
	    bash "$0" "$@"
fi
source "$TESTS_DIR/integration/lib.sh"
command -v systemd-socket-activate >/dev/null ||
	{ echo "skip: no systemd-socket-activate (Debian: systemd)"; exit 77; }
REPO=$(cd "$TESTS_DIR/.." && pwd)
unset PROFD_SOCKET
WAL_MAX=$((32 << 20))

BIG=$(big_profile)
big_bytes=$(stat -c %s "$BIG")
[ "$big_bytes" -ge 25000000 ] || fail "the large profile is $big_bytes bytes"

# 200 distinct folded profiles, 400 stacks each over 5000 functions: each
# push adds callsites, so the WAL grows unless it is checkpointed.
python3 - "$T/small" <<'EOF' || fail "folded inputs"
import os, random, sys
d = sys.argv[1]
os.mkdir(d)
rnd = random.Random(7)
for i in range(200):
    with open(os.path.join(d, "%03d.folded" % i), "w") as f:
        for _ in range(400):
            depth = rnd.randint(3, 14)
            f.write(";".join("fn%d" % rnd.randint(1, 5000)
                             for _ in range(depth)))
            f.write(" %d\n" % rnd.randint(1, 1000))
EOF

# Which profd answers on the socket, as /v1/status says (a detached one
# is not this shell's child).
status_pid() {
	curl -sf --unix-socket "$SOCK" http://localhost/v1/status |
	    json 'j["pid"]'
}

# check_store: PRAGMA integrity_check on the store of a stopped profd.
check_store() {
	local r
	r=$(python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("PRAGMA integrity_check").fetchone()[0])' "$DB") ||
	    fail "$1: cannot read the store"
	[ "$r" = ok ] || fail "$1: integrity_check: $r"
}

# exercise MODE PID [wal]: the large import, then (with wal) 200 pushes
# with the WAL watched, then SIGTERM.
exercise() {
	local mode=$1 pid=$2 out i wal max=0 at
	out=$(timeout 600 "$PROFCTL" --socket "$SOCK" push "$BIG" \
	    --scope big 2>&1) || fail "$mode: push of the large profile: $out"
	case $out in *"stored as profile"*) ;; *) fail "$mode: $out" ;; esac
	ok "$mode: the $big_bytes-byte profile imported"
	if [ "${3:-}" = wal ]; then
		for i in $(seq -f %03g 0 199); do
			out=$(timeout 120 "$PROFCTL" --socket "$SOCK" push \
			    "$T/small/$i.folded" --scope small 2>&1) ||
			    fail "$mode: push $i: $out"
			wal=$(stat -c %s "$DB-wal" 2>/dev/null || echo 0)
			[ "$wal" -le "$max" ] || max=$wal
			[ "$wal" -lt "$WAL_MAX" ] ||
			    fail "$mode: the WAL is $wal bytes after push $i"
		done
		ok "$mode: 200 pushes, the WAL at most $max bytes"
	fi
	at=$(stat -c %s "$T/profd.log" 2>/dev/null || echo 0)
	stop_pid "$mode" "$pid"
	# A detached profd logs to syslog: its log is not the test's.
	if [ "$mode" != detached ]; then
		tail -c +$((at + 1)) "$T/profd.log" >"$T/stop.log"
		has 'signal 15: stopping within' "$T/stop.log" &&
		    has -x '.*stopped' "$T/stop.log" ||
		    fail "$mode: the log does not say profd stopped on SIGTERM: $(cat "$T/stop.log")"
		! has -e 'cutting short' -e 'shutdown deadline' "$T/stop.log" ||
		    fail "$mode: SIGTERM cut work short: $(cat "$T/stop.log")"
	fi
	check_store "$mode"
	ok "$mode: SIGTERM ended profd, nothing cut short; integrity_check ok"
}

# stop_pid MODE PID: SIGTERM, then until the process is gone.  Nothing
# runs at the signal (every push was answered): profd stops at once,
# cutting nothing short, and its shutdown-timeout (10 s) never comes into
# it.  How long the close after that takes (the WAL's last checkpoint; a
# sanitizer build's leak scan on a loaded machine) is no promise of the
# design, so no clock is read: the bound is against a hang (issue 24's
# detached profd never exited), and where the log is the test's, it must
# say that profd stopped with nothing cut short (exercise), the exit
# status 0 (the caller's wait; the shutdown deadline's is 1).
stop_pid() {
	local end=$((SECONDS + 300))
	kill -TERM "$2"
	while kill -0 "$2" 2>/dev/null; do
		[ "$SECONDS" -le "$end" ] ||
		    fail "$1: profd still runs 300 s after SIGTERM"
		sleep 0.02
	done
}

# expect_all MODE N_SMALL: after a restart every profile is there.
expect_all() {
	local n
	n=$(nprofiles big)
	[ "$n" = 1 ] || fail "$1: $n large profiles after the restart"
	n=$(nprofiles small)
	[ "$n" = "$2" ] || fail "$1: $n of $2 pushed profiles after the restart"
	ok "$1: after a restart, every profile is there ($(($2 + 1)))"
}

# 1. Detached, as the README's demo starts it.
if [ -n "${PROFD_TEST_NS:-}" ]; then
	# Root: the system paths, each an empty tmpfs in this namespace only.
	for d in /run /var/lib /var/spool; do
		mount -t tmpfs -o mode=0755 profd-test "$d" ||
		    fail "cannot mount a tmpfs on $d"
	done
	[ ! -d /etc/profd ] || mount -t tmpfs profd-test /etc/profd
	SOCK=/run/profd/profd.sock
	DB=/var/lib/profd/profd.db
else
	export HOME="$T/home" XDG_RUNTIME_DIR="$T/run" \
	    XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config"
	mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
	SOCK=$XDG_RUNTIME_DIR/profd/profd.sock
	DB=$XDG_STATE_HOME/profd/profd.db
fi
# Unless it finishes, a hung detached profd would outlive the test.
trap 'p=$(status_pid 2>/dev/null) && kill -9 "$p"; cleanup' EXIT
PROFD_DEMO_SETUP=0 timeout 300 bash "$REPO/contrib/demo.sh" \
    >"$T/demo.out" 2>&1 || fail "contrib/demo.sh: $(cat "$T/demo.out")"
has 'stored as profile 1 ' "$T/demo.out" ||
	fail "demo: $(cat "$T/demo.out")"
has 'runtime\.' "$T/demo.out" || fail "demo's top: $(cat "$T/demo.out")"
[ -S "$SOCK" ] || fail "the demo's profd is not on $SOCK"
# The demo waits for profd to return: it ended, so profd detached.
pid=$(status_pid) || fail "no pid in /v1/status"
ok "detached: contrib/demo.sh started profd (pid $pid) on $SOCK and printed its top"
# The WAL's bound is checked here only: what keeps it (the checkpoint
# thread) is what issue 24 broke, in a detached profd alone (started
# before daemon(3), the thread was not in the detached process).  In the
# foreground and socket-activated, the thread starts as in every other
# test, and test_store_wal checks the bound there; 200 pushes more per mode
# cost a minute of a sanitizer run.
exercise detached "$pid" wal
"$PROFD"			# as the demo starts it again
pid=$(status_pid) || fail "the restarted detached profd does not answer"
expect_all detached 200
[ "$(nprofiles demo)" = 1 ] || fail "detached: the demo's profile"
stop_pid "detached, second stop" "$pid"
check_store "detached, second stop"
trap cleanup EXIT

# 2. In the foreground.
SOCK="$T/fg.sock"
DB="$T/fg.db"
start_profd
exercise foreground "$PROFD_PID"
wait "$PROFD_PID" || fail "foreground: profd exited non-zero on SIGTERM"
PROFD_PID=
start_profd
expect_all foreground 0
stop_profd

# 3. Socket-activated: the first connection starts profd on the socket
# systemd-socket-activate holds (which then is profd: it execs).
SOCK="$T/act.sock"
DB="$T/act.db"
start_activated() {
	rm -f "$SOCK"
	systemd-socket-activate -l "$SOCK" "$PROFD" --foreground --no-config \
	    --spool none --db "$DB" >>"$T/profd.log" 2>&1 &
	PROFD_PID=$!
	wait_until "systemd-socket-activate to listen" test -S "$SOCK"
	wait_health "$SOCK"
}
start_activated
exercise activated "$PROFD_PID"
wait "$PROFD_PID" || fail "activated: profd exited non-zero on SIGTERM"
PROFD_PID=
start_activated
expect_all activated 0
has 'socket activation' "$T/profd.log" ||
	fail "profd did not say it used the activated socket"
stop_profd
