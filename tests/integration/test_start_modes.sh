#!/usr/bin/env bash
# profd started as its users start it, and stopped with SIGTERM:
#  - detached, by contrib/demo.sh itself (no --foreground, local defaults;
#    as root, as the README runs it, in a mount namespace of its own whose
#    /run, /var/lib and /var/spool are empty: the system paths, untouched);
#  - in the foreground (as systemd's unit and the other tests run it);
#  - socket-activated (systemd-socket-activate holds the socket).
# In each: a profile of more than 25 MB imports, 200 distinct pushes keep
# the WAL under 32 MB, SIGTERM ends the process within 10 s, the store is
# whole (PRAGMA integrity_check), and a restart finds every profile.
# A detached profd that started its checkpoint thread before detaching
# hung on the first large import and on SIGTERM (issue 24).
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

count_profiles() {
	api GET "/v1/profiles?scope=$1" | sed '$d' | json 'len(j["profiles"])'
}

# exercise MODE PID: the large import, 200 pushes with the WAL watched,
# then SIGTERM, timed.
exercise() {
	local mode=$1 pid=$2 out i wal max=0 t0 ms
	out=$(timeout 600 "$PROFCTL" --socket "$SOCK" push "$BIG" \
	    --scope big 2>&1) || fail "$mode: push of the large profile: $out"
	case $out in *"stored as profile"*) ;; *) fail "$mode: $out" ;; esac
	ok "$mode: the $big_bytes-byte profile imported"
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
	t0=$(date +%s%N)
	kill -TERM "$pid"
	while kill -0 "$pid" 2>/dev/null; do
		[ $(($(date +%s%N) - t0)) -lt 30000000000 ] ||
		    fail "$mode: profd still runs 30 s after SIGTERM"
		sleep 0.02
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$ms" -le 10000 ] || fail "$mode: SIGTERM took $ms ms"
	check_store "$mode"
	ok "$mode: SIGTERM ended profd in $ms ms; integrity_check ok"
}

# expect_all MODE N_DEMO: after a restart every profile is there.
expect_all() {
	local n
	n=$(count_profiles big)
	[ "$n" = 1 ] || fail "$1: $n large profiles after the restart"
	n=$(count_profiles small)
	[ "$n" = 200 ] || fail "$1: $n of 200 pushed profiles after the restart"
	ok "$1: after a restart, all 201 profiles are there"
}

# stop_detached PID: SIGTERM, then wait (it is not our child).
stop_detached() {
	kill -TERM "$1" 2>/dev/null || return 0
	while kill -0 "$1" 2>/dev/null; do sleep 0.02; done
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
exercise detached "$pid"
"$PROFD"			# as the demo starts it again
pid=$(status_pid) || fail "the restarted detached profd does not answer"
expect_all detached
[ "$(count_profiles demo)" = 1 ] || fail "detached: the demo's profile"
stop_detached "$pid"
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
expect_all foreground
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
expect_all activated
has 'socket activation' "$T/profd.log" ||
	fail "profd did not say it used the activated socket"
stop_profd
