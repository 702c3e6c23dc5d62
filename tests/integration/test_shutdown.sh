#!/usr/bin/env bash
# Bounded shutdown: after SIGTERM profd exits within shutdown-timeout
# whatever is in flight, says in its log what it cut short, and leaves the
# store whole (PRAGMA integrity_check; an import there whole or not at
# all); a second signal cuts short at once.  What runs at the signal:
#  (a) a large import from a request body, held by the test (it holds the
#      store's write lock: the import waits inside its job, in flight
#      until the test lets go);
#  (b) a streamed /v1/query reply to a client that stopped reading;
#  (c) the same import, not held: SIGTERM once it is writing (its
#      transaction begun, far from done), then a second SIGTERM;
#  (d) a scrape and a fleet round, both to a server that never answers.
# No clock is read: the work in flight does not end by itself (held, or
# waiting on a client or a server that never comes), and profd exits all
# the same, its log naming what cut it short: the shutdown-timeout in
# (a), (b), (d); in (c) the second signal, with a shutdown-timeout of an
# hour, far past the bound the test waits for the exit (against a hang).
source "$TESTS_DIR/integration/lib.sh"
BIG=$(big_profile)

# The driver: starts profd (foreground, its log in LOG), makes the work
# run, sends the signal(s), waits for the exit.  Prints "ok: ..." lines.
cat >"$T/drive.py" <<'EOF'
import json, os, re, signal, socket, sqlite3, subprocess, sys, time
import sockhttp

profd, profctl, sock, db, log, case, big = sys.argv[1:8]
extra = sys.argv[8:]
HANG_S = 300.0		# a bound against a hang, not a speed check
ROUNDS = 5

procs = []		# what this process started, ended if it fails

def die(msg):
    print("FAIL: %s: %s" % (case, msg), file=sys.stderr)
    try:
        print(open(log).read()[-3000:], file=sys.stderr)
    except OSError:
        pass
    for q in procs:
        if q.poll() is None:
            q.kill()
            q.wait()
    sys.exit(1)

def get(path):
    return sockhttp.ask(sock, path)

def until(what, pred):
    return sockhttp.until(what, pred, fail=die)

log_at = 0
def said():
    """What profd logged since this round's start."""
    with open(log, errors="replace") as f:
        f.seek(log_at)
        return f.read()

def start():
    global log_at
    for f in (db, db + "-wal", db + "-shm"):
        if os.path.exists(f):
            os.unlink(f)
    log_at = os.path.getsize(log) if os.path.exists(log) else 0
    conf = [] if "--config" in extra else ["--no-config"]
    p = subprocess.Popen([profd, "--foreground", "--spool", "none",
                          "--socket", sock, "--db", db] + conf + extra,
                         stdout=open(log, "ab"), stderr=subprocess.STDOUT)
    procs.append(p)
    end = time.monotonic() + 60
    while True:
        try:
            get("/v1/health")
            return p
        except (OSError, ValueError):
            if p.poll() is not None or time.monotonic() > end:
                die("profd did not start")
            time.sleep(0.05)

def wait_exit(p):
    try:
        return p.wait(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        p.kill()
        die("profd still runs %d s after the signal" % HANG_S)

def wal():
    return os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else 0

def push_big():
    push = subprocess.Popen([profctl, "--socket", sock, "push", big,
                             "--scope", "big"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    procs.append(push)
    return push, lambda: push.poll() is not None

def import_round():
    """(a), (c): one round, (p, push) once the log says the import was cut
    short, else None (the import ended on its own first; again).
    (a): the push's import waits for the store's write lock, which this
    process holds until the timeout has cut the import short: in flight
    at the signal however fast the machine.  profd waits for the lock for
    SQLite's busy timeout (5 s): should that run out before the cut (a
    machine far slower than any CI), the import ends with a 503.
    (c): the signals come once the import has written a MB into its
    transaction, tens of MB before its end (should it end before the
    second signal all the same: a machine far faster than any CI); the
    first is taken (the log says so: not a sleep that hopes so) before
    the second is sent."""
    p = start()
    cut = "cutting short the import of"
    lock = None
    if case == "import":
        lock = sqlite3.connect(db, isolation_level=None, timeout=HANG_S)
        lock.execute("BEGIN IMMEDIATE")
        push, ended = push_big()
        until("the held import in /v1/status", lambda: ended() or
              get("/v1/status")["importing"] is not None)
    else:
        at = wal()
        push, ended = push_big()
        until("the import to write", lambda: ended() or
              wal() > at + (1 << 20))
    if not ended():
        p.send_signal(signal.SIGTERM)
    if case == "twice":
        until("the first signal in the log", lambda: ended() or
              "signal 15: stopping within 3600s" in said())
        if not ended():
            p.send_signal(signal.SIGTERM)
    until("the import cut short", lambda: ended() or cut in said())
    if lock is not None:
        # Let go: the import goes on only to find it was cut short.
        lock.execute("ROLLBACK")
        lock.close()
    if cut in said():
        return p, push
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    wait_exit(p)
    print("the import ended before the cut (%s); again" %
          push.communicate(timeout=HANG_S)[0].strip()[:200])
    return None

push = client = None
if case in ("import", "twice"):
    for rnd in range(ROUNDS):
        r = import_round()
        if r is not None:
            p, push = r
            break
    else:
        die("no import was held at the cut in %d rounds" % ROUNDS)
elif case == "stream":
    p = start()
    # Millions of rows; the client reads nothing after the request.  The
    # query's time limit is the most there is: only the cut ends it.
    sql = (b"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
           b"LIMIT 50000000) SELECT x, x * 2, 'row ' || x FROM c")
    client = socket.socket(socket.AF_UNIX)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.settimeout(HANG_S)
    client.connect(sock)
    client.sendall(b"POST /v1/query?max_rows=1000000&timeout_ms=60000 "
                   b"HTTP/1.1\r\nHost: localhost\r\n"
                   b"Content-Length: %d\r\n\r\n" % len(sql) + sql)
    # The reply has begun (its status line, peeked: nothing is taken
    # off): the query runs, and its 30 MB wait on the client.
    head = until("the reply to begin",
                 lambda: (lambda h: len(h) >= 12 and h)(
                     client.recv(16, socket.MSG_PEEK)))
    if not head.startswith(b"HTTP/1.1 200"):
        die("the query's reply: %r" % head)
    if get("/v1/status")["query_queue"] != 0:
        die("the query did not start")
    p.send_signal(signal.SIGTERM)
elif case == "outbound":
    p = start()
    # A profile to ship; then wait until the scrape and the fleet round
    # have both sent their requests (their timeouts are longer than the
    # test, so both are in flight at the signal).
    subprocess.run([profctl, "--socket", sock, "push", big, "--scope",
                    "small"], check=True, stdout=subprocess.DEVNULL)
    conns = os.environ["HOLE_CONNS"]
    until("the scrape's GET and the fleet round's POST", lambda: (
        lambda lines: any(l.startswith("GET /debug/pprof/heap")
                          for l in lines) and
        any(l.startswith("POST ") for l in lines))(
            open(conns).read().splitlines()))
    p.send_signal(signal.SIGTERM)

rc = wait_exit(p)
text = said()
# 0, or 1 where what was cut short had not ended by the deadline and
# profd exited without it (the design's bound: it says so).
if rc != 0 and not (rc == 1 and "at the shutdown deadline" in text):
    die("profd exited %d" % rc)
print("ok: %s: profd exited (status %d) after %s" % (
    case, rc, "the second SIGTERM" if case == "twice" else "SIGTERM"))
# The timeout cuts short from the loop, a grace before the deadline, or
# at the deadline if the loop was late (a loaded machine): either way it
# is the timeout that did.
by_timeout = "(shutdown-timeout|the shutdown deadline) passed: "
want = {"import": by_timeout + "cutting short the import of",
        "twice": "a second signal: cutting short the import of",
        "stream": by_timeout + "cutting short 0 import job\\(s\\), "
                  "1 query or stream job\\(s\\)",
        "outbound": "the round in flight was cut short"}[case]
said_it = re.search(want, text)
if not said_it:
    die("the log does not say %r" % want)
if case == "outbound" and "fetch in flight was cut short" not in text:
    die("the log does not name the scrape cut short")
print("ok: %s: the log says %r" % (case, said_it.group(0)))
if push is not None:
    out = push.communicate(timeout=HANG_S)[0]
    print("ok: %s: the push said: %s" % (case, out.strip()[:200]))
c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
r = c.execute("PRAGMA integrity_check").fetchone()[0]
if r != "ok":
    die("integrity_check: %s" % r)
n = c.execute("SELECT count(*) FROM profile").fetchone()[0]
# The import was cut short before it could commit.
if case in ("import", "twice") and n != 0:
    die("%d profiles stored" % n)
print("ok: %s: integrity_check ok, %d profile(s) stored" % (case, n))
EOF

drive() {
	PYTHONPATH="$TESTS_DIR/tools" python3 "$T/drive.py" "$PROFD" "$PROFCTL" \
	    "$SOCK" "$DB" \
	    "$T/profd.log" "$@" || fail "case $1"
}
drive import "$BIG" --shutdown-timeout 2
drive stream "$BIG" --shutdown-timeout 2
drive twice "$BIG" --shutdown-timeout 3600

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
# Both time out long after the test would have ended: in flight at the
# signal, however long the test took to send it.
HOLE_CONNS="$T/hole.conns" drive outbound "$FIXTURES/cpu.pprof" --config "$T/scrape.conf" \
    --fleet-url "http://127.0.0.1:$port" --fleet-interval 1s \
    --fleet-timeout 600s --shutdown-timeout 3
