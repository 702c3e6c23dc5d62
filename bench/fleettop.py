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
    ch.sql("INSERT INTO %s.%s (%s) SELECT %s FROM %s.%s "
           "ARRAY JOIN range(%d) AS n WHERE host = 'h000' AND n > 0" % (
               db, table, ", ".join(cols), sel, db, table, HOSTS))


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

