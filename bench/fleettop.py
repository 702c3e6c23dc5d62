"""fleettop.py: bench/run's fleet-top case (issue 16): a fleet top over
100 hosts x 100 profiles, asked of profd (GET /v1/top?fleet=1), which asks
ClickHouse.

One profd ships 100 of the 1-minute CPU profiles of $inputs/fleet as host
h000 to a clickhouse-server of the bench's own (fleetship.ClickHouse);
ClickHouse then copies h000's rows to h001..h099 (INSERT ... SELECT with
the host replaced, the columns read from system.columns so the copy
follows the schema), as 99 more hosts shipping the same profiles would
have written them: 10,000 profiles.  Timed, each over the runs: the top
of the whole fleet, of 10 hosts (host=, ten times), and this host's own
top of its 100 profiles from its store for comparison.  The fleet's
total must be 100 times this host's, every function's flat 100 times
its own: the answer is checked before it is timed.

First (issue 29, fleet-top.one): another profd ships every profile of
$inputs/fleet (1000 in a full run) as one host; its fleet top and its
local top over the same profiles, checked equal, then timed
alternately; the target is the fleet's at most 3 times the local.
"""

import json
import os
import time

import fleetship

m = None  # measure.py, as it runs (__main__): set by it

PROFILES = 100
HOSTS = 100
# The one-host case (issue 29): every profile of $inputs/fleet (1000 in a
# full run), fleet top against local top over the same profiles.
ONE_HOST = 1000


def top(d, query):
    st, body = m.http_call(d.sock, "GET", "/v1/top?" + query, timeout=600)
    if st != 200:
        raise m.CaseError("fleet-top: /v1/top?%s: %d %s" % (
            query, st, body[:300]))
    return json.loads(body)


def timed(h, d, query):
    secs = []
    for _ in range(h.runs):
        t0 = time.monotonic()
        top(d, query)
        secs.append(time.monotonic() - t0)
    return secs


def copy_hosts(ch, db, table):
    # DESCRIBE lists them in order (18.16's system.columns has no
    # position).
    cols = [line.split("\t")[0] for line in ch.sql(
        "DESCRIBE TABLE %s.%s FORMAT TabSeparated" % (db, table)).split("\n")]
    if "host" not in cols:
        raise m.CaseError("fleet-top: %s.%s has no host column" % (db, table))
    sel = ", ".join("concat('h', substring(toString(1000 + n), 2))"
                    if c == "host" else c for c in cols)
    # Ten hosts an INSERT, in blocks of 64 k rows: the materialized
    # views on samples (hourly, daily sums, profile rows) group each
    # block they are given, and an INSERT ... SELECT squashes its blocks
    # to a million rows by default, which with ten hosts' groups passed
    # the bench server's 1 GB per query.  The hosts of an INSERT are
    # h(lo)..h(lo+9) exactly (ARRAY JOIN of those numbers alone: a
    # range(lo + 10) filtered to n >= lo multiplied every row by up to
    # a hundred before the filter).
    for lo in range(1, HOSTS, 10):
        ch.sql("INSERT INTO %s.%s (%s) SELECT %s FROM %s.%s "
               "ARRAY JOIN arrayMap(i -> i + %d, range(%d)) AS n "
               "WHERE host = 'h000'" % (
                   db, table, ", ".join(cols), sel, db, table, lo,
                   min(10, HOSTS - lo)),
               settings={"max_block_size": 65536,
                         "min_insert_block_size_rows": 65536,
                         "min_insert_block_size_bytes": 64 << 20})


def copy_fsums(ch, db):
    """top's function sums (schema 8) of h000 copied as copy_hosts
    copies its rows: function_rows keeps nothing (ENGINE = Null), so the
    tables its views fill are copied themselves, per host where they
    have one, and the daily sums (of every host) added HOSTS - 1 times
    over.  A database without them (a profd before schema 8) has none."""
    if ch.sql("SELECT count() FROM system.tables WHERE database = '%s' "
              "AND name = 'functions_daily'" % db).strip() == "0":
        return
    for t in ("functions_hourly", "functions_profiles"):
        copy_hosts(ch, db, t)
    ch.sql("INSERT INTO %s.functions_daily SELECT date, scope, metric, "
           "kind, fn, a * %d, b * %d FROM %s.functions_daily" % (
               db, HOSTS - 1, HOSTS - 1, db))


def check(local, fleet, factor):
    if fleet["total"] != local["total"] * factor:
        raise m.CaseError("fleet-top: the fleet's total %d is not %d x %d" % (
            fleet["total"], factor, local["total"]))
    mine = {r["function"]: r["flat"] for r in local["rows"]}
    for r in fleet["rows"]:
        if r["flat"] != mine.get(r["function"], 0) * factor:
            raise m.CaseError("fleet-top: %s: flat %d, not %d x %d" % (
                r["function"], r["flat"], factor,
                mine.get(r["function"], 0)))


def one_host(h, ch):
    """fleet-top.one: one host's 1000 1-minute profiles (~17 hours, so
    the hourly sums of schema 5 serve the whole hours), its fleet top
    and its local top, interleaved run by run."""
    files = h.listing(os.path.join(h.a.inputs, "fleet"))[:ONE_HOST]
    db = "bench_one"
    d = m.Daemon(h, "fleet-top-one", fleetship.NOCONF + [
        "--fleet-url", ch.url, "--fleet-host", "h000", "--fleet-database",
        db, "--fleet-interval", "1", "--fleet-timeout", "300"])
    try:
        d.start()
        for i in range(0, len(files), 500):
            d.push(files[i:i + 500], "fleet", timeout=h.a.timeout)
        deadline = time.monotonic() + h.a.timeout
        while True:
            fl = fleetship.fleet_status(d)
            if fl["lag_profiles"] == 0 and \
                    fl["shipped_profiles"] == len(files):
                break
            if time.monotonic() > deadline:
                raise m.Timeout("fleet-top: %d of %d shipped; %s" % (
                    fl["shipped_profiles"], len(files), fl["last_error"]))
            time.sleep(0.05)
        sel = "scope=fleet&limit=50"
        check(top(d, sel), top(d, sel + "&fleet=1"), 1)
        t_local, t_fleet = [], []
        for _ in range(h.runs):
            t_local += timed(Once(h), d, sel)
            t_fleet += timed(Once(h), d, sel + "&fleet=1")
        rows = int(ch.sql("SELECT count() FROM %s.samples" % db))
        d.stop()
    finally:
        d.remove()
    ratio = sorted(t_fleet)[len(t_fleet) // 2] / \
        sorted(t_local)[len(t_local) // 2]
    h.add(m.Row("fleet-top", "fleet-top.one",
                "fleet-top: one host, %d profiles, fleet vs local" %
                len(files), m.Fig(t_fleet, "s"),
                m.Fig(t_local, "s", "local "),
                ratio="%.1f× local" % ratio, target="≤ 3× local",
                ok=ratio <= 3,
                note="GET /v1/top?fleet=1 and the same without fleet=1, "
                     "interleaved, over one host's %d real 1-minute CPU "
                     "profiles (%d sample rows); the answers' totals and "
                     "flats checked equal" % (len(files), rows)))
    h.meta["fleet.top.one"] = {"profiles": len(files), "rows": rows,
                               "fleet": t_fleet, "local": t_local}


class Once:
    """h with one run: timed() once."""

    def __init__(self, h):
        self.runs = 1


def case(h):
    files = h.listing(os.path.join(h.a.inputs, "fleet"))[:PROFILES]
    if len(files) < PROFILES:
        raise m.CaseError("fleet-top: %d profiles in %s/fleet, not %d" % (
            len(files), h.a.inputs, PROFILES))
    ch = fleetship.ClickHouse(h.work).start()
    db = "bench_top"
    d = m.Daemon(h, "fleet-top", fleetship.NOCONF + [
        "--fleet-url", ch.url, "--fleet-host", "h000", "--fleet-database",
        db, "--fleet-interval", "1", "--fleet-timeout", "300"])
    try:
        one_host(h, ch)
        d.start()
        d.push(files, "fleet", timeout=h.a.timeout)
        deadline = time.monotonic() + h.a.timeout
        while True:
            fl = fleetship.fleet_status(d)
            if fl["lag_profiles"] == 0 and \
                    fl["shipped_profiles"] == PROFILES:
                break
            if time.monotonic() > deadline:
                raise m.Timeout("fleet-top: %d of %d shipped; %s" % (
                    fl["shipped_profiles"], PROFILES, fl["last_error"]))
            time.sleep(0.05)
        for t in ("samples", "profiles"):
            copy_hosts(ch, db, t)
        copy_fsums(ch, db)
        rows = int(ch.sql("SELECT count() FROM %s.samples" % db))
        hosts = int(ch.sql("SELECT uniqExact(host) FROM %s.samples" % db))
        if hosts != HOSTS:
            raise m.CaseError("fleet-top: %d hosts in ClickHouse" % hosts)
        ten = "&".join("host=h%03d" % i for i in range(0, HOSTS, 10))
        sel = "scope=fleet&limit=50"
        local = top(d, sel)
        check(local, top(d, sel + "&fleet=1"), HOSTS)
        check(local, top(d, sel + "&fleet=1&" + ten), 10)
        t_local = timed(h, d, sel)
        t_all = timed(h, d, sel + "&fleet=1")
        t_ten = timed(h, d, sel + "&fleet=1&" + ten)
        version = ch.sql("SELECT version()")
        d.stop()
    finally:
        d.remove()
        ch.stop()
    note = ("GET /v1/top?fleet=1 through profd (ClickHouse %s on the same "
            "machine, one node): %d hosts x %d 1-minute CPU profiles, %d "
            "sample rows; the answer checked: total and every flat %d x "
            "this host's" % (version, HOSTS, PROFILES, rows, HOSTS))
    med = sorted(t_all)[len(t_all) // 2]
    h.add(m.Row("fleet-top", "fleet-top.all",
                "fleet-top: %d hosts x %d profiles" % (HOSTS, PROFILES),
                m.Fig(t_all, "s"), m.Fig(t_local, "s", "one host, local "),
                target="< 300 ms", ok=med < 0.3, note=note))
    h.add(m.Row("fleet-top", "fleet-top.hosts",
                "fleet-top: 10 of the %d hosts (host=, 10 times)" % HOSTS,
                m.Fig(t_ten, "s"),
                note="the same with host= naming 10 hosts: ClickHouse "
                     "reads the same granules (host is 4th in the sort "
                     "key) and filters"))
    h.meta["fleet.top"] = {"hosts": HOSTS, "profiles": PROFILES,
                           "rows": rows, "all": t_all, "ten": t_ten,
                           "local": t_local, "version": version}



# ---------------------------------------------------------------------------
# Before and after (issue 41): two builds against one ClickHouse, asked in
# turn, end to end through profctl.
#
#   python3 bench/fleettop.py --before BUILD --after BUILD --inputs DIR \
#       --work DIR [--rounds 5] [--one 1000] [--hosts 100 --profiles 100] \
#       [--perf]
#
# BUILD: a build directory with profd and profctl.  DIR: 1-minute CPU
# profiles (*.pb.gz; bench/run's $inputs/fleet).  The one-host case: each
# side's profd stores the first --one of them and ships them to a database
# of its own (the after's at its schema, the before's at its own), then,
# round by round in turn (the order swapped every round, after a warm-up
# each whose outputs are compared), `profctl top --scope fleet` and
# `profctl top --fleet --scope fleet` of each side.  The hosts case: the
# after's profd ships --profiles of them as host h000, ClickHouse copies
# the rows to h001.. (copy_hosts), and both sides' fleet tops read that
# one database (a newer schema only adds tables).  Printed: the medians,
# the ratios, per ClickHouse query of one fleet top of each side its
# rows read and duration (system.query_log), and with --perf where
# each side's profd spends its time over the rounds' calls (perf).


class _Side:
    """What measure.Daemon needs of its harness, for one build."""

    def __init__(self, name, build, work):
        self.name = name
        self.profd = os.path.join(build, "profd")
        self.profctl = os.path.join(build, "profctl")
        self.work = work


def _shipped(d, n, timeout):
    deadline = time.monotonic() + timeout
    while True:
        fl = fleetship.fleet_status(d)
        if fl["lag_profiles"] == 0 and fl["shipped_profiles"] >= n:
            return
        if time.monotonic() > deadline:
            raise m.Timeout("%d of %d shipped; %s" % (
                fl["shipped_profiles"], n, fl["last_error"]))
        time.sleep(0.05)


def _fleet_daemon(side, name, ch, db, timeout):
    return m.Daemon(side, name, fleetship.NOCONF + [
        "--fleet-url", ch.url, "--fleet-host", "h000", "--fleet-database",
        db, "--fleet-interval", "1", "--fleet-timeout", str(timeout)])


def _ctl_top(side, d, fleet, out=None):
    """One end-to-end profctl top: (seconds, its output)."""
    import subprocess
    cmd = [side.profctl, "--socket", d.sock, "top", "--scope", "fleet"]
    if fleet:
        cmd.append("--fleet")
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        raise m.CaseError("%s: %s" % (" ".join(cmd), p.stderr.decode()[:300]))
    return secs, p.stdout.decode()


def _table(text):
    """The rows of profctl top's table (what go tool pprof -top prints
    from "Showing nodes" on)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Showing nodes"):
            return lines[i:]
    return lines


def _perf_start(d, path):
    import subprocess
    return subprocess.Popen(["perf", "record", "-q", "-F", "499", "-g",
                             "-p", str(d.proc.pid), "-o", path],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _perf_stop(p, path, title):
    import signal as sig
    import subprocess
    p.send_signal(sig.SIGINT)
    p.wait(120)
    r = subprocess.run(["perf", "report", "-i", path, "--stdio",
                        "--no-children", "--sort", "symbol",
                        "--percent-limit", "2", "-g", "none"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    rows = [ln for ln in r.stdout.decode(errors="replace").splitlines()
            if ln.strip() and not ln.startswith("#")]
    print("perf of profd, %s:" % title)
    for ln in rows[:18]:
        print("   ", ln.strip())


def _query_log(ch, since, until):
    """system.query_log of one call: per query its rows read, ms, and
    its start."""
    time.sleep(2.5)     # flush_interval_milliseconds of ClickHouse's
    out = ch.sql(
        "SELECT query_duration_ms, read_rows, result_rows, "
        "substring(replaceRegexpAll(query, '[\\n\\t]+', ' '), 1, 110) "
        "FROM system.query_log WHERE type = 2 AND event_time >= "
        "toDateTime(%d) AND event_time <= toDateTime(%d) AND query NOT "
        "LIKE '%%system.query_log%%' AND query NOT LIKE 'SELECT 1%%' "
        "ORDER BY query_start_time, query_duration_ms FORMAT TabSeparated" % (
            since, until))
    return [ln.split("\t", 3) for ln in out.splitlines() if ln]


def _rounds(sides, rounds, perf, work, label):
    """The calls in turn: per (side, kind) its seconds; outputs compared
    after the warm-up.  sides: [(side, daemon, kinds)]."""
    med = lambda v: sorted(v)[len(v) // 2]   # noqa: E731
    t = {}
    outs = {}
    for side, d, kinds in sides:
        for fleet in kinds:
            secs, text = _ctl_top(side, d, fleet)
            outs[(side.name, fleet)] = _table(text)
            t[(side.name, fleet)] = []
    fl = [v for (n, f), v in outs.items() if f]
    if any(v != fl[0] for v in fl):
        raise m.CaseError("%s: the fleet tops differ between builds" % label)
    for (n, f), v in outs.items():
        if not f and v != fl[0]:
            raise m.CaseError("%s: %s's local top differs from the fleet's"
                              % (label, n))
    perfs = {}
    if perf:
        for side, d, _ in sides:
            path = os.path.join(work, "perf-%s-%s.data" % (label, side.name))
            perfs[side.name] = (_perf_start(d, path), path)
        time.sleep(0.5)
    order = list(sides)
    for r in range(rounds):
        for side, d, kinds in (order if r % 2 == 0 else order[::-1]):
            for fleet in kinds:
                t[(side.name, fleet)].append(_ctl_top(side, d, fleet)[0])
    for name, (p, path) in perfs.items():
        _perf_stop(p, path, "%s, %s (%d fleet tops and local ones)" % (
            label, name, rounds))
    load = os.getloadavg()
    print("%s: median of %d end-to-end profctl top calls, load %.1f %.1f "
          "%.1f" % ((label, rounds) + load))
    for (n, f), v in t.items():
        print("  %-7s %-6s %8.1f ms  (min %.1f, max %.1f)" % (
            n, "fleet" if f else "local", med(v) * 1e3, min(v) * 1e3,
            max(v) * 1e3))
    for side, _, kinds in sides:
        if True in kinds and False in kinds:
            print("  %s: fleet / local = %.1f×" % (side.name, med(
                t[(side.name, True)]) / med(t[(side.name, False)])))
    names = [s.name for s, _, _ in sides]
    if len(names) == 2 and all((n, True) in t for n in names):
        print("  fleet, after / before = %.2f" % (
            med(t[(names[1], True)]) / med(t[(names[0], True)])))
    return t


def _logged(ch, sides, label):
    for side, d, _ in sides:
        t0 = int(time.time())
        time.sleep(1.1)
        secs, _ = _ctl_top(side, d, True)
        time.sleep(1.1)
        t1 = int(time.time())
        rows = _query_log(ch, t0, t1)
        print("%s, %s: one fleet top, %.1f ms end to end; ClickHouse:" % (
            label, side.name, secs * 1e3))
        for ms, read, res, q in rows:
            print("   %6s ms %10s rows read %8s out  %s" % (ms, read, res, q))
        print("   total %d ms in ClickHouse, %d rows read" % (
            sum(int(r[0]) for r in rows), sum(int(r[1]) for r in rows)))


def compare(a):
    import measure
    global m
    m = fleetship.m = measure
    os.makedirs(a.work, exist_ok=True)
    files = sorted(os.path.join(a.inputs, f) for f in os.listdir(a.inputs)
                   if f.endswith(".pb.gz"))
    before = _Side("before", a.before, a.work)
    after = _Side("after", a.after, a.work)
    ch = fleetship.ClickHouse(a.work, query_log=True).start()
    ds = []
    try:
        print("ClickHouse %s; inputs %s (%d files)" % (
            ch.sql("SELECT version()"), a.inputs, len(files)))
        if a.one > 0:
            one = files[:a.one]
            sides = []
            for side in (after, before):
                d = _fleet_daemon(side, "one-" + side.name, ch,
                                  "one_" + side.name, 300)
                ds.append(d)
                d.start()
                for i in range(0, len(one), 500):
                    d.push(one[i:i + 500], "fleet", timeout=3600)
                _shipped(d, len(one), 3600)
                sides.append((side, d, (False, True)))
            sides.reverse()
            rows = ch.sql("SELECT count() FROM one_after.samples")
            label = "one host, %d profiles (%s sample rows)" % (len(one),
                                                                rows)
            _rounds(sides, a.rounds, a.perf, a.work, label)
            _logged(ch, sides, label)
            # The same once ClickHouse has merged each table's parts,
            # as a store at rest has them (a bulk of 1000 profiles lands
            # as ten parts a table, which its background merges left
            # as they were over the minutes watched): OPTIMIZE ... FINAL.
            for side, _, _ in sides:
                db = "one_" + side.name
                for t in ch.sql("SELECT name FROM system.tables WHERE "
                                "database = '%s' AND engine LIKE "
                                "'%%MergeTree'" % db).split():
                    ch.sql("OPTIMIZE TABLE %s.%s FINAL" % (db, t))
            _rounds(sides, a.rounds, False, a.work,
                    "at rest (every table's parts merged), " + label)
            for d in ds:
                d.stop()
                d.remove()
            ds = []
        if a.hosts > 0:
            global HOSTS
            HOSTS = a.hosts
            some = files[:a.profiles]
            d = _fleet_daemon(after, "hosts-after", ch, "hosts", 300)
            ds.append(d)
            d.start()
            d.push(some, "fleet", timeout=3600)
            _shipped(d, len(some), 3600)
            t0 = time.monotonic()
            for t in ("samples", "profiles", "profile_metrics"):
                copy_hosts(ch, "hosts", t)
            copy_fsums(ch, "hosts")
            print("copied to %d hosts in %.0f s" % (
                a.hosts, time.monotonic() - t0))
            b = _fleet_daemon(before, "hosts-before", ch, "hosts", 300)
            ds.append(b)
            b.start()
            rows = ch.sql("SELECT count() FROM hosts.samples")
            label = "%d hosts x %d profiles (%s sample rows)" % (
                a.hosts, len(some), rows)
            sides = [(before, b, (True,)), (after, d, (True,))]
            t = _rounds(sides, a.rounds, a.perf, a.work, label)
            med = sorted(t[("after", True)])[a.rounds // 2]
            print("  after: %.0f ms, target < 300 ms" % (med * 1e3))
            _logged(ch, sides, label)
    finally:
        for d in ds:
            d.remove()
        ch.stop()


if __name__ == "__main__":
    import argparse
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description="fleet top, before and after")
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--one", type=int, default=ONE_HOST)
    ap.add_argument("--hosts", type=int, default=HOSTS)
    ap.add_argument("--profiles", type=int, default=PROFILES)
    ap.add_argument("--perf", action="store_true")
    compare(ap.parse_args())
