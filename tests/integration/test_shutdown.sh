#!/usr/bin/env bash
# Bounded shutdown: after SIGTERM profd exits within shutdown-timeout
# whatever is in flight, says in its log what it cut short, and leaves the
# store whole (PRAGMA integrity_check; an import there whole or not at
# all); a second signal cuts short at once.  What runs at the signal:
#  (a) a large import from a request body (it runs past the timeout);
#  (b) a streamed /v1/query reply to a client that stopped reading;
#  (c) (a) again, with a second SIGTERM;
#  (d) a scrape and a fleet round, both to a server that never answers.
source "$TESTS_DIR/integration/lib.sh"
BIG=$(big_profile)

# The driver: starts profd (foreground, its log in LOG), makes the work
# run, sends the signal(s), times the exit.  Prints "ok: ..." lines.
cat >"$T/drive.py" <<'EOF'
import json, os, signal, socket, sqlite3, subprocess, sys, threading, time

profd, profctl, sock, db, log, case, big = sys.argv[1:8]
extra = sys.argv[8:]

def die(msg):
    print("FAIL: %s: %s" % (case, msg), file=sys.stderr)
    try:
        print(open(log).read()[-3000:], file=sys.stderr)
    except OSError:
        pass
    sys.exit(1)

def get(path):
    c = socket.socket(socket.AF_UNIX)
    c.settimeout(10)
    c.connect(sock)
    c.sendall(("GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n" % path).encode())
    data = b""
    while True:
        b = c.recv(65536)
        if not b:
            break
        data += b
    c.close()
    return json.loads(data.split(b"\r\n\r\n", 1)[1])

for f in (db, db + "-wal", db + "-shm"):
    if os.path.exists(f):
        os.unlink(f)
conf = [] if "--config" in extra else ["--no-config"]
p = subprocess.Popen([profd, "--foreground", "--spool", "none", "--socket",
                      sock, "--db", db] + conf + extra,
                     stdout=open(log, "ab"), stderr=subprocess.STDOUT)
end = time.monotonic() + 60
while True:
    try:
        get("/v1/health")
        break
    except (OSError, ValueError):
        if p.poll() is not None or time.monotonic() > end:
            die("profd did not start")
        time.sleep(0.05)

timeout = 10.0
for i, a in enumerate(extra):
    if a == "--shutdown-timeout":
        timeout = float(extra[i + 1].rstrip("s"))

def wait_importing():
    end = time.monotonic() + 300
    while time.monotonic() < end:
        if get("/v1/status")["importing"] is not None:
            return
        if push.poll() is not None:
            die("the push ended before profd was seen importing: %s"
                % push.stdout.read())
        time.sleep(0.02)
    die("no import seen")

push = client = None
if case in ("import", "twice"):
    push = subprocess.Popen([profctl, "--socket", sock, "push", big,
                             "--scope", "big"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    wait_importing()
    time.sleep(0.5)
elif case == "stream":
    # Millions of rows; the client reads nothing after the request.
    sql = (b"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
           b"LIMIT 50000000) SELECT x, x * 2, 'row ' || x FROM c")
    client = socket.socket(socket.AF_UNIX)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.connect(sock)
    client.sendall(b"POST /v1/query?max_rows=1000000 HTTP/1.1\r\n"
                   b"Host: localhost\r\nContent-Length: %d\r\n\r\n" % len(sql)
                   + sql)
    time.sleep(2)           # until its buffers are full
    if get("/v1/status")["query_queue"] != 0:
        die("the query did not start")
elif case == "outbound":
    # A profile to ship; then wait until the scrape and the fleet round
    # have both sent their requests (the scrape's timeout is longer than
    # the test, so the fetch is in flight at the signal).
    subprocess.run([profctl, "--socket", sock, "push", big, "--scope",
                    "small"], check=True, stdout=subprocess.DEVNULL)
    conns = os.environ["HOLE_CONNS"]
    end = time.monotonic() + 120
    while True:
        lines = open(conns).read().splitlines()
        if (any(l.startswith("GET /debug/pprof/heap") for l in lines) and
                any(l.startswith("POST ") for l in lines)):
            break
        if time.monotonic() > end:
            die("the scrape and the fleet round did not both send a "
                "request: %r" % lines)
        time.sleep(0.05)

t0 = time.monotonic()
p.send_signal(signal.SIGTERM)
if case == "twice":
    time.sleep(0.3)
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
try:
    rc = p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    die("profd still runs 60 s after SIGTERM")
took = time.monotonic() - t0
bound = 2.0 if case == "twice" else timeout
# A bound of the design (the deadline, then _exit), plus slack for the
# close after the loop (the WAL's last checkpoint; LeakSanitizer's scan in
# a sanitizer build) on a loaded machine: a check against hanging (the
# old drain waited 60 s, a join forever), not a speed target.
if took > bound + 3.0:
    die("profd took %.2f s to exit (shutdown bound %.1f s)" % (took, bound))
print("ok: %s: profd exited (status %d) %.2f s after %s" % (
    case, rc, took, "the second SIGTERM" if case == "twice" else "SIGTERM"))
text = open(log).read()
want = {"import": "cutting short the import of",
        "twice": "a second signal: cutting short the import of",
        "stream": "cutting short 0 import job(s), 1 query or stream job(s)",
        "outbound": "the round in flight was cut short"}[case]
if want not in text:
    die("the log does not say %r" % want)
if case == "outbound" and "fetch in flight was cut short" not in text:
    die("the log does not name the scrape cut short")
print("ok: %s: the log says %r" % (case, want))
if push is not None:
    out = push.communicate(timeout=60)[0]
    print("ok: %s: the push said: %s" % (case, out.strip()[:200]))
c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
r = c.execute("PRAGMA integrity_check").fetchone()[0]
if r != "ok":
    die("integrity_check: %s" % r)
n = c.execute("SELECT count(*) FROM profile").fetchone()[0]
if case in ("import", "twice") and n not in (0, 1):
    die("%d profiles stored" % n)
print("ok: %s: integrity_check ok, %d profile(s) stored" % (case, n))
EOF

drive() {
	python3 "$T/drive.py" "$PROFD" "$PROFCTL" "$SOCK" "$DB" \
	    "$T/profd.log" "$@" || fail "case $1"
}
drive import "$BIG" --shutdown-timeout 2
drive stream "$BIG" --shutdown-timeout 2
drive twice "$BIG"

# (d) A server that accepts and never answers: a scrape target and a
# ClickHouse both.
python3 "$TESTS_DIR/tools/badserver.py" silent "$T/hole.port" "$T/hole.conns" &
hole_pid=$!
trap 'kill $hole_pid 2>/dev/null; cleanup' EXIT
wait_until "the silent server" test -s "$T/hole.port"
port=$(cat "$T/hole.port")
cat >"$T/scrape.conf" <<EOF
[scrape hole]
url = http://127.0.0.1:$port
profiles = heap
interval = 1s
timeout = 600s
EOF
HOLE_CONNS="$T/hole.conns" drive outbound "$FIXTURES/cpu.pprof" --config "$T/scrape.conf" \
    --fleet-url "http://127.0.0.1:$port" --fleet-interval 1s \
    --shutdown-timeout 3
