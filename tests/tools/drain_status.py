#!/usr/bin/env python3
"""A backlog drained as a user sees it in the status: the spool's, the
fleet's.

  drain_status.py spool SOCK DB SPOOLDIR PROFILE N PROFCTL
      N distinct copies of a real profile (its raw protobuf with an unknown
field 1000 holding a counter: each a new profile of the same samples) are
dropped into the spool's scope directory while this process holds the
store's write lock (BEGIN IMMEDIATE), so that none can be stored and all
wait in the backlog.  Meanwhile the status must show the waiting bytes
with no rate known yet (no file done since the start), and `profctl
status` say so.  Then the lock is released and the status is asked over
and over while the backlog drains: some answer must show waiting_bytes
above 0 with a rate and a time left that covers the waiting bytes at that
rate, and some `profctl status` meanwhile must print the time left.  At
the end nothing waits and eta_s is null.

profd's import waits for the lock for SQLite's busy timeout (5 s); the
lock is released before (3 s at most), whether or not all the files were
listed by then.
  drain_status.py fleet SOCK N PROFCTL
      the fleet's backlog (N profiles or fewer, ClickHouse just back) is
      asked over and over until it is shipped: some answer must show
      lag_bytes above 0 with a rate and a time left that covers them, and
      some `profctl status` meanwhile the time left; at the end the lag
      is 0 and eta_s null.

Nothing here checks a speed.  Prints "ok: ..." lines; exits 1 with "FAIL: ..." on stderr.
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

HANG_S = 60.0		# a bound against a hang, not a speed check
HOLD_S = 3.0		# under the store's 5 s busy timeout


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


def status(sock, part):
    c = UnixConnection(sock)
    c.request("GET", "/v1/status")
    r = c.getresponse()
    body = r.read()
    c.close()
    try:
        j = json.loads(body)
    except ValueError:
        j = None
    if r.status != 200 or j is None:
        die("status: %s %r" % (r.status, body[:200]))
    return j[part]


def spool(sock):
    return status(sock, "spool")


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


def backlog_line(text, head="  backlog: "):
    return [l for l in text.splitlines() if l.startswith(head)]


def check_drain(s, backlog):
    """A status answer while backlog bytes wait: if it has a rate, a
    time left that covers them at it (rounded up, at a rate rounded to
    whole bytes); True if it has."""
    rate, eta = s["drain_bytes_per_s"], s["eta_s"]
    if rate is None:
        if eta is not None:
            die("eta_s without a rate: %r" % s)
        return False
    if not isinstance(rate, int) or rate <= 0:
        die("drain_bytes_per_s: %r" % s)
    if not isinstance(eta, int) or eta < 1:
        die("eta_s while %d bytes wait: %r" % (backlog, s))
    if eta * (rate + 1) < backlog:
        die("eta_s %d at %d B/s leaves bytes waiting: %r" % (eta, rate, s))
    return True


def watch_drain(sock, profctl, get, drained, backlog, head, what):
    """Status answers until drained(s): the first whose backlog (bytes)
    waits with a rate, checked, and the first line of profctl status
    starting with head that says the time left.  The last answer too;
    and the seconds from that first answer to the drained one, printed
    beside its eta_s (what happened against what was said: a figure to
    read, not checked, the machine's speed being no test's business)."""
    seen = said = None
    end = time.monotonic() + HANG_S
    while time.monotonic() < end:
        s = get(sock)
        if drained(s):
            if seen is not None:
                print("eta_s said %d s with %d bytes left; drained %.1f s "
                      "later" % (seen["eta_s"], backlog(seen),
                                 time.monotonic() - seen_at))
            return s, seen, said
        if backlog(s) > 0 and check_drain(s, backlog(s)):
            if seen is None:
                seen, seen_at = s, time.monotonic()
            if said is None:
                lines = backlog_line(status_text(profctl, sock), head)
                if lines and lines[0].endswith(" left"):
                    said = lines[0].strip()
        time.sleep(0.01)
    die("%s did not drain: %r" % (what, s))


def mode_spool(sock, db, spooldir, profile, n, profctl):
    n = int(n)
    with open(profile, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    blobs = [raw + fv(1000, i + 1) for i in range(n)]
    total = sum(len(b) for b in blobs)

    # The scope directory first, watched before its files come: files
    # found by the listing of a new directory wait to settle (5 s).
    before = spool(sock)["watched_dirs"]
    scope = os.path.join(spooldir, "drain")
    os.mkdir(scope)
    until(lambda: spool(sock)["watched_dirs"] > before, "the scope watched")

    lock = sqlite3.connect(db, isolation_level=None, timeout=HANG_S)
    lock.execute("BEGIN IMMEDIATE")
    held = time.monotonic()
    for i, b in enumerate(blobs):
        tmp = os.path.join(scope, ".%d.tmp" % i)
        with open(tmp, "wb") as f:
            f.write(b)
        os.rename(tmp, os.path.join(scope, "p%04d.pb" % i))
    # All listed: waiting or held in the import (2 at most).
    while time.monotonic() - held < HOLD_S:
        s = spool(sock)
        if s["waiting_files"] + s["in_flight"] == n:
            break
        time.sleep(0.01)
    s = spool(sock)
    if s["waiting_bytes"] <= 0:
        die("nothing waiting while the store is locked: %r" % s)
    if s["drain_bytes_per_s"] is not None or s["eta_s"] is not None:
        die("a rate before any file was done: %r" % s)
    text = status_text(profctl, sock)
    lines = backlog_line(text)
    if not lines or "rate not known yet" not in lines[0]:
        die("profctl status while held, no 'rate not known yet':\n" + text)
    print("ok: held: %d files (%d bytes) waiting, rate and eta null; "
          "profctl: %s" % (s["waiting_files"], s["waiting_bytes"],
                           lines[0].strip()))
    lock.execute("ROLLBACK")
    lock.close()

    s, seen, said = watch_drain(
        sock, profctl, spool, lambda s: s["waiting_files"] == 0 and
        s["in_flight"] == 0 and s["imported"] >= n,
        lambda s: s["waiting_bytes"], "  backlog: ", "the backlog")
    if seen is None:
        die("no status during the drain showed waiting bytes with a rate")
    print("ok: draining: %d bytes waiting at %d B/s, eta %d s" %
          (seen["waiting_bytes"], seen["drain_bytes_per_s"], seen["eta_s"]))
    if said is None:
        die("profctl status never printed the time left during the drain")
    print("ok: profctl status during the drain: " + said)

    if s["imported"] != n or s["waiting_bytes"] != 0 or s["eta_s"] is not None:
        die("at the end: %r" % s)
    if s["drain_bytes_per_s"] is None:
        die("no rate right after the drain: %r" % s)
    text = status_text(profctl, sock)
    if backlog_line(text):
        die("a backlog line with nothing waiting:\n" + text)
    print("ok: drained: %d imported (%d bytes), nothing waits, eta null" %
          (n, total))


def mode_fleet(sock, n, profctl):
    n = int(n)
    s, seen, said = watch_drain(
        sock, profctl, lambda sock: status(sock, "fleet"),
        lambda s: s["lag_profiles"] == 0, lambda s: s["lag_bytes"],
        "  behind: ", "the fleet's backlog")
    if seen is None:
        die("no status during the shipping showed lag_bytes with a rate")
    print("ok: shipping: %d profiles (%d bytes) behind at %d B/s, eta %d s"
          % (seen["lag_profiles"], seen["lag_bytes"],
             seen["drain_bytes_per_s"], seen["eta_s"]))
    if said is None:
        die("profctl status never printed the time left while shipping")
    print("ok: profctl status while shipping: " + said)
    if s["lag_bytes"] != 0 or s["eta_s"] is not None or \
            s["drain_bytes_per_s"] is None or s["shipped_profiles"] < n:
        die("once shipped: %r" % s)
    print("ok: shipped: lag 0, eta null, %d shipped" % s["shipped_profiles"])


def main():
    if len(sys.argv) == 8 and sys.argv[1] == "spool":
        mode_spool(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "fleet":
        mode_fleet(*sys.argv[2:])
    else:
        die("usage: drain_status.py spool SOCK DB SPOOLDIR PROFILE N "
            "PROFCTL | fleet SOCK N PROFCTL")


if __name__ == "__main__":
    main()
