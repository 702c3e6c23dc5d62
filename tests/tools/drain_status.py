#!/usr/bin/env python3
"""A backlog drained as a user sees it in the status: the spool's, the
fleet's.

Each state is made to last while it is looked at, never caught in
passing: the backlog waits with no rate before anything was done; it
waits with a rate once some was done (the spool: the store's write lock
held; the fleet: ClickHouse down); then it drains, watched until it has.
The rate is over the completions of the last 60 s (daemon/base/rate.h):
a state looked at more than that after the last two completions (a
machine stalled for a minute) has no rate any more, rightly; the test's
clock bounds when they were, and such a round is tried again.

  drain_status.py spool SOCK DB SPOOLDIR PROFILE N PROFCTL
      distinct copies of a real profile (its raw protobuf with an unknown
      field 1000 holding a counter: each a new profile of the same
      samples) are dropped into the spool's scope directory while this
      process holds the store's write lock (BEGIN IMMEDIATE), so that none
      can be stored and all wait.  First a few: the status shows the
      waiting bytes with no rate (no file done yet), and `profctl status`
      says so; released, they are stored.  Then N more, held the same
      way: now the status shows a rate and a time left that covers the
      waiting bytes at that rate, and `profctl status` the time left.
      Released, they drain: at the end nothing waits, eta_s is null and
      every file dropped was imported ("ok: drained: COUNT files ...").
  drain_status.py fleet-drain SOCK N SINCE OUT
      until the fleet's backlog is shipped (N profiles or more sent or
      found already there): lag 0, eta_s null, a rate.  SINCE: the
      monotonic clock (Python's time.monotonic()) before ClickHouse
      could take any; OUT: a time before the last two batches were done,
      for fleet-held.
  drain_status.py fleet-held SOCK PROFCTL OUT
      with ClickHouse down after the batches fleet-drain saw (OUT):
      lag_bytes above 0 with a rate and a time left that covers them,
      and `profctl status` the time left.  Exits 2 if the rate's window
      has passed since those batches: the test tries again.

profd's import waits for the lock for SQLite's busy timeout (5 s), then
keeps the file and tries it again later (spool.c's spool_hold): a lock
held longer only delays the drain.  Nothing here checks a speed.
Prints "ok: ..." lines; exits 1 with "FAIL: ..." on stderr.
"""
import gzip
import http.client
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time

from pbwire import fv

HANG_S = 300.0		# a bound against a hang, not a speed check
RATE_WINDOW_S = 60	# daemon/base/rate.h's RATE_WINDOW_NS
FIRST = 5		# files done before the held backlog: a rate (2 at least)
ROUNDS = 3


def die(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=HANG_S)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(HANG_S)
        self.sock.connect(self.path)


def get(sock, path):
    c = UnixConnection(sock)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    try:
        j = json.loads(body)
    except ValueError:
        j = None
    if r.status != 200 or j is None:
        die("%s: %s %r" % (path, r.status, body[:200]))
    return j


def spool(sock):
    return get(sock, "/v1/status")["spool"]


def fleet(sock):
    return get(sock, "/v1/status")["fleet"]


def until(pred, what):
    end = time.monotonic() + HANG_S
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.01)
    die("gave up waiting for " + what)


def status_text(profctl, sock):
    env = dict(os.environ, PROFD_SOCKET=sock)
    r = subprocess.run([profctl, "status"], env=env, capture_output=True,
                       text=True, timeout=HANG_S)
    if r.returncode != 0:
        die("profctl status exited %d: %s" % (r.returncode, r.stderr))
    return r.stdout


def backlog_line(text, head):
    return [l for l in text.splitlines() if l.startswith(head)]


def check_drain(s, backlog):
    """A status answer while backlog bytes wait, with a rate: a time left
    that covers them at it (rounded up, at a rate rounded to whole
    bytes)."""
    rate, eta = s["drain_bytes_per_s"], s["eta_s"]
    if not isinstance(rate, int) or rate <= 0:
        die("drain_bytes_per_s: %r" % s)
    if not isinstance(eta, int) or eta < 1:
        die("eta_s while %d bytes wait: %r" % (backlog, s))
    if eta * (rate + 1) < backlog:
        die("eta_s %d at %d B/s leaves bytes waiting: %r" % (eta, rate, s))


def drain(sock, part, left, done, since, what):
    """Status answers until done(s): the last, and when (the monotonic
    clock) the last answer began that had 2 or more left(s), or since
    (nothing was done before) if none had: the last two completions came
    after it."""
    t_low = since
    end = time.monotonic() + HANG_S
    while time.monotonic() < end:
        t = time.monotonic()
        s = part(sock)
        if done(s):
            return s, t_low
        if left(s) >= 2:
            t_low = t
        time.sleep(0.01)
    die("%s did not drain: %r" % (what, s))


def rate_due(t_low):
    """The last two completions were within the rate's window of now: a
    rate is known."""
    return time.monotonic() - t_low <= RATE_WINDOW_S


def held_with_rate(sock, part, backlog, profctl, head, t_low):
    """The backlog waits, nothing can complete, some did before (after
    t_low): the status and profctl status show a rate and a time left
    that covers it.  The answer and profctl's line; None if the rate's
    window passed first."""
    s = part(sock)
    if backlog(s) <= 0:
        die("nothing waits: %r" % s)
    lines = backlog_line(status_text(profctl, sock), head)
    if s["drain_bytes_per_s"] is None or not lines or \
            not lines[0].endswith(" left"):
        if not rate_due(t_low):
            return None
        die("no rate %d s after the last completions: %r; profctl: %r" %
            (time.monotonic() - t_low, s, lines))
    check_drain(s, backlog(s))
    return s, lines[0].strip()


class Spool:
    """The scope directory and the files dropped into it."""

    def __init__(self, sock, db, spooldir, profile):
        with open(profile, "rb") as f:
            self.raw = f.read()
        if self.raw[:2] == b"\x1f\x8b":
            self.raw = gzip.decompress(self.raw)
        self.sock, self.db, self.n, self.bytes = sock, db, 0, 0
        # The scope directory first, watched before its files come:
        # files found by the listing of a new directory wait to settle
        # (5 s).
        before = spool(sock)["watched_dirs"]
        self.scope = os.path.join(spooldir, "drain")
        os.mkdir(self.scope)
        until(lambda: spool(sock)["watched_dirs"] > before,
              "the scope watched")

    def hold(self, n):
        """The store's write lock taken, n files dropped, waiting until
        all are listed: waiting, or held in the import (2 at most)."""
        self.lock = sqlite3.connect(self.db, isolation_level=None,
                                    timeout=HANG_S)
        self.lock.execute("BEGIN IMMEDIATE")
        for i in range(self.n, self.n + n):
            b = self.raw + fv(1000, i + 1)
            tmp = os.path.join(self.scope, ".%d.tmp" % i)
            with open(tmp, "wb") as f:
                f.write(b)
            os.rename(tmp, os.path.join(self.scope, "p%04d.pb" % i))
            self.bytes += len(b)
        self.n += n

        def listed():
            s = spool(self.sock)
            return s["waiting_files"] + s["in_flight"] == n
        until(listed, "%d files listed" % n)

    def release(self):
        """The lock released, and the files drained."""
        since = time.monotonic()
        self.lock.execute("ROLLBACK")
        self.lock.close()
        return drain(self.sock, spool,
                     lambda s: s["waiting_files"] + s["in_flight"],
                     lambda s: s["waiting_files"] == 0 and
                     s["in_flight"] == 0 and s["imported"] >= self.n,
                     since, "the backlog")


def mode_spool(sock, db, spooldir, profile, n, profctl):
    n = int(n)
    sp = Spool(sock, db, spooldir, profile)

    # Held before any file was done: no rate yet.
    sp.hold(FIRST)
    s = spool(sock)
    if s["waiting_bytes"] <= 0:
        die("nothing waiting while the store is locked: %r" % s)
    if s["drain_bytes_per_s"] is not None or s["eta_s"] is not None:
        die("a rate before any file was done: %r" % s)
    text = status_text(profctl, sock)
    lines = backlog_line(text, "  backlog: ")
    if not lines or "rate not known yet" not in lines[0]:
        die("profctl status while held, no 'rate not known yet':\n" + text)
    print("ok: held: %d files (%d bytes) waiting, rate and eta null; "
          "profctl: %s" % (s["waiting_files"], s["waiting_bytes"],
                           lines[0].strip()))
    s, t_low = sp.release()

    # Held with files done: a rate, and a time left.
    for rnd in range(1, ROUNDS + 1):
        sp.hold(n)
        got = held_with_rate(sock, spool, lambda s: s["waiting_bytes"],
                             profctl, "  backlog: ", t_low)
        s, t_low = sp.release()
        if got is not None:
            break
        print("round %d: the rate's window passed before the status "
              "was read; again" % rnd)
    else:
        die("the rate's window passed in %d rounds" % ROUNDS)
    seen, said = got
    print("ok: held after %d files done: %d bytes waiting at %d B/s, eta "
          "%d s" % (sp.n - n, seen["waiting_bytes"],
                    seen["drain_bytes_per_s"], seen["eta_s"]))
    print("ok: profctl status meanwhile: " + said)

    if s["imported"] != sp.n or s["waiting_bytes"] != 0 or \
            s["eta_s"] is not None:
        die("at the end: %r" % s)
    if s["drain_bytes_per_s"] is None:
        if rate_due(t_low):
            die("no rate right after the drain: %r" % s)
        print("the rate's window passed before the drained status was "
              "read: its rate not checked")
    text = status_text(profctl, sock)
    if backlog_line(text, "  backlog: "):
        die("a backlog line with nothing waiting:\n" + text)
    print("ok: drained: %d files (%d bytes) imported, nothing waits, eta "
          "null" % (sp.n, sp.bytes))


def shipped(s):
    # Sent, or found already there: a batch whose answer was late is
    # found there by the next round.
    return s["shipped_profiles"] + s["skipped_profiles"]


def mode_fleet_drain(sock, n, since, out):
    n = int(n)
    s, t_low = drain(sock, fleet, lambda s: s["lag_profiles"],
                     lambda s: s["lag_profiles"] == 0 and
                     shipped(s) >= n, float(since), "the fleet's backlog")
    if s["lag_bytes"] != 0 or s["eta_s"] is not None:
        die("once shipped: %r" % s)
    if s["drain_bytes_per_s"] is None:
        if rate_due(t_low):
            die("no rate right after the shipping: %r" % s)
        print("the rate's window passed before the shipped status was "
              "read: its rate not checked")
    with open(out, "w") as f:
        f.write("%r\n" % t_low)
    print("ok: shipped: lag 0, eta null, %d shipped" % shipped(s))


def mode_fleet_held(sock, profctl, out):
    with open(out) as f:
        t_low = float(f.read())
    got = held_with_rate(sock, fleet, lambda s: s["lag_bytes"], profctl,
                         "  behind: ", t_low)
    if got is None:
        print("the rate's window passed before the status was read")
        sys.exit(2)
    s, said = got
    print("ok: ClickHouse down after %d shipped: %d profiles (%d bytes) "
          "behind at %d B/s, eta %d s" % (shipped(s), s["lag_profiles"],
                                          s["lag_bytes"],
                                          s["drain_bytes_per_s"],
                                          s["eta_s"]))
    print("ok: profctl status meanwhile: " + said)


def main():
    if len(sys.argv) == 8 and sys.argv[1] == "spool":
        mode_spool(*sys.argv[2:])
    elif len(sys.argv) == 6 and sys.argv[1] == "fleet-drain":
        mode_fleet_drain(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "fleet-held":
        mode_fleet_held(*sys.argv[2:])
    else:
        die("usage: drain_status.py spool SOCK DB SPOOLDIR PROFILE N "
            "PROFCTL | fleet-drain SOCK N SINCE OUT | fleet-held SOCK "
            "PROFCTL OUT")


if __name__ == "__main__":
    main()
