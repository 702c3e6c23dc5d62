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

Prints "ok: ..." lines; exits 1 with "FAIL: ..." on stderr.
"""
import json
import os
import socket
import sqlite3
import sys
import threading
import time

ROUNDS = 5
HANG_S = 60.0		# a bound against a hang, not a speed check


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
    """pred() until true; False if the push ended first."""
    end = time.monotonic() + HANG_S
    while time.monotonic() < end:
        if pred():
            return True
        if push is not None and not push.is_alive():
            return False
        time.sleep(0.002)
    die("gave up waiting for " + what)


def held_round(sock, db, profile, scope, act, others):
    """One round: lock, push, act while held, release.  The push's result,
    or None if the import ended before it was seen held (busy timeout).
    The threads act adds to others end before the next round."""
    lock = sqlite3.connect(db, isolation_level=None, timeout=HANG_S)
    lock.execute("BEGIN IMMEDIATE")
    push = Push(sock, "/v1/profiles?scope=%s" % scope, profile)
    push.start()
    ok = until(lambda: health(sock) == HELD, "the held import", push) and \
        act(push)
    lock.execute("ROLLBACK")
    lock.close()
    for t in [push] + others:
        t.join(HANG_S)
        if t.is_alive():
            die("a push did not end once the lock was released")
    if not ok:
        return None
    return push.result


def run_rounds(sock, db, profile, scope, act, others=None):
    for rnd in range(1, ROUNDS + 1):
        res = held_round(sock, db, profile, scope, act,
                         others if others is not None else [])
        if res is not None:
            if res[0] != 201:
                die("the held push once the lock was released: %r" %
                    (res,))
            return
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


def main():
    if len(sys.argv) < 5:
        die(__doc__)
    mode, sock, db = sys.argv[1:4]
    profile = open(sys.argv[4], "rb").read()
    if mode == "health" and len(sys.argv) == 5:
        mode_health(sock, db, profile)
    elif mode == "ui" and len(sys.argv) == 6:
        mode_ui(sock, db, profile, sys.argv[5])
    elif mode == "queue-full" and len(sys.argv) == 9:
        mode_queue_full(sock, db, profile, open(sys.argv[5], "rb").read(),
                        sys.argv[6], sys.argv[7], int(sys.argv[8]))
    else:
        die(__doc__)


main()
