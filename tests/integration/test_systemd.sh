# systemd: the unit files verify; Type=notify (READY, STATUS, WATCHDOG,
# STOPPING) over a NOTIFY_SOCKET the test listens on; socket activation.
. "$(dirname "$0")/lib.sh"
UNITS="$TESTS_DIR/../systemd"

# (a) systemd-analyze verify, on copies whose ExecStart names the built
# binary.  The man page is not installed here, hence --man=no.
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir "$T/units"
	sed "s|^ExecStart=/usr/sbin/profd |ExecStart=$PROFD |" \
	    "$UNITS/profd.service" >"$T/units/profd.service"
	cp "$UNITS/profd.socket" "$T/units/profd.socket"
	grep -q "^ExecStart=$PROFD --foreground" "$T/units/profd.service" ||
	    fail "ExecStart not rewritten"
	set +e
	(cd "$T/units" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify \
	    --man=no profd.socket profd.service) >"$T/verify.log" 2>&1
	rc=$?
	set -e
	[ "$rc" -eq 0 ] || fail "systemd-analyze verify exited $rc: $(cat "$T/verify.log")"
	# Anything it warns about in our units is a defect too.
	if grep -E 'profd\.(service|socket)' "$T/verify.log"; then
		fail "systemd-analyze verify warns about the units"
	fi
	ok "systemd-analyze verify: profd.service, profd.socket"
else
	echo "skip: systemd-analyze not installed (Debian: systemd)"
fi
grep -qx 'u profd - "profd profile store" /var/lib/profd' \
    "$UNITS/profd.sysusers" || fail "profd.sysusers"
grep -qx 'd /var/spool/profd 2770 profd profd -' "$UNITS/profd.tmpfiles" ||
    fail "profd.tmpfiles"

# (b) Type=notify: a datagram socket stands in for systemd.  The helper
# starts profd, checks that the socket answers once READY=1 came, that
# WATCHDOG=1 pings come at half WATCHDOG_USEC, that STATUS= follows an
# import, and STOPPING=1 then exit 0 on SIGTERM.
PROFD_PY=$(cat <<'EOF'
import os, signal, socket, subprocess, sys, time

profd, profctl, cpu, t = sys.argv[1:5]
sock_path, db, note = t + "/profd.sock", t + "/profd.db", t + "/notify.sock"

def die(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)

n = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
n.bind(note)
env = dict(os.environ, NOTIFY_SOCKET=note, WATCHDOG_USEC="200000")
env.pop("LISTEN_FDS", None)
log = open(t + "/profd.log", "ab")
# No --foreground: under systemd it must not detach all the same.
p = subprocess.Popen([profd, "--no-config", "--spool", "none", "--socket",
                      sock_path, "--db", db], env=env,
                     stdout=log, stderr=log)
msgs = []

def recv_until(pred, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        n.settimeout(max(0.01, end - time.monotonic()))
        try:
            m = n.recv(4096).decode()
        except socket.timeout:
            break
        msgs.append(m)
        if pred(m):
            return m
    die("no %s within %.1fs; got %r; profd %s" % (what, timeout, msgs,
        "exited %s" % p.poll() if p.poll() is not None else "running"))

def fields(m):
    return dict(l.split("=", 1) for l in m.split("\n") if "=" in l)

# Timeouts bound a hang (a sanitizer build on a loaded machine is slow);
# none checks a speed.
m = recv_until(lambda m: "READY=1" in fields(m) or "READY" in fields(m), 60,
               "READY=1")
f = fields(m)
if f.get("READY") != "1":
    die("READY=%r" % f.get("READY"))
if "STATUS" not in f or sock_path not in f["STATUS"]:
    die("no STATUS naming the socket with READY=1: %r" % m)
if p.poll() is not None:
    die("profd detached or exited (%s) under NOTIFY_SOCKET" % p.returncode)
# Ready means listening: a connection succeeds at once.
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
c.settimeout(60)
c.connect(sock_path)
c.sendall(b"GET /v1/health HTTP/1.0\r\nHost: localhost\r\n\r\n")
head = c.recv(64)
if not (head.startswith(b"HTTP/1.") and head[8:13] == b" 200 "):
    die("health after READY=1: %r" % head)
c.close()
print("ok: READY=1 with STATUS=%r; the socket answers" % f["STATUS"])

# 200 ms watchdog: a ping every 100 ms; that they keep coming is the
# check, not how many fit in a time window (nor how long 4 took).
for _ in range(4):
    recv_until(lambda m: "WATCHDOG" in fields(m), 60, "WATCHDOG=1")
print("ok: 4 WATCHDOG=1 pings")

r = subprocess.run([profctl, "--socket", sock_path, "push", cpu,
                    "--scope", "sd"], capture_output=True, text=True)
if r.returncode != 0:
    die("push: " + r.stdout + r.stderr)
m = recv_until(lambda m: "1 imports done" in fields(m).get("STATUS", ""),
               60, "STATUS= after the import")
print("ok: STATUS=%r after an import" % fields(m)["STATUS"])

p.send_signal(signal.SIGTERM)
recv_until(lambda m: fields(m).get("STOPPING") == "1", 60, "STOPPING=1")
try:
    rc = p.wait(300)
except subprocess.TimeoutExpired:
    p.kill()
    die("profd did not exit within 300 s of SIGTERM")
if rc != 0:
    die("profd exited %d after SIGTERM" % rc)
if os.path.exists(sock_path):
    die("profd left its own socket behind")
print("ok: STOPPING=1 on SIGTERM, exit 0")
EOF
)
python3 -c "$PROFD_PY" "$PROFD" "$PROFCTL" "$FIXTURES/cpu.pprof" "$T" ||
    fail "notify protocol"

# (c) Socket activation: the first connection starts profd on the socket
# systemd-socket-activate holds.  No --socket: the inherited one wins, and
# its path is not unlinked at exit (systemd owns it).
if command -v systemd-socket-activate >/dev/null 2>&1; then
	ASOCK="$T/act.sock"
	systemd-socket-activate -l "$ASOCK" "$PROFD" --foreground --no-config \
	    --spool none --db "$T/act.db" >>"$T/profd.log" 2>&1 &
	PROFD_PID=$!
	wait_until "systemd-socket-activate to listen" test -S "$ASOCK"
	out=$("$PROFCTL" --socket "$ASOCK" push "$FIXTURES/cpu.pprof" \
	    --scope act) || fail "push through the activated socket: $out"
	case "$out" in *"stored as profile 1 "*) ;; *) fail "push: $out" ;; esac
	"$PROFCTL" --socket "$ASOCK" top --scope act --limit 3 >"$T/top.out" ||
	    fail "top through the activated socket"
	[ "$(wc -l <"$T/top.out")" -ge 2 ] || fail "top: $(cat "$T/top.out")"
	grep -q "socket activation" "$T/profd.log" ||
	    fail "profd did not say it uses the activated socket"
	stop_profd
	[ -S "$ASOCK" ] || fail "profd unlinked the activated socket"
	ok "socket activation: push and top on $ASOCK; socket left to its owner"
else
	echo "skip: systemd-socket-activate not installed (Debian: systemd)"
fi
