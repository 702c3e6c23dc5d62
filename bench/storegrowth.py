#!/usr/bin/env python3
"""storegrowth.py: where a store's bytes go as a series grows (issue 29).

    bench/storegrowth.py PROFD PROFCTL DIR FIRST [FILES...]

Starts PROFD on a fresh store in DIR, pushes the first FIRST files (one
profctl process), stops it, and reads the pages in use (page_count -
freelist_count) and, per table and index, the bytes of their pages and the bytes in use
in them (SQLite's dbstat: pgsize, and pgsize - unused, which a few
profiles move by less than a page); then pushes the rest, stops, reads
them again.  Prints the growth per profile of the rest as a share of their
mean gzipped size (pages in use; and the bytes in use of every table),
and the table of what grew, as markdown.  Run it with several profds on
the same files, interleaved, to compare them (bench/results.md, "Issue
29: store growth").  PAGE_SIZE=N makes the store with pages of N bytes
(profd keeps the page size of a store it finds).
"""
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time


def used(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        n, free, size = (con.execute("PRAGMA " + p).fetchone()[0] for p in
                         ("page_count", "freelist_count", "page_size"))
        per = {name: (pg, use) for name, pg, use in con.execute(
            "SELECT name, sum(pgsize), sum(pgsize - unused) FROM dbstat "
            "GROUP BY name").fetchall()}
    finally:
        con.close()
    return (n - free) * size, per


def health(sock):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(2)
        s.connect(sock)
        s.close()
        return True
    except OSError:
        return False


def run(profd, profctl, d, files):
    sock, db = os.path.join(d, "s"), os.path.join(d, "profd.db")
    log = open(os.path.join(d, "log"), "ab")
    p = subprocess.Popen([profd, "--foreground", "--no-config", "--socket",
                          sock, "--db", db, "--spool", os.path.join(d, "spool")], stdout=log, stderr=subprocess.STDOUT)
    try:
        t = time.monotonic()
        while not health(sock):
            if p.poll() is not None or time.monotonic() - t > 30:
                sys.exit("profd did not start, see %s/log" % d)
            time.sleep(0.05)
        out = subprocess.run([profctl, "--socket", sock, "push"] + files +
                             ["--scope", "grow"], capture_output=True,
                             text=True)
        if out.returncode != 0 or out.stdout.count("stored as") != len(files):
            sys.exit("push: " + out.stdout[-400:] + out.stderr[-400:])
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(120)
    return used(db)


def main():
    profd, profctl, d, first = sys.argv[1:5]
    files = sys.argv[5:]
    first = int(first)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    if os.environ.get("PAGE_SIZE"):
        # a store made with other pages, as profd would make it
        con = sqlite3.connect(os.path.join(d, "profd.db"))
        for q in ("PRAGMA page_size = " + os.environ["PAGE_SIZE"],
                  "PRAGMA auto_vacuum = INCREMENTAL",
                  "PRAGMA journal_mode = WAL", "CREATE TABLE x (a)",
                  "DROP TABLE x"):
            con.execute(q)
        con.close()
    u0, t0 = run(profd, profctl, d, files[:first])
    u1, t1 = run(profd, profctl, d, files[first:])
    k = len(files) - first
    gz = sum(os.path.getsize(f) for f in files[first:]) / k
    z = (0, 0)
    b0 = sum(v[1] for v in t0.values())
    b1 = sum(v[1] for v in t1.values())
    print("growth %.0f B/profile, gz %.0f B: %.1f %% (bytes in use: %.0f "
          "B/profile, %.1f %%)" % ((u1 - u0) / k, gz, (u1 - u0) / k / gz *
                                   100, (b1 - b0) / k, (b1 - b0) / k / gz *
                                   100))
    print("| table or index | pages after %d | pages per profile %d–%d | "
          "bytes in use per profile |" % (first, first + 1, len(files)))
    print("|---|---:|---:|---:|")
    for name in sorted(set(t0) | set(t1), key=lambda n: -(
            t1.get(n, z)[1] - t0.get(n, z)[1])):
        a, b = t0.get(name, z), t1.get(name, z)
        print("| %s | %d | %.0f | %.0f |" % (name, a[0], (b[0] - a[0]) / k,
                                              (b[1] - a[1]) / k))


if __name__ == "__main__":
    main()
