#!/usr/bin/env python3
"""Hold an import of profd in progress, on purpose, and act while it is.

This process takes the store's write lock (BEGIN IMMEDIATE on the
database), so an import waits for it inside its transaction, known to be
in progress; what the test wants to see meanwhile runs in this one process
over the Unix socket (no process start-up per request, so a loaded machine
costs milliseconds, not seconds); then the lock is released and the held
import must be stored.

profd's import waits for the lock for SQLite's busy timeout (5 s); were
that to run out first (a machine far slower than any CI), the push gets
503 and the round is tried again, up to 5 rounds.  Nothing here checks a
speed: latency figures belong in bench/.

  held_import.py health SOCK DB PROFILE
      health is asked 5 times while the import is held; every answer must
      report it.
  held_import.py ui SOCK DB PROFILE WEBDIR
      the browser UI's page and script are asked 5 times each while the
      import is held; every answer must be 200 with the file.
  held_import.py queue-full SOCK DB PROFILE QUEUED LOG SPOOLDIR N
      while the held import runs and a second push waits in the import
      queue (profd started with --import-queue 1), N folded files are
      dropped into SPOOLDIR and the log must say the queue is full.
  held_import.py progress SOCK DB PROFILE PROFCTL SAMPLES INFLATED
      /v1/status's importing while the import of PROFILE (a large gzipped
      pprof of SAMPLES samples, INFLATED bytes inflated) is held: its
      progress at zero; then, released, the status is read as it runs:
      bytes_done and samples_done only grow, their totals are the
      inflated size and the sample count; a read in the samples phase
      shows all bytes read and samples part-way, and `PROFCTL status`
      run then shows a percentage and a rate.  The reads are as many as
      the machine's speed gives: nothing counts them; another import
      (another scope) is held and read if none fell in the samples
      phase.

Prints "ok: ..." lines; exits 1 with "FAIL: ..." on stderr.
"""
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time

ROUNDS = 5
HANG_S = 300.0		# a bound against a hang, not a speed check


def die(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def http(sock, method, path, body=b"", raw=False):
    """One request on its own connection: (status, parsed JSON or None),
    or (status, the body's bytes) with raw."""
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.settimeout(HANG_S)
    c.connect(sock)
    head = "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" \
        "Content-Length: %d\r\n\r\n" % (method, path, len(body))
    c.sendall(head.encode() + body)
    data = b""
    while True:
        b = c.recv(65536)
        if not b:
            break
        data += b
    c.close()
    h, _, payload = data.partition(b"\r\n\r\n")
    status = int(h.split(b" ", 2)[1])
    if b"chunked" in h.lower():
        out = b""
        while payload:
            n, _, rest = payload.partition(b"\r\n")
            n = int(n, 16)
            if n == 0:
                break
            out += rest[:n]
            payload = rest[n + 2:]
        payload = out
    if raw:
        return status, payload
    try:
        return status, json.loads(payload)
    except ValueError:
        return status, None


def health(sock):
    st, j = http(sock, "GET", "/v1/health")
    if st != 200 or j is None:
        die("health: %s %r" % (st, j))
    return (j["status"], j["importing"], j["queue_depth"] >= 1)


HELD = ("ok", True, True)


class Push(threading.Thread):
    def __init__(self, sock, path, body):
        super().__init__(daemon=True)
        self.sock, self.path, self.body = sock, path, body
        self.result = None

    def run(self):
        self.result = http(self.sock, "POST", self.path, self.body)


def until(pred, what, push=None):
    """pred() until true, and its value; False if the push ended
    first."""
    end = time.monotonic() + HANG_S
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        if push is not None and not push.is_alive():
            return False
        time.sleep(0.002)
    die("gave up waiting for " + what)


def held_round(sock, db, profile, scope, act, others, running=None,
               name=None):
    """One round: lock, push (named name, if given), act while held,
    release, then running(push) while it imports, if given.  The push's
    result, or None if the import ended before it was seen held (busy
    timeout).  The threads act adds to others end before the next
    round."""
    lock = sqlite3.connect(db, isolation_level=None, timeout=HANG_S)
    lock.execute("BEGIN IMMEDIATE")
    path = "/v1/profiles?scope=%s" % scope
    if name is not None:
        path += "&name=" + name
    push = Push(sock, path, profile)
    push.start()
    ok = until(lambda: health(sock) == HELD, "the held import", push) and \
        act(push)
    lock.execute("ROLLBACK")
    lock.close()
    if ok and running is not None:
        running(push)
    for t in [push] + others:
        t.join(HANG_S)
        if t.is_alive():
            die("a push did not end once the lock was released")
    if not ok:
        return None
    return push.result


def run_rounds(sock, db, profile, scope, act, others=None, running=None,
               name=None):
    """held_round until one is held; its push's result, which must be
    201."""
    for rnd in range(1, ROUNDS + 1):
        res = held_round(sock, db, profile, scope, act,
                         others if others is not None else [], running,
                         name)
        if res is not None:
            if res[0] != 201:
                die("the held push once the lock was released: %r" %
                    (res,))
            return res
        print("round %d: the import ended before it was seen held; again" %
              rnd)
    die("no import was seen held in %d rounds" % ROUNDS)


def mode_health(sock, db, profile):
    answers = []

    def act(push):
        del answers[:]
        for _ in range(5):
            answers.append(health(sock))
        # Still held after the last answer: it was held throughout.
        return health(sock) == HELD and push.is_alive()

    run_rounds(sock, db, profile, "held", act)
    if set(answers) != {HELD}:
        die("health while the import was held: %r" % answers)
    print("ok: health answered 5 times while an import was held, each "
          "reporting it")
    if health(sock) != ("ok", False, False):
        die("health once the import was stored: %r" % (health(sock),))
    print("ok: the held import was stored once the lock was released")


def mode_ui(sock, db, profile, webdir):
    want = {p: open(os.path.join(webdir, f), "rb").read()
            for p, f in (("/ui/", "index.html"), ("/ui/app.js", "app.js"))}
    got = []

    def act(push):
        del got[:]
        for _ in range(5):
            for p, body in want.items():
                got.append((p, http(sock, "GET", p, raw=True) ==
                            (200, body)))
        return health(sock) == HELD and push.is_alive()

    run_rounds(sock, db, profile, "held", act)
    bad = [p for p, good in got if not good]
    if bad or not got:
        die("UI files while the import was held: wrong %r" % bad)
    print("ok: the UI's files answered 5 times each while an import was "
          "held")


def watched_dirs(sock):
    return http(sock, "GET", "/v1/status")[1]["spool"]["watched_dirs"]


def mode_queue_full(sock, db, profile, queued, log, spooldir, n):
    queued_push = []

    # The scope directory first, watched before its files come: files
    # found by the listing of a new directory wait to settle (5 s), longer
    # than the held import may wait for the lock.
    before = watched_dirs(sock)
    os.makedirs(spooldir)
    until(lambda: watched_dirs(sock) > before, "the new scope directory's "
          "watch")

    def full():
        with open(log, errors="replace") as f:
            return "the import queue is full" in f.read()

    def act(push):
        q = Push(sock, "/v1/profiles?scope=queued", queued)
        q.start()
        queued_push.append(q)
        if not until(lambda: http(sock, "GET", "/v1/status")[1]
                     ["import_queue"] == 1, "the queued push", push):
            return False
        for i in range(1, n + 1):
            tmp = os.path.join(spooldir, ".s%d" % i)
            with open(tmp, "w") as f:
                f.write("main;f%d %d\n" % (i, i))
            os.rename(tmp, os.path.join(spooldir, "s%d.folded" % i))
        if not until(full, "the import queue is full in the log", push):
            return False
        return push.is_alive()

    run_rounds(sock, db, profile, "long", act, queued_push)
    last = queued_push[-1].result
    if last is None or last[0] not in (200, 201):
        die("the queued push: %r" % (last,))
    print("ok: %d spool files found the import queue full" % n)


def importing(sock):
    st, j = http(sock, "GET", "/v1/status")
    if st != 200 or j is None:
        die("status: %s %r" % (st, j))
    return j["importing"]


PROGRESS = ("phase", "bytes_done", "bytes_total", "samples_done",
            "samples_total")
PHASES = ["reading", "samples", "storing"]


# What profctl status says of an import in its samples phase: a
# percentage, and a rate (said once the import has run half a second).
SAID = re.compile(
    r"importing: push big.pb.gz \(scope progress[0-9]*\).*\n  [0-9.]+ "
    r"[kM]? ?of 720.0 k samples \([0-9]+%\), [0-9.]+ [kM]? ?samples/s")


def progress_round(sock, db, profile, profctl, samples, scope):
    """One import of PROFILE into scope, held, then read as it runs: its
    status when held, the progress read (phase first), and the read in
    its samples phase with what profctl status said just after, if one
    fell there with profctl still in that phase (else None)."""
    held, seen, mid = [], [], []

    def act(push):
        del held[:], seen[:], mid[:]
        # /v1/health says "importing" once the job is taken, a moment
        # before the import thread begins its activity: wait for the
        # status to show it, still held.
        cur = until(lambda: importing(sock), "the held import's status",
                    push)
        if not cur:
            return False
        held.append(cur)
        # Held until it has run a second (its time counts from the job
        # taken): profctl then says a rate at any later read.
        return until(lambda: (importing(sock) or {}).get("seconds", 0) >
                     1, "a second of the held import", push)

    def running(push):
        while push.is_alive():
            cur = importing(sock)
            if cur is not None:
                seen.append(tuple(cur.get(k) for k in PROGRESS))
            if cur is not None and not mid and \
                    cur["phase"] == "samples" and \
                    0 < cur["samples_done"] < samples:
                text = subprocess.run(
                    [profctl, "--socket", sock, "status"],
                    capture_output=True, text=True, timeout=HANG_S).stdout
                # profctl's own read may come after the phase ended.
                if SAID.search(text):
                    mid.append((cur, text))
            time.sleep(0.01)

    res = run_rounds(sock, db, profile, scope, act, running=running,
                     name="big.pb.gz")
    if res[1]["samples"] != samples:
        die("the held push: %r" % (res,))
    return held[-1], seen, mid[0] if mid else None


def mode_progress(sock, db, profile, profctl, samples, inflated):
    """Rounds (each its own scope: the same bytes in the same scope
    would be a duplicate, not imported) until a status read and profctl
    status after it fell in the import's samples phase: how long that
    phase lasts is the machine's business."""
    for rnd in range(1, ROUNDS + 1):
        scope = "progress" if rnd == 1 else "progress%d" % rnd
        at_hold, seen, mid = progress_round(sock, db, profile, profctl,
                                            samples, scope)
        if at_hold["what"] != "big.pb.gz" or \
                at_hold["phase"] != "reading" or \
                at_hold["bytes_done"] != 0 or at_hold["samples_done"] != 0:
            die("the import held before it began: %r" % (at_hold,))
        seen.insert(0, tuple(at_hold.get(k) for k in PROGRESS))
        for a, b in zip(seen, seen[1:]):
            if b[1] < a[1] or b[3] < a[3] or \
                    PHASES.index(b[0]) < PHASES.index(a[0]):
                die("progress went back: %r then %r" % (a, b))
        if any(x[2] != inflated for x in seen if x[0] != "reading" or x[1]):
            die("bytes_total is not the inflated size %d: %r" %
                (inflated, sorted(set(x[2] for x in seen))))
        if any(x[4] != samples for x in seen if x[0] != "reading"):
            die("samples_total is not %d: %r" %
                (samples, sorted(set(x[4] for x in seen))))
        if mid is not None:
            break
        print("round %d: no status read fell in the import's samples "
              "phase with profctl status after it; again" % rnd)
    else:
        die("no status read fell in the import's samples phase in %d "
            "rounds" % ROUNDS)
    print("ok: held, the import showed %r" % (seen[0],))
    cur, text = mid
    # pprof is read whole before its samples go in.
    if cur["bytes_done"] != inflated:
        die("bytes_done in the samples phase is not the inflated size %d: "
            "%r" % (inflated, cur))
    print("ok: %d status reads during the import, the progress only "
          "growing; in its samples phase: %d of %d bytes read, %d of %d "
          "samples" % (len(seen) - 1, cur["bytes_done"], inflated,
                       cur["samples_done"], samples))
    print("ok: profctl status said: %s" %
          [l for l in text.splitlines() if "samples/s" in l][0].strip())


def main():
    if len(sys.argv) < 5:
        die(__doc__)
    mode, sock, db = sys.argv[1:4]
    profile = open(sys.argv[4], "rb").read()
    if mode == "health" and len(sys.argv) == 5:
        mode_health(sock, db, profile)
    elif mode == "ui" and len(sys.argv) == 6:
        mode_ui(sock, db, profile, sys.argv[5])
    elif mode == "progress" and len(sys.argv) == 8:
        mode_progress(sock, db, profile, sys.argv[5], int(sys.argv[6]),
                      int(sys.argv[7]))
    elif mode == "queue-full" and len(sys.argv) == 9:
        mode_queue_full(sock, db, profile, open(sys.argv[5], "rb").read(),
                        sys.argv[6], sys.argv[7], int(sys.argv[8]))
    else:
        die(__doc__)


main()
