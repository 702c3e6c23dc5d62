#!/usr/bin/env python3
"""issue41.py: the rows of issue 41's table, before against after, in one
run; bench/issue41 makes the inputs and the builds and runs this (its
header says what each row is).

Every timed figure is the median of --runs end-to-end profctl calls (the
whole process) and of profd's own time answering them (the ms_total of
its routes in /v1/health, the health calls aside), before and after
alternately, the order swapped each round, after one untimed warm-up per
side whose outputs are compared.  Each side pushes its own stores with
its own profd (the schemas may differ), both sides at once so that the
load is alike.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import types

import measure as m

DAY_NS = 86400 * 10 ** 9


def log(msg):
    print("issue41: %s %s" % (time.strftime("%H:%M:%S", time.gmtime()), msg),
          file=sys.stderr, flush=True)


def rfc3339(ns):
    return datetime.datetime.fromtimestamp(
        ns // 10 ** 9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def ms(v):
    return "%.1f ms" % v if v < 1000 else "%.2f s" % (v / 1e3)


class Side:
    """One build: its profd and profctl, and the harness measure.Daemon
    reads (work, profd, profctl)."""

    def __init__(self, name, label, build, work):
        self.name, self.label = name, label
        self.profd = os.path.join(build, "profd")
        self.profctl = os.path.join(build, "profctl")
        self.work = os.path.join(work, name)
        os.makedirs(self.work, exist_ok=True)
        self.d = {}

    def daemon(self, key):
        d = m.Daemon(self, key).start()
        self.d[key] = d
        return d

    def stop_all(self):
        for d in self.d.values():
            d.remove()
        self.d = {}


def routes_ms(sock):
    st, body = m.http_call(sock, "GET", "/v1/health")
    if st != 200:
        raise m.CaseError("/v1/health: %d" % st)
    return sum(r.get("ms_total", 0.0) for k, r in
               json.loads(body)["routes"].items() if k != "GET /v1/health")


def call(side, d, argv, out=None):
    """One profctl call: (wall ms, profd's ms answering it)."""
    a = routes_ms(d.sock)
    secs = m.run([side.profctl, "--socket", d.sock] + argv, timeout=600,
                 stdout=out)[0]
    return secs * 1e3, routes_ms(d.sock) - a


def push_both(sides, key, files, scope, per=500):
    """files pushed into each side's profd `key` (500 a profctl process),
    both sides at once: seconds per side."""
    res, errs = {}, []

    def one(s):
        try:
            d = s.d[key]
            t0 = time.monotonic()
            for i in range(0, len(files), per):
                d.push(files[i:i + per], scope, timeout=1800)
            res[s.name] = time.monotonic() - t0
        except Exception as e:  # noqa: BLE001 (reported below)
            errs.append("%s: %s" % (s.name, e))
    th = [threading.Thread(target=one, args=(s,)) for s in sides]
    for t in th:
        t.start()
    for t in th:
        t.join()
    if errs:
        raise m.CaseError("push: " + "; ".join(errs))
    return res


class Bench:
    def __init__(self, a):
        self.a = a
        self.sides = [Side("before", a.before_name, a.before, a.work),
                      Side("after", a.after_name, a.after, a.work)]
        self.rows = []      # (row, before, after, ratio, target, result)
        self.notes = []
        self.perf = []      # (query, side, report text)
        self.failed = []
        self.loads = []
        self.fleet_out = ""

    def load(self, what):
        self.loads.append((what, m.loadavg()))

    # -- interleaved timing of one query over both sides

    def timed(self, key, qname, argv_of):
        """argv_of(side) -> profctl argv.  Returns {side: (walls, answers)}
        and whether the warm-up outputs were identical."""
        outs = {}
        for s in self.sides:
            path = os.path.join(s.work, "%s-%s.out" % (key, qname))
            call(s, s.d[key], argv_of(s), out=path)
            with open(path, "rb") as f:
                outs[s.name] = f.read()
        res = {s.name: ([], []) for s in self.sides}
        for r in range(self.a.runs):
            order = self.sides if r % 2 == 0 else self.sides[::-1]
            for s in order:
                w, t = call(s, s.d[key], argv_of(s))
                res[s.name][0].append(w)
                res[s.name][1].append(t)
        same = outs["before"] == outs["after"]
        return res, same, outs

    def perf_query(self, key, qname, argv_of):
        """perf record -g of each side's profd over perf_calls calls."""
        if not self.a.perf_calls:
            return
        for s in self.sides:
            d = s.d[key]
            data = os.path.join(s.work, "perf-%s-%s.data" % (key, qname))
            p = subprocess.Popen(["perf", "record", "-g", "-p",
                                  str(d.proc.pid), "-o", data],
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(0.5)
            try:
                for _ in range(self.a.perf_calls):
                    m.run([s.profctl, "--socket", d.sock] + argv_of(s),
                          timeout=600)
            finally:
                p.send_signal(signal.SIGINT)
                p.wait()
            rep = subprocess.run(
                ["perf", "report", "-i", data, "--stdio", "--no-children",
                 "-g", "none", "--percent-limit", "1", "--sort", "dso,sym"],
                capture_output=True, text=True).stdout
            lines = [ln for ln in rep.splitlines()
                     if ln.strip() and not ln.startswith("#")][:15]
            samples = re.search(r"# Samples: (\S+)", rep)
            self.perf.append(("%s %s" % (key, qname), s.name,
                              samples.group(1) if samples else "?", lines))
            os.unlink(data)

    def add_timed(self, label, key, qname, argv_of, target_ms=None,
                  note=""):
        res, same, _ = self.timed(key, qname, argv_of)
        med = statistics.median
        bw, ba = res["before"]
        aw, aa = res["after"]
        ok = None if target_ms is None else med(aw) < target_ms
        self.rows.append((
            label,
            "%s (profd %s)" % (ms(med(bw)), ms(med(ba))),
            "%s (profd %s)" % (ms(med(aw)), ms(med(aa))),
            "%.2f× (profd %.2f×)" % (med(bw) / med(aw),
                                      med(ba) / max(med(aa), 1e-6)),
            "< %g ms" % target_ms if target_ms else "—",
            "—" if ok is None else ("PASS" if ok else "**MISS**")))
        self.notes.append("%s: min %s / %s; answers %s%s" % (
            label, ms(min(bw)), ms(min(aw)),
            "identical" if same else "DIFFER (outputs in %s)" %
            self.a.work, "; " + note if note else ""))
        log("%s: before %s, after %s" % (label, self.rows[-1][1],
                                          self.rows[-1][2]))
        self.perf_query(key, qname, argv_of)

    # -- rows

    def row_cpu(self):
        week = self.a.week_profiles
        src = "week" if self.a.quick else "month"
        files = m.Harness.listing(os.path.join(self.a.inputs, src))
        if len(files) < week:
            raise m.CaseError("%d profiles in %s/%s" % (
                len(files), self.a.inputs, src))
        for s in self.sides:
            s.daemon("cpu")
        self.load("cpu push start")
        t = push_both(self.sides, "cpu", files, "cpu")
        self.load("cpu push end")
        self.notes.append(
            "cpu: %d 1-minute profiles pushed into each side's store "
            "(500 a profctl process, both sides at once): before %.0f s, "
            "after %.0f s; stores %s / %s" % (
                len(files), t["before"], t["after"],
                m.mb(self.sides[0].d["cpu"].store_bytes()),
                m.mb(self.sides[1].d["cpu"].store_bytes())))
        windows = [("week", files[-week])]
        if not self.a.quick:
            windows.append(("month", files[0]))
        targets = {"week": 25, "month": 60}
        for w, first in windows:
            since = rfc3339(m.profile_time(first) - 60 * 10 ** 9)
            sel = ["--scope", "cpu", "--since", since]
            nprof = week if w == "week" else len(files)
            self.add_timed(
                "%s: top over %d 1-minute CPU profiles" % (w, nprof),
                "cpu", w + "-top",
                lambda s: ["top"] + sel, targets[w],
                "--since %s" % since)
            self.add_timed(
                "%s: tree" % w, "cpu", w + "-tree",
                lambda s: ["tree"] + sel)
            self.add_timed(
                "%s: flame graph (profctl flamegraph, SVG)" % w, "cpu",
                w + "-flame",
                lambda s, w=w: ["flamegraph"] + sel + [
                    "-o", os.path.join(s.work, "flame-%s.svg" % w)])
        for s in self.sides:
            s.d.pop("cpu").remove()

    def row_heap(self):
        files = m.Harness.listing(os.path.join(self.a.inputs, "day"))
        for s in self.sides:
            s.daemon("heap")
        self.load("heap push start")
        t = push_both(self.sides, "heap", files, "heap")
        self.load("heap push end")
        self.notes.append(
            "heap: %d heap snapshots pushed into each side's store: before "
            "%.0f s, after %.0f s; stores %s / %s" % (
                len(files), t["before"], t["after"],
                m.mb(self.sides[0].d["heap"].store_bytes()),
                m.mb(self.sides[1].d["heap"].store_bytes())))
        since = rfc3339(m.profile_time(files[0]) - 60 * 10 ** 9)
        sel = ["--scope", "heap", "--metric", "inuse_space", "--since",
               since]
        self.add_timed("heap: in-use over a day of %d 15 s snapshots "
                       "(default: avg)" % len(files), "heap", "day-avg",
                       lambda s: ["top"] + sel, 25,
                       "--since %s" % since)
        for agg in ("last", "max"):
            self.add_timed("heap: the day, --aggregate %s" % agg, "heap",
                           "day-" + agg,
                           lambda s, agg=agg: ["top"] + sel +
                           ["--aggregate", agg], 25)
        t_last = m.profile_time(files[-1])
        one = ["--scope", "heap", "--metric", "inuse_space", "--since",
               rfc3339(t_last - 7 * 10 ** 9), "--until",
               rfc3339(t_last + 7 * 10 ** 9)]
        self.add_timed("heap: one snapshot (the last, a 14 s window)",
                       "heap", "one", lambda s: ["top"] + one)
        for s in self.sides:
            s.d.pop("heap").remove()

    def row_fleet(self):
        """bench/fleettop.py's before and after: both builds against one
        clickhouse-server of its own, profctl top and top --fleet in
        turn."""
        self.load("fleet start")
        cmd = [sys.executable, os.path.join(HERE, "fleettop.py"),
               "--before", os.path.dirname(self.sides[0].profd),
               "--after", os.path.dirname(self.sides[1].profd),
               "--inputs", os.path.join(self.a.inputs, "fleet"),
               "--work", os.path.join(self.a.work, "fleet"),
               "--rounds", str(self.a.runs)]
        if self.a.perf_calls:
            cmd.append("--perf")
        log("fleet: " + " ".join(cmd[1:]))
        p = subprocess.run(cmd, capture_output=True, text=True)
        self.load("fleet end")
        self.fleet_out = p.stdout + (p.stderr[-1500:] if p.returncode
                                     else "")
        t, section = {}, None
        for line in p.stdout.splitlines():
            if re.match(r"one host, \d+ profiles .*: median", line):
                section = "one"
            elif re.match(r"\d+ hosts x \d+ profiles .*: median", line):
                section = "hosts"
            elif re.match(r"at rest .*: median", line):
                section = "rest"
            mt = re.match(r"  (before|after)\s+(fleet|local)\s+([\d.]+) ms",
                          line)
            if mt and section:
                t[(section, mt.group(1), mt.group(2))] = float(mt.group(3))
        one = [t.get(("one", s, k)) for s in ("before", "after")
               for k in ("fleet", "local")]
        if None not in one:
            b, bl, a, al = one
            self.rows.append((
                "fleet: top over 1000 CPU profiles, fleet vs local",
                "%s vs %s = %.1f×" % (ms(b), ms(bl), b / bl),
                "%s vs %s = %.1f×" % (ms(a), ms(al), a / al),
                "%.2f× (fleet)" % (b / a), "≤ 3× local",
                "PASS" if a / al <= 3 else "**MISS**"))
        else:
            self.failed.append(("fleet, one host", "no figures in "
                                "fleettop.py's output"))
        rest = [t.get(("rest", s, k)) for s in ("before", "after")
                for k in ("fleet", "local")]
        if None not in rest:
            b, bl, a, al = rest
            self.rows.append((
                "fleet: the same, ClickHouse's parts merged (at rest)",
                "%s vs %s = %.1f×" % (ms(b), ms(bl), b / bl),
                "%s vs %s = %.1f×" % (ms(a), ms(al), a / al),
                "%.2f× (fleet)" % (b / a), "(no target: the row above's)",
                "%.1f×" % (a / al)))
        hb, ha = t.get(("hosts", "before", "fleet")), \
            t.get(("hosts", "after", "fleet"))
        if hb and ha:
            self.rows.append((
                "fleet: top over 100 hosts × 100 profiles", ms(hb), ms(ha),
                "%.2f×" % (hb / ha), "< 300 ms",
                "PASS" if ha < 300 else "**MISS**"))
        else:
            self.failed.append(("fleet, 100 hosts", "no figures in "
                                "fleettop.py's output"))
        if p.returncode != 0:
            self.failed.append(("fleet", "fleettop.py exited %d: %s" % (
                p.returncode, p.stderr.strip().splitlines()[-1][-400:]
                if p.stderr.strip() else "")))
        self.notes.append(
            "fleet: `bench/fleettop.py --before B --after A --inputs "
            "$inputs/fleet` (the week's first 1000 profiles), end-to-end "
            "`profctl top` and `profctl top --fleet`, in turn; its whole "
            "output (ClickHouse's query_log, perf) below")

    def row_import(self):
        path = os.path.join(self.a.inputs, "heap40.pb.gz")
        env = dict(os.environ, IMPORTCMP_WORK=os.path.join(self.a.work,
                                                           "importcmp"))
        self.load("import start")
        p = subprocess.run(
            [sys.executable, os.path.join(HERE, "importcmp.py"), path,
             str(self.a.runs)] + ["%s=%s" % (s.name, os.path.dirname(
                 s.profd)) for s in self.sides],
            capture_output=True, text=True, env=env)
        self.load("import end")
        if p.returncode != 0:
            raise m.CaseError("importcmp.py: " + p.stderr[-500:])
        share, wall = {}, {}
        for line in p.stdout.splitlines():
            mt = re.match(r"(before|after)\s+median ([\d.]+) s .*gzip/import "
                          r"([\d.]+) %", line)
            if mt:
                wall[mt.group(1)] = float(mt.group(2))
                share[mt.group(1)] = float(mt.group(3))
        gz = re.search(r"gzip -dc: median ([\d.]+) s", p.stdout)
        self.rows.append((
            "import of a 40 MB heap-style pprof vs gzip -dc",
            "%.1f %% (%.2f s)" % (share["before"], wall["before"]),
            "%.1f %% (%.2f s)" % (share["after"], wall["after"]),
            "%.2f×" % (wall["before"] / wall["after"]), "≥ 35 %",
            "PASS" if share["after"] >= 35 else "**MISS**"))
        self.notes.append(
            "import: bench/importcmp.py %s %d (gzip -dc median %s s; each "
            "round a fresh profd per side, profctl push end to end): %s" % (
                os.path.basename(path), self.a.runs,
                gz.group(1) if gz else "?",
                " / ".join(ln.strip() for ln in p.stdout.splitlines())))

    def row_growth(self):
        week = m.Harness.listing(os.path.join(self.a.inputs, "week"))
        repeat = m.Harness.listing(os.path.join(self.a.inputs, "repeat"))
        cases = [("drifting real series", week[:100], 50, 20),
                 ("re-sent profile", repeat, 20, 10)]
        self.load("growth start")
        for what, files, first, target in cases:
            got = {}
            for s in self.sides:
                d = os.path.join(s.work, "growth")
                p = subprocess.run(
                    [sys.executable, os.path.join(HERE, "storegrowth.py"),
                     s.profd, s.profctl, d, str(first)] + files,
                    capture_output=True, text=True)
                mt = re.search(r"growth ([\d.]+) B/profile, gz ([\d.]+) B: "
                               r"([\d.]+) %", p.stdout)
                if p.returncode != 0 or not mt:
                    raise m.CaseError("storegrowth.py %s: %s" % (
                        s.name, (p.stdout + p.stderr)[-500:]))
                got[s.name] = (float(mt.group(1)), float(mt.group(2)),
                               float(mt.group(3)))
                shutil.rmtree(d, ignore_errors=True)
            b, a = got["before"], got["after"]
            self.rows.append((
                "store growth, %s, of gzip size" % what,
                "%.1f %% (%.0f B)" % (b[2], b[0]),
                "%.1f %% (%.0f B)" % (a[2], a[0]),
                "%.2f×" % (b[0] / max(a[0], 1)), "≤ %d %%" % target,
                "PASS" if a[2] <= target else "**MISS**"))
            self.notes.append(
                "growth, %s: bench/storegrowth.py, growth per profile over "
                "profiles %d–%d (mean gz %.0f B)" % (
                    what, first + 1, len(files), a[1]))
        self.load("growth end")

    # -- the report

    def report(self, started):
        a = self.a
        md = ["## Issue 41: bench/issue41, %s UTC" % time.strftime(
            "%Y-%m-%d %H:%M", time.gmtime(started)), ""]
        md.append("Before: %s. After: %s. %d runs a figure, interleaved; "
                  "whole run %.0f min (started by bench/issue41 at %s UTC, "
                  "inputs and builds included)." % (
                      a.before_name, a.after_name, a.runs,
                      (time.time() - a.started) / 60,
                      time.strftime("%H:%M", time.gmtime(a.started))))
        md.append("")
        md.append("| row | before | after | before ÷ after | target | "
                  "after |")
        md.append("|---|---|---|---|---|---|")
        for r in self.rows:
            md.append("| %s |" % " | ".join(r))
        for what, e in self.failed:
            md.append("| %s | ERROR: %s | | | | **MISS** |" % (
                what, e.replace("|", "/").replace("\n", " ")[:300]))
        md.append("")
        md.append("Load average (1, 5, 15 min): " + "; ".join(
            "%s %s" % (w, l) for w, l in self.loads) + ".")
        md.append("")
        md.append("Notes:")
        md.append("")
        for n in self.notes:
            md.append("- " + n)
        md.append("")
        md.append("Inputs: " + inputs_line(a.inputs))
        md.append("")
        if self.perf:
            md.append("### perf: profd answering %d calls of each query" %
                      a.perf_calls)
            md.append("")
            md.append("`perf record -g -p PROFD` over the calls, `perf "
                      "report --no-children --sort dso,sym`, entries of "
                      "1 % and more (the first 15):")
            md.append("")
            for q, side, n, lines in self.perf:
                md.append("%s, %s (%s samples):" % (q, side, n))
                md.append("")
                md.append("```")
                md.extend(ln.rstrip() for ln in lines)
                md.append("```")
                md.append("")
        if self.fleet_out:
            md.append("### bench/fleettop.py's output")
            md.append("")
            md.append("```")
            md.extend(self.fleet_out.rstrip().splitlines())
            md.append("```")
            md.append("")
        return "\n".join(md) + "\n"


def inputs_line(inputs):
    def stats(name):
        try:
            with open(os.path.join(inputs, name, "STATS")) as f:
                rows = [ln.split("\t") for ln in f.read().split("\n") if ln]
        except OSError:
            return None
        col = list(zip(*rows))
        s, r, k = ([int(x) for x in c] for c in col[1:4])
        return len(rows), s, r, k

    def rng(v):
        return "%d–%d (median %d)" % (min(v), max(v), statistics.median(v))
    out = []
    c = stats("cpu60")
    if c:
        n, s, r, k = c
        out.append("%d real CPU profiles at 100 Hz of 10 s of CPU each, "
                   "re-timed as 1-minute profiles (cpu60/: %s samples, %s "
                   "sample records, %s distinct stacks)" % (
                       n, rng(s), rng(r), rng(k)))
    h = stats("heaps")
    if h:
        n, s, r, k = h
        out.append("%d real heap profiles 0.5 s apart (heaps/: %s sample "
                   "records, %s distinct stacks)" % (n, rng(r), rng(k)))
    gz = [os.path.getsize(f) for f in m.Harness.listing(
        os.path.join(inputs, "cpu60"))]
    if gz:
        out.append("CPU profiles %s gzipped (mean)" % m.mb(
            statistics.mean(gz)))
    return "; ".join(out) + "; bench/issue41's header says how they were " \
        "made and re-timed."


HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    for k in ("inputs", "work", "results", "before", "before-name", "after",
              "after-name", "pprof"):
        ap.add_argument("--" + k, required=True)
    ap.add_argument("--rows", default="cpu,heap,fleet,import,growth")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--perf-calls", type=int, default=0)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--week-profiles", type=int, default=10080,
                    help="profiles in a week (fewer: a smoke run of the "
                    "harness on small inputs)")
    ap.add_argument("--started", type=float, default=time.time())
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    started = time.time()
    b = Bench(a)
    b.load("start")
    try:
        for r in a.rows.split(","):
            if not r:
                continue
            fn = getattr(b, "row_" + r, None)
            if fn is None:
                raise SystemExit("issue41: unknown row %s" % r)
            log("row %s" % r)
            try:
                fn()
            except (m.CaseError, m.Timeout, OSError, KeyError) as e:
                log("row %s failed: %s" % (r, e))
                b.failed.append((r, str(e)))
            finally:
                for s in b.sides:
                    s.stop_all()
            # The table so far: a run cut short keeps what it measured.
            with open(a.results, "w") as f:
                f.write(b.report(started))
    finally:
        for s in b.sides:
            s.stop_all()
    b.load("end")
    text = b.report(started)
    with open(a.results, "w") as f:
        f.write(text)
    print(text)
    log("wrote %s" % a.results)
    return 1 if b.failed else 0


if __name__ == "__main__":
    sys.exit(main())
