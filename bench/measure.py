#!/usr/bin/env python3
"""measure.py: the cases of bench/run.

bench/run builds the binaries and generates the inputs, then calls this
with their paths.  Each case starts its own profd (in the foreground, on a
private socket and store under --work), times whole processes (profctl,
and pprof on the same input) with time.perf_counter, and adds rows to one
table: case, profd figure, pprof figure, ratio, target, PASS/MISS.  A
figure is the median of --runs runs, with (min-max).

Standard library only.
"""
import argparse
import datetime
import gzip
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import zlib
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import faults  # noqa: E402  (bench/faults.py: the load's workers)
import fleetship  # noqa: E402  (bench/fleetship.py: the fleet-ship case)
import fleettop  # noqa: E402  (bench/fleettop.py: the fleet-top case)

CASES = ["import", "throughput", "inflate", "query", "views", "growth",
         "concurrent",
         "memory", "storage", "repeat", "heapstore", "week", "month",
         "week-real", "month-real", "load", "trickle", "crash"]
# The cases that need no generated input (bench/faults.py makes its own).
FAULT_CASES = ["load", "trickle", "crash"]
# Cases run only when named (--only): perf (perf(1)), ui (Chromium);
# fleet-ship (clickhouse-server, bench/fleetship.py).  ui needs of the
# generated inputs only the large CPU profile, fleet-ship only its own.
OPT_CASES = ["perf", "ui", "fleet-ship", "fleet-top"]
OWN_INPUT_CASES = FAULT_CASES + ["ui", "fleet-ship", "fleet-top"]
MIB = 1024 * 1024


class CaseError(Exception):
    pass


class Timeout(Exception):
    def __init__(self, msg, rss=0):
        super().__init__(msg)
        self.rss = rss


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# HTTP over profd's Unix socket

# One request on a new connection (as curl and profctl make them); returns
# (status, body).  faults.py's, which runs on its own too.
def http_call(sock, method, path, body=None, timeout=30):
    return faults.call(sock, method, path, body, timeout)


# ---------------------------------------------------------------------------
# Processes

def run(cmd, timeout=None, stdout=None):
    """Run cmd to its end; returns (seconds, max RSS in KiB).  The RSS is
    wait4's, so it covers the process and the children it waited for.
    stdout is a path or None (discarded); stderr is kept for errors."""
    out = open(stdout, "wb") if stdout else subprocess.DEVNULL
    err = tempfile.TemporaryFile()
    res = {}
    try:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err)

        def reap():
            _, status, ru = os.wait4(p.pid, 0)
            res["t"] = time.perf_counter()
            res["status"], res["rss"] = status, ru.ru_maxrss
        th = threading.Thread(target=reap)
        th.start()
        th.join(timeout)
        if th.is_alive():
            p.kill()
            th.join()
            p.returncode = -9
            raise Timeout("%s: still running after %g s" % (cmd[0], timeout),
                          res["rss"])
        p.returncode = os.waitstatus_to_exitcode(res["status"])
        if p.returncode != 0:
            err.seek(0)
            raise CaseError("%s exited %d: %s" % (
                " ".join(cmd[:3]), p.returncode,
                err.read().decode(errors="replace").strip()[-2000:]))
        return res["t"] - t0, res["rss"]
    finally:
        if stdout:
            out.close()
        err.close()


class Daemon:
    """One profd in the foreground on a socket and store of its own."""

    def __init__(self, h, name, extra=()):
        self.h = h
        self.dir = os.path.join(h.work, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.sock = os.path.join(self.dir, "profd.sock")
        self.db = os.path.join(self.dir, "profd.db")
        self.logpath = os.path.join(self.dir, "profd.log")
        self.extra = list(extra)
        self.proc = None

    def start(self):
        logf = open(self.logpath, "ab")
        # Never the machine's own settings and spool (/etc/profd,
        # /var/spool/profd): a bench run as root would otherwise read an
        # installed package's config and make its spool, root's.
        own = [] if "--no-config" in self.extra else ["--no-config"]
        if "--spool" not in self.extra:
            own += ["--spool", "none"]
        self.proc = subprocess.Popen(
            [self.h.profd, "--foreground", "--socket", self.sock, "--db",
             self.db] + own + self.extra, stdout=logf,
            stderr=subprocess.STDOUT)
        logf.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CaseError("profd exited at start: " + self.logtail())
            try:
                if http_call(self.sock, "GET", "/v1/health", timeout=5)[0] \
                        == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.02)
        raise CaseError("profd did not answer on " + self.sock)

    def logtail(self):
        try:
            with open(self.logpath, errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def hwm_kib(self):
        """Peak RSS so far (VmHWM), in KiB."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        raise CaseError("no VmHWM for profd")

    def stop(self, grace=120):
        """SIGTERM (it finishes the import in flight), then SIGKILL."""
        if self.proc is None or self.proc.poll() is not None:
            self.proc = None
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(grace)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            rc = 0
        self.proc = None
        if rc != 0:
            raise CaseError("profd exited %d on SIGTERM: %s" % (
                rc, self.logtail()))

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def remove(self):
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def store_bytes(self):
        total = 0
        for p in (self.db, self.db + "-wal"):
            if os.path.exists(p):
                total += os.path.getsize(p)
        return total

    def used_bytes(self):
        """The pages in use in the store (profd stopped): what it takes
        without the free pages a file keeps once it grew."""
        con = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True)
        try:
            n, free, size = (con.execute("PRAGMA " + p).fetchone()[0] for p in
                             ("page_count", "freelist_count", "page_size"))
        finally:
            con.close()
        return (n - free) * size

    def ctl(self, *args, timeout=None, stdout=None):
        return run([self.h.profctl, "--socket", self.sock] + list(args),
                   timeout=timeout, stdout=stdout)[0]

    def push(self, files, scope, timeout=None):
        """profctl push: returns (seconds, samples stored)."""
        out = os.path.join(self.dir, "push.out")
        secs = self.ctl("push", *files, "--scope", scope, timeout=timeout,
                        stdout=out)
        with open(out, errors="replace") as f:
            text = f.read()
        got = [int(n) for n in re.findall(
            r"stored as profile \d+ \((\d+) samples[,)]", text)]
        if len(got) != len(files):
            raise CaseError("push: " + text[-500:])
        if "already stored" in text:
            raise CaseError("push: a duplicate: " + text[
                text.index("already stored") - 200:][:500])
        return secs, sum(got)

    def query(self, sql):
        st, body = http_call(self.sock, "POST", "/v1/query?timeout_ms=60000",
                             sql.encode(), timeout=90)
        if st != 200:
            raise CaseError("query %r: %d %s" % (sql, st, body[:300]))
        return json.loads(body)["rows"]

    def route(self, name):
        """(calls, ms) of a route so far, as /v1/health counts them."""
        st, body = http_call(self.sock, "GET", "/v1/health")
        r = json.loads(body)["routes"].get(name, {})
        return r.get("calls", 0), r.get("ms_total", 0.0)

    def stacks(self, scope):
        """Distinct stacks of a scope, for the notes; None if the query
        fails (it is not what is measured)."""
        try:
            return self.query("SELECT count(DISTINCT callsite_id) FROM "
                              "samples WHERE scope = '%s'" % scope)[0][0]
        except (CaseError, OSError) as e:
            log("distinct stacks of %s: %s" % (scope, e))
            return None


class Worker:
    """A bench/faults.py worker process; result() is its JSON."""

    def __init__(self, kind, cfg):
        self.kind = kind
        self.ready = cfg.get("ready")
        self.p = subprocess.Popen(
            [sys.executable, faults.__file__, kind, json.dumps(cfg)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def result(self, timeout):
        try:
            out, err = self.p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise CaseError("faults.py %s: still running after %g s" % (
                self.kind, timeout))
        if self.p.returncode != 0:
            raise CaseError("faults.py %s exited %d: %s" % (
                self.kind, self.p.returncode,
                err.decode(errors="replace")[-2000:]))
        return json.loads(out)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.communicate()

    @staticmethod
    def wait_ready(workers, bound=300):
        """Waits until every worker given a "ready" path has had its first
        answers (bench/faults.py's mark_ready), so that a timed window
        starts with the load running, however slow the machine is to
        start it; the bound is against a hang."""
        end = time.monotonic() + bound
        for w in workers:
            while w.ready and not os.path.exists(w.ready):
                if w.p.poll() is not None or time.monotonic() > end:
                    w.result(1)
                    raise CaseError("faults.py %s: no answer within %d s"
                                    % (w.kind, bound))
                time.sleep(0.05)


# ---------------------------------------------------------------------------
# Figures and rows

class Fig:
    """Values of one figure over several runs."""

    def __init__(self, values, kind, prefix=""):
        self.values = list(values)
        self.kind = kind
        self.prefix = prefix

    @property
    def med(self):
        return statistics.median(self.values)

    def fmt(self, v):
        k = self.kind
        if k == "s":
            if v < 1:
                return "%.1f ms" % (v * 1e3) if v >= 0.01 else \
                    "%.2f ms" % (v * 1e3)
            return "%.2f s" % v
        if k == "MB/s":
            return "%.1f MB/s" % v
        if k == "samples/s":
            return "%.3g M samples/s" % (v / 1e6) if v >= 1e5 else \
                "%.0f k samples/s" % (v / 1e3)
        if k == "MiB":
            return "%.1f MiB" % v
        if k == "x":
            return "%.2f×" % v
        if k == "B":
            return mb(v)
        if k == "/s":
            return "%.1f /s" % v
        if k in ("requests", "pushes", "connections"):
            return "%d" % v
        return "%g %s" % (v, k)

    def __str__(self):
        s = self.prefix + self.fmt(self.med)
        if len(self.values) > 1:
            s += " (%s–%s)" % (self.fmt(min(self.values)),
                               self.fmt(max(self.values)))
        return s

    def json(self):
        return {"median": self.med, "min": min(self.values),
                "max": max(self.values), "runs": len(self.values),
                "unit": self.kind}


class Row:
    def __init__(self, case, key, name, profd, pprof="—", ratio="—",
                 target="—", ok=None, note=""):
        self.case, self.key, self.name = case, key, name
        self.profd, self.pprof, self.ratio = profd, pprof, ratio
        self.target, self.ok, self.note = target, ok, note

    def result(self, smoke):
        if self.ok is None:
            return "—"
        if smoke:
            return "(smoke)"
        return "PASS" if self.ok else "**MISS**"

    def json(self):
        def j(x):
            return x.json() if isinstance(x, Fig) else (
                None if x in ("—", None) else str(x))
        return {"case": self.case, "key": self.key, "name": self.name,
                "profd": j(self.profd), "pprof": j(self.pprof),
                "ratio": j(self.ratio), "target": self.target,
                "ok": self.ok, "note": self.note}


def faster(ratio):
    """pprof's time over profd's, in words."""
    if ratio >= 1:
        return "%.1f× faster" % ratio
    return "%.1f× slower" % (1 / ratio)


def pct(values, p):
    v = sorted(values)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)]


def mb(n):
    if n >= 1 << 30:
        return "%.2f GiB" % (n / (1 << 30))
    return "%.1f MB" % (n / 1e6) if n >= 1e6 else "%.1f kB" % (n / 1e3)


def inflated_size(path):
    with gzip.open(path, "rb") as f:
        n = 0
        while True:
            b = f.read(1 << 20)
            if not b:
                return n
            n += len(b)


def profile_time(path):
    """time_nanos of a gzipped pprof profile (top-level field 9)."""
    with gzip.open(path, "rb") as f:
        p = f.read()

    def varint(i):
        v = shift = 0
        while True:
            b = p[i]
            v |= (b & 0x7f) << shift
            i += 1
            if b < 0x80:
                return v, i
            shift += 7
    i = 0
    while i < len(p):
        key, i = varint(i)
        wt = key & 7
        if wt == 0:
            v, i = varint(i)
            if key >> 3 == 9:
                return v
        elif wt == 2:
            n, i = varint(i)
            i += n
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        else:
            break
    raise CaseError("%s: no time_nanos" % path)


def utc(secs):
    return datetime.datetime.fromtimestamp(
        secs, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")


def file_size(path):
    with open(path, "rb") as f:
        head = f.read(2)
    return inflated_size(path) if head == b"\x1f\x8b" else \
        os.path.getsize(path)


# ---------------------------------------------------------------------------
# The harness

class Harness:
    def __init__(self, a):
        self.a = a
        self.profd, self.profctl, self.pprof = a.profd, a.profctl, a.pprof
        self.work = a.work
        self.runs = a.runs
        self.smoke = a.smoke
        self.rows = []
        self.inputs = []
        self.notes = []
        self.failed = []
        inp = a.inputs
        self.large = os.path.join(inp, "cpu-large.pb.gz")
        self.heap = os.path.join(inp, "heap-big.pb.gz")
        self.trace = os.path.join(inp, "trace.pftrace")
        self.fixtures = [os.path.join(a.fixtures, k + ".pprof")
                         for k in ("cpu", "heap", "mutex", "block")]
        self.memo = {}
        self.meta = {}
        # Only the fault cases: bench/run generated no input.
        self.generated = os.path.exists(os.path.join(inp, "series"))
        if not self.generated:
            self.series, self.trace_samples, self.trace_bytes = [], 0, 0
            return
        sdir = os.path.join(inp, "series")
        self.series = sorted(os.path.join(sdir, f) for f in os.listdir(sdir)
                             if f.endswith(".pb.gz"))
        self.nsmall, self.nlarge = a.small, len(self.series)
        # A month of 1-minute profiles (the week is its end), and one
        # profile's copies at successive times.
        self.minutes = self.listing(os.path.join(inp, "minutes"))
        # The same minutes made of real profiles (bench/run: recorded
        # ones replayed cyclically, re-timed), and what was recorded.
        self.minutes_real = self.listing(os.path.join(inp, "minutes-real"))
        self.real = self.listing(os.path.join(inp, "real"))
        self.repeat = self.listing(os.path.join(inp, "repeat"))
        try:
            with open(os.path.join(inp, "repeat", "SOURCE")) as f:
                self.repeat_source = f.read().strip()
        except OSError:
            self.repeat_source = "?"
        if self.nsmall >= self.nlarge:
            raise SystemExit("measure: --small must be below the series "
                             "length %d" % self.nlarge)
        with open(self.trace + ".txt") as f:
            m = re.search(r"(\d+) samples", f.read())
        self.trace_samples = int(m.group(1)) if m else 0
        self.trace_bytes = os.path.getsize(self.trace)

    # -- helpers

    @staticmethod
    def listing(d):
        if not os.path.isdir(d):
            return []
        return sorted(os.path.join(d, f) for f in os.listdir(d)
                      if f.endswith(".pb.gz"))

    def once(self, key, fn):
        if key not in self.memo:
            self.memo[key] = fn()
        return self.memo[key]

    def add(self, row):
        self.rows.append(row)
        log("%-40s %s | pprof %s | %s | %s" % (
            row.name, row.profd, row.pprof, row.ratio,
            row.result(self.smoke)))

    def pprof_run(self, args, timeout=None):
        return run([self.pprof] + args, timeout=timeout or self.a.timeout)

    def import_runs(self, path, tag, n, timeout, extra=()):
        """n fresh profds each pushing path: times, peak RSS (MiB), samples
        stored; stops at the first timeout (the later ones would too) and
        then returns timed_out=True."""
        times, rss, samples, timed_out = [], [], 0, False
        imports, used = [], []
        for i in range(n):
            d = Daemon(self, "%s-%d" % (tag, i), extra).start()
            try:
                t, samples = d.push([path], tag, timeout=timeout)
                times.append(t)
                rss.append(d.hwm_kib() / 1024)
                # profd's own time for the import request: the push
                # without the chunked upload of a large file before it.
                calls, ms = d.route("POST /v1/profiles")
                if calls == 1:
                    imports.append(ms / 1e3)
                if i == 0 and tag == "large":
                    self.meta[tag + ".stacks"] = d.stacks(tag)
                d.stop()
                if tag == "heap":
                    used.append(d.used_bytes())
            except Timeout:
                rss.append(d.hwm_kib() / 1024)
                timed_out = True
                d.kill()
                break
            finally:
                d.remove()
        return {"times": times, "rss": rss, "samples": samples,
                "timed_out": timed_out, "imports": imports, "used": used}

    def pprof_runs(self, args, n):
        """As import_runs, for pprof."""
        times, rss, timed_out = [], [], False
        for _ in range(n):
            try:
                t, r = self.pprof_run(args)
            except Timeout as e:
                rss.append(e.rss / 1024)
                timed_out = True
                break
            times.append(t)
            rss.append(r / 1024)
        return {"times": times, "rss": rss, "timed_out": timed_out}

    def secs(self, res, timeout=None):
        """The time figure of import_runs or pprof_runs, or what is known
        when the first run timed out."""
        if res["times"]:
            return Fig(res["times"], "s")
        return "> %g s (timed out)" % (timeout or self.a.timeout)

    def rate(self, res, amount, kind, timeout=None):
        if res["times"]:
            return Fig([amount / t for t in res["times"]], kind)
        f = Fig([amount / (timeout or self.a.timeout)], kind, "< ")
        return "%s (timed out)" % f

    @staticmethod
    def ratio(a, b, fn):
        """fn(a.med, b.med) for two figures, else "—"."""
        if isinstance(a, Fig) and isinstance(b, Fig):
            return fn(a.med, b.med)
        return "—"

    # -- import: one large pprof, and the fixtures

    def large_import(self):
        return self.once("large", lambda: self.import_runs(
            self.large, "large", self.runs, self.a.timeout))

    def large_pprof(self):
        return self.once("large.pprof", lambda: self.pprof_runs(
            ["-top", "-symbolize=none", self.large], self.runs))

    def case_import(self):
        r, p = self.large_import(), self.large_pprof()
        pd, pp = self.secs(r), self.secs(p)
        self.add(Row("import", "import.large", "import large CPU profile",
                     pd, pp, self.ratio(pp, pd, lambda a, b: faster(a / b)),
                     "≥ 2× faster",
                     self.ratio(pp, pd, lambda a, b: a / b >= 2) is True))
        for path in self.fixtures:
            name = os.path.basename(path)
            tag = "fixture-" + name.split(".")[0]
            r = self.import_runs(path, tag, self.runs, self.a.timeout)
            p = self.pprof_runs(["-top", "-symbolize=none", path], self.runs)
            pd, pp = self.secs(r), self.secs(p)
            self.add(Row("import", "import." + tag, "import fixture " + name,
                         pd, pp, self.ratio(pp, pd,
                                            lambda a, b: faster(a / b))))

    # -- throughput

    def heap_import(self):
        return self.once("heap", lambda: self.import_runs(
            self.heap, "heap", self.runs, self.a.timeout))

    def heap_pprof(self):
        return self.once("heap.pprof", lambda: self.pprof_runs(
            ["-top", "-symbolize=none", self.heap], self.runs))

    def trace_import(self):
        return self.once("trace", lambda: self.import_runs(
            self.trace, "trace", self.a.trace_runs, self.a.trace_timeout))

    def case_throughput(self):
        for path, r, p, label in (
                (self.large, self.large_import(), self.large_pprof(),
                 "large CPU profile"),
                (self.heap, self.heap_import(), self.heap_pprof(),
                 "%s heap profile" % mb(self.size(self.heap)))):
            size = self.size(path) / 1e6
            pd, pp = self.rate(r, size, "MB/s"), self.rate(p, size, "MB/s")
            key = "throughput." + ("large" if path == self.large else "heap")
            self.add(Row("throughput", key, "pprof import throughput, " +
                         label, pd, pp,
                         self.ratio(pd, pp, lambda a, b: "%.2f×" % (a / b)),
                         "≥ 100 MB/s",
                         isinstance(pd, Fig) and pd.med >= 100))
        # The steady state of a continuous profiler: a profile whose
        # stacks the store already has (pushed again, to a new scope).
        w = self.warm_import(self.large)
        pd = self.rate(w, self.size(self.large) / 1e6, "MB/s")
        self.add(Row("throughput", "throughput.large-warm",
                     "pprof import throughput, large CPU profile again "
                     "(its stacks stored)", pd, "—", "—", "≥ 100 MB/s",
                     isinstance(pd, Fig) and pd.med >= 100,
                     note="of which profd importing (POST /v1/profiles): "
                     "%s" % Fig(w["imports"], "s") if w["imports"] else ""))
        r = self.trace_import()
        pd = self.rate(r, self.trace_samples, "samples/s",
                       self.a.trace_timeout)
        note = ""
        if r.get("imports") and r["times"]:
            note = ("push to commit %s, of which profd importing "
                    "(POST /v1/profiles, after the chunked upload) %s: "
                    "%s" % (Fig(r["times"], "s"), Fig(r["imports"], "s"),
                            Fig([self.trace_samples / t
                                 for t in r["imports"]], "samples/s")))
        self.add(Row("throughput", "throughput.trace",
                     "Perfetto import throughput, %s trace" %
                     mb(self.trace_bytes), pd, "— (pprof reads no Perfetto)",
                     "—", "≥ 3 M samples/s",
                     isinstance(pd, Fig) and pd.med >= 3e6, note=note))

    def warm_import(self, path):
        """One profd: path pushed once untimed, then runs times to new
        scopes, each import finding every stack already stored."""
        def measure():
            d = Daemon(self, "warm").start()
            try:
                d.push([path], "warm-0", timeout=self.a.timeout)
                times, imports = [], []
                for i in range(self.runs):
                    before = d.route("POST /v1/profiles")
                    times.append(d.push([path], "warm-%d" % (i + 1),
                                        timeout=self.a.timeout)[0])
                    after = d.route("POST /v1/profiles")
                    imports.append((after[1] - before[1]) / 1e3)
                d.stop()
            finally:
                d.remove()
            return {"times": times, "imports": imports}
        return self.once("warm:" + path, measure)

    def size(self, path):
        return self.once("size:" + path, lambda: file_size(path))

    # -- query and growth over the series; storage

    def series_store(self, n):
        """The series' first n profiles pushed to scope "series" of one
        profd; the store's size is measured with profd stopped (its WAL
        checkpointed into the file), then it is started again."""
        st = self.memo.get("series")
        if st is None:
            st = {"d": Daemon(self, "series").start(), "pushed": 0,
                  "size": {}, "push": {}}
            self.memo["series"] = st
        d = st["d"]
        if st["pushed"] < n:
            files = self.series[st["pushed"]:n]
            secs = 0
            for i in range(0, len(files), 200):
                secs += d.push(files[i:i + 200], "series",
                               timeout=self.a.timeout)[0]
            st["push"][n] = (secs, len(files))
            st["pushed"] = n
            d.stop()
            st["size"][n] = d.store_bytes()
            d.start()
            self.meta["series.stacks.%d" % n] = d.stacks("series")
        return st

    def series_queries(self, n):
        def measure():
            d = self.series_store(n)["d"]
            files = self.series[:n]
            res = {}
            for q, pflag in (("top", "-top"), ("tree", "-tree")):
                out = os.path.join(d.dir, q + ".out")
                cmd = ["--socket", d.sock, q, "--scope", "series"]
                run([self.profctl] + cmd, self.a.timeout, out)  # warm-up
                if os.path.getsize(out) == 0:
                    raise CaseError("profctl %s printed nothing" % q)
                before = d.route("GET /v1/" + q)
                res[q] = [run([self.profctl] + cmd, self.a.timeout)[0]
                          for _ in range(self.runs)]
                after = d.route("GET /v1/" + q)
                res["daemon-" + q] = (after[1] - before[1]) / 1e3 / max(
                    1, after[0] - before[0])
                args = [pflag, "-symbolize=none"] + files
                self.pprof_run(args)  # warm-up
                res["pprof-" + q] = self.pprof_runs(args, self.runs)["times"]
            return res
        return self.once("queries.%d" % n, measure)

    @staticmethod
    def fmt_s(v):
        return Fig([], "s").fmt(v)

    def startup(self):
        """profctl --version: the client's own start-up, a floor under
        every profctl figure."""
        return self.once("startup", lambda: Fig(
            [run([self.profctl, "--version"])[0] for _ in range(self.runs)],
            "s"))

    def case_query(self):
        n = self.nsmall
        res = self.series_queries(n)
        up = self.startup()
        for q in ("top", "tree"):
            pd, pp = Fig(res[q], "s"), Fig(res["pprof-" + q], "s")
            ratio = pp.med / pd.med
            self.add(Row("query", "query." + q,
                         "%s over %d profiles" % (q, n), pd, pp,
                         faster(ratio), "≥ 20× faster, < 50 ms",
                         ratio >= 20 and pd.med < 0.05,
                         note="of which profd answering GET /v1/%s: %s "
                         "(mean, its own count); profctl --version alone: "
                         "%s" % (q, up.fmt(res["daemon-" + q]), up)))

    def case_views(self):
        """pprof's peek (of the generator's main package) and traces over
        the series' first profiles, profctl against go tool pprof given
        the same files, both printing to nowhere."""
        n = self.nsmall
        d = self.series_store(n)["d"]
        files = self.series[:n]
        up = self.startup()
        for q, cmd, pflag in (("peek", ["peek", "main\\."], "-peek=main\\."),
                              ("traces", ["traces"], "-traces")):
            out = os.path.join(d.dir, q + ".out")
            c = [self.profctl, "--socket", d.sock] + cmd + [
                "--scope", "series"]
            run(c, self.a.timeout, out)  # warm-up
            if os.path.getsize(out) == 0:
                raise CaseError("profctl %s printed nothing" % q)
            lines = sum(1 for _ in open(out, "rb"))
            before = d.route("GET /v1/" + q)
            pd = Fig([run(c, self.a.timeout)[0] for _ in range(self.runs)],
                     "s")
            after = d.route("GET /v1/" + q)
            daemon = (after[1] - before[1]) / 1e3 / max(1, after[0] -
                                                       before[0])
            args = [pflag, "-symbolize=none"] + files
            self.pprof_run(args)  # warm-up
            pp = self.secs(self.pprof_runs(args, self.runs))
            ratio = pp.med / pd.med if isinstance(pp, Fig) else None
            self.add(Row("views", "views." + q,
                         "%s over %d profiles" % (q, n), pd, pp,
                         faster(ratio) if ratio else "—", "≥ 20× faster",
                         ratio is not None and ratio >= 20,
                         note="%d lines printed; of which profd answering "
                         "GET /v1/%s: %s (mean, its own count); profctl "
                         "--version alone: %s" % (lines, q,
                                                  up.fmt(daemon), up)))

    def case_growth(self):
        s, l = self.nsmall, self.nlarge
        small, large = self.series_queries(s), self.series_queries(l)
        for q in ("top", "tree"):
            # over every pairing of a run with 1000 and one with 100
            def growth(k):
                return Fig([b / a for a in small[k] for b in large[k]], "x")
            pd, pp = growth(q), growth("pprof-" + q)
            self.add(Row("growth", "growth." + q,
                         "%s time, %d vs %d profiles" % (q, l, s), pd, pp,
                         "—", "≤ 1.5×", pd.med <= 1.5,
                         note="profd %s → %s (answering GET /v1/%s: %s → "
                         "%s), pprof %s → %s" % (
                             self.fmt_s(statistics.median(small[q])),
                             self.fmt_s(statistics.median(large[q])), q,
                             self.fmt_s(small["daemon-" + q]),
                             self.fmt_s(large["daemon-" + q]),
                             self.fmt_s(statistics.median(small["pprof-" + q])),
                             self.fmt_s(statistics.median(
                                 large["pprof-" + q])))))

    def case_storage(self):
        s, l = self.nsmall, self.nlarge
        self.series_store(s)
        st = self.series_store(l)
        per = (st["size"][l] - st["size"][s]) / (l - s)
        gz = statistics.mean(os.path.getsize(f) for f in self.series[s:l])
        self.add(Row("storage", "storage.series",
                     "store growth per profile, profiles %d–%d" % (s + 1, l),
                     Fig([per], "B"), Fig([gz], "B", "gzipped file "),
                     "%.0f %% of the gzipped size" % (per / gz * 100),
                     "≤ 20 % of the gzipped size", per / gz <= 0.20))

    # -- import against inflating alone (issue 13's first target)

    def inflate_runs(self, path):
        """zlib alone on the same file, in memory (python's zlib is the
        zlib profd links): seconds per run."""
        def measure():
            with open(path, "rb") as f:
                data = f.read()
            times, n = [], 0
            for _ in range(max(self.runs, 5)):
                t0 = time.perf_counter()
                z = zlib.decompressobj(47)  # gzip header, 32 KiB window
                n = len(z.decompress(data)) + len(z.flush())
                times.append(time.perf_counter() - t0)
            if n != self.size(path):
                raise CaseError("%s: zlib inflated %d bytes, not %d" % (
                    path, n, self.size(path)))
            return times
        return self.once("inflate:" + path, measure)

    def case_inflate(self):
        for path, r, label, key in (
                (self.large, self.large_import(), "large CPU profile",
                 "large"),
                (self.heap, self.heap_import(),
                 "%s heap profile" % mb(self.size(self.heap)), "heap")):
            size = self.size(path) / 1e6
            z = Fig([size / t for t in self.inflate_runs(path)], "MB/s")
            pd = self.rate(r, size, "MB/s")
            share = pd.med / z.med if isinstance(pd, Fig) else None
            self.add(Row(
                "inflate", "inflate." + key,
                "pprof import against zlib inflating it alone, " + label,
                pd, "—", "%.0f %% of zlib's %s" % (
                    share * 100, z.fmt(z.med)) if share is not None else "—",
                "≥ 35 % of inflating alone",
                None if self.smoke else (share or 0) >= 0.35,
                note="import end to end (`profctl push` until committed), "
                "MB/s of inflated bytes; zlib alone (python "
                "zlib.decompressobj(47), the file in memory): %s, best "
                "%s" % (z, z.fmt(max(z.values)))))

    # -- the same profile again and again (issue 13's second target)

    def case_repeat(self):
        files = self.repeat
        if len(files) < 4:
            raise CaseError("no repeated profiles in the inputs")
        first = max(2, len(files) // 10)
        d = Daemon(self, "repeat").start()
        try:
            t0 = self.push_batches(d, files[:first], "repeat")
            d.stop()
            s0 = d.used_bytes()
            d.start()
            t1 = self.push_batches(d, files[first:], "repeat")
            d.stop()
            s1 = d.used_bytes()
        finally:
            d.remove()
        k = len(files) - first
        per = (s1 - s0) / k
        gz = statistics.mean(os.path.getsize(f) for f in files)
        self.add(Row("repeat", "repeat.growth",
                     "store growth per profile, one profile pushed again "
                     "and again, pushes %d–%d" % (first + 1, len(files)),
                     Fig([per], "B"), Fig([gz], "B", "gzipped file "),
                     "%.0f %% of the gzipped size" % (per / gz * 100),
                     "≤ 10 % of the gzipped size",
                     None if self.smoke else per / gz <= 0.10,
                     note="series/%s (the series' profile of median size), "
                     "its time_nanos a minute later each time, nothing else "
                     "changed; growth of the pages in use (page_count - "
                     "freelist_count, profd stopped); pushing %d: %.1f ms "
                     "per profile, then %d: %.1f ms" % (self.repeat_source, first, t0 / first * 1e3,
                                  k, t1 / k * 1e3)))

    def case_heapstore(self):
        r = self.heap_import()
        if not r["used"]:
            raise CaseError("the heap profile's import did not finish")
        d = Daemon(self, "empty").start()
        try:
            d.stop()
            empty = d.used_bytes()
        finally:
            d.remove()
        gz = os.path.getsize(self.heap)
        used = Fig(r["used"], "B")
        self.add(Row("heapstore", "heapstore.heap",
                     "store size after importing the %s heap profile" %
                     mb(self.size(self.heap)), used,
                     Fig([gz], "B", "gzipped file "),
                     "%.2f× the gzipped size" % (used.med / gz),
                     "≤ the gzipped size",
                     None if self.smoke else used.med <= gz,
                     note="pages in use (page_count - freelist_count) of the "
                     "store, profd stopped; an empty store: %s" % mb(empty)))

    # -- a week and a month of 1-minute profiles (issue 13's third target)

    def push_batches(self, d, files, scope, per=500):
        """files pushed in order, per to a profctl process; seconds."""
        secs = 0
        for i in range(0, len(files), per):
            secs += d.push(files[i:i + per], scope,
                           timeout=self.a.timeout)[0]
        return secs

    def timed_push(self, d, files, scope):
        """files pushed by one profctl process: (seconds per profile of the
        process, of profd answering POST /v1/profiles)."""
        before = d.route("POST /v1/profiles")
        secs = d.push(files, scope, timeout=self.a.timeout)[0]
        after = d.route("POST /v1/profiles")
        if after[0] - before[0] != len(files):
            raise CaseError("%d pushes counted for %d files" % (
                after[0] - before[0], len(files)))
        return secs / len(files), (after[1] - before[1]) / 1e3 / len(files)

    def each_push(self, d, files, scope):
        """files pushed one a profctl process: ([seconds of each process],
        [seconds of profd answering each POST /v1/profiles])."""
        wall, answer = [], []
        for f in files:
            before = d.route("POST /v1/profiles")
            wall.append(d.push([f], scope, timeout=self.a.timeout)[0])
            after = d.route("POST /v1/profiles")
            if after[0] - before[0] != 1:
                raise CaseError("%d pushes counted for one file" % (
                    after[0] - before[0]))
            answer.append((after[1] - before[1]) / 1e3)
        return wall, answer

    def long_series(self, name, n, minutes):
        """n 1-minute profiles (the last n of the month's, minutes) pushed
        into a fresh store: the first 100 by one profctl process, the next
        100 and the last 100 one a process, timed each, the rest as fast as
        profctl goes (500 a process), within --budget."""
        files = minutes[-n:]
        if len(files) < n:
            raise CaseError("%d 1-minute profiles in the inputs, %d wanted" %
                            (len(minutes), n))
        k = min(100, n // 4)
        d = Daemon(self, name).start()
        try:
            return self.long_pushes(d, files, name, k)
        except BaseException:
            d.remove()
            raise

    def long_pushes(self, d, files, name, k):
        n = len(files)
        st = {"d": d, "n": n, "k": k, "pushed": 0}
        t0 = time.perf_counter()
        st["first"] = self.timed_push(d, files[:k], name)
        st["early"] = self.each_push(d, files[k:2 * k], name)
        st["pushed"] = 2 * k
        rest = files[2 * k:n - k]
        for i in range(0, len(rest), 500):
            if time.perf_counter() - t0 > self.a.budget:
                break
            d.push(rest[i:i + 500], name, timeout=self.a.timeout)
            st["pushed"] += len(rest[i:i + 500])
        st["complete"] = st["pushed"] == n - k
        if st["complete"]:
            st["last"] = self.each_push(d, files[n - k:], name)
            st["pushed"] = n
        st["secs"] = time.perf_counter() - t0
        d.stop()
        st["store"] = d.store_bytes()
        d.start()
        st["since"] = profile_time(files[0]) - 60 * 10 ** 9
        return st

    def long_queries(self, st, scope):
        d = st["d"]
        since = datetime.datetime.fromtimestamp(
            st["since"] // 10 ** 9, datetime.timezone.utc).strftime(
                "%Y-%m-%dT%H:%M:%SZ")
        res = {"since": since}
        for q in ("top", "tree", "timeline"):
            cmd = [self.profctl, "--socket", d.sock, q, "--scope", scope,
                   "--since", since]
            out = os.path.join(d.dir, q + ".out")
            run(cmd, self.a.timeout, out)  # warm-up
            if os.path.getsize(out) == 0:
                raise CaseError("profctl %s printed nothing" % q)
            wall, answer = [], []
            for _ in range(self.runs):
                before = d.route("GET /v1/" + q)
                wall.append(run(cmd, self.a.timeout)[0])
                after = d.route("GET /v1/" + q)
                answer.append((after[1] - before[1]) / 1e3)
            res[q] = (Fig(answer, "s"), Fig(wall, "s"))
        return res

    def long_case(self, name, n, what, limits, minutes=None):
        st = self.long_series(name, n,
                              self.minutes if minutes is None else minutes)
        d = st["d"]
        try:
            k = st["k"]
            note = "%d pushed in %.1f s (%.1f ms a profile; 500 a profctl " \
                "process but profiles %d–%d and the last %d, one each), " \
                "store %s after them (%s a profile)" % (
                    st["pushed"], st["secs"], st["secs"] / st["pushed"] * 1e3,
                    k + 1, 2 * k, k, mb(st["store"]),
                    mb(st["store"] / st["pushed"]))
            what_push = "push time, last %d vs profiles %d–%d of %s" % (
                k, k + 1, 2 * k, what)
            if not st["complete"]:
                self.add(Row(name, name + ".push", what_push,
                             "— (not all pushed within %g s)" % self.a.budget,
                             target="≤ 1.2×", ok=None if self.smoke else False,
                             note=note))
                for q in limits:
                    self.add(Row(name, "%s.%s" % (name, q),
                                 "%s over %s, profd answering" % (q, what),
                                 "— (not all pushed)", target="< %g ms" % (
                                     limits[q] * 1e3) if limits[q] else "—",
                                 ok=(None if self.smoke or not limits[q]
                                     else False), note=note))
                return
            (w0, p0), (w1, p1) = st["early"], st["last"]
            med, mean = statistics.median, statistics.mean
            ratio = med(p1) / med(p0)
            self.add(Row(name, name + ".push", what_push,
                         Fig([ratio], "x"), "—", "—", "≤ 1.2×",
                         None if self.smoke else ratio <= 1.2,
                         note="the median of profd answering each POST "
                         "/v1/profiles (its own count; the median, as the "
                         "machine's load comes and goes): %s → %s (mean %s → "
                         "%s, %.2f×); whole profctl process: median %s → %s "
                         "(%.2f×); the first %d, into the empty store, "
                         "%s each (profd, mean); %s" % (
                             self.fmt_s(med(p0)), self.fmt_s(med(p1)),
                             self.fmt_s(mean(p0)), self.fmt_s(mean(p1)),
                             mean(p1) / mean(p0), self.fmt_s(med(w0)),
                             self.fmt_s(med(w1)), med(w1) / med(w0), k,
                             self.fmt_s(st["first"][1]), note)))
            res = self.long_queries(st, name)
            for q, limit in limits.items():
                answer, wall = res[q]
                self.add(Row(name, "%s.%s" % (name, q),
                             "%s over %s, profd answering" % (q, what),
                             answer, "—", "—",
                             "< %g ms" % (limit * 1e3) if limit else "—",
                             None if self.smoke or not limit
                             else answer.med < limit,
                             note="the whole profctl process: %s; --since "
                             "%s (a minute before the first profile)" % (
                                 wall, res["since"])))
        finally:
            d.remove()

    def case_week(self):
        self.long_case("week", self.a.week,
                       "a week of 1-minute profiles (%d)" % self.a.week,
                       {"top": 0.020, "tree": 0.020, "timeline": 0.020})

    def case_month(self):
        n = len(self.minutes)
        self.long_case("month", n, "a month of 1-minute profiles (%d)" % n,
                       {"top": 0.050, "tree": 0.050, "timeline": None})

    # Issue 29: the same made of real profiles (400–800 sample records
    # each, with the program's pprof labels), top's targets 25 and 60 ms.
    def case_week_real(self):
        self.long_case("week-real", self.a.week,
                       "a week of real 1-minute profiles (%d)" % self.a.week,
                       {"top": 0.025, "tree": None, "timeline": None},
                       self.minutes_real)

    def case_month_real(self):
        n = len(self.minutes_real)
        self.long_case("month-real", n,
                       "a month of real 1-minute profiles (%d)" % n,
                       {"top": 0.060, "tree": None, "timeline": None},
                       self.minutes_real)

    # -- query while importing

    def case_concurrent(self):
        d = Daemon(self, "concurrent").start()
        try:
            n = min(self.nsmall, len(self.series))
            d.push(self.series[:n], "series", timeout=self.a.timeout)
            idle = []
            for _ in range(20):
                t0 = time.perf_counter()
                st, _ = http_call(d.sock, "GET", "/v1/top?scope=series")
                idle.append(time.perf_counter() - t0)
            health, top, errors = [], [], []
            done = threading.Event()

            def probe(path, out, pause):
                while not done.is_set():
                    t0 = time.perf_counter()
                    try:
                        st, _ = http_call(d.sock, "GET", path, timeout=120)
                        if st != 200:
                            errors.append("%s: %d" % (path, st))
                    except OSError as e:
                        errors.append("%s: %s" % (path, e))
                    out.append(time.perf_counter() - t0)
                    done.wait(pause)
            threads = [threading.Thread(target=probe, args=a) for a in (
                ("/v1/health", health, 0.01),
                ("/v1/top?scope=series", top, 0.25))]
            timed_out = False
            for t in threads:
                t.start()
            try:
                d.push([self.trace], "trace", timeout=self.a.trace_timeout)
            except Timeout:
                timed_out = True
            finally:
                done.set()
                for t in threads:
                    t.join()
            if errors:
                raise CaseError("probes failed: " + "; ".join(errors[:5]))
        finally:
            d.remove()
        note = "%d health and %d top requests during the import%s" % (
            len(health), len(top), " (timed out)" if timed_out else "")
        for key, name, v, target, limit in (
                ("concurrent.health", "GET /v1/health p99 while importing",
                 health, "< 10 ms", 0.010),
                ("concurrent.top", "GET /v1/top p99 while importing", top,
                 "—", None)):
            p99 = pct(v, 99)
            f = Fig([p99], "s")
            extra = "p50 %s, max %s" % (f.fmt(pct(v, 50)), f.fmt(max(v)))
            if key == "concurrent.top":
                extra += ", idle p50 %s" % f.fmt(pct(idle, 50))
            self.add(Row("concurrent", key, name, f, "—", "—", target,
                         None if limit is None else p99 < limit,
                         note=extra + "; " + note))

    # -- memory

    def case_memory(self):
        idle = []
        for i in range(self.runs):
            d = Daemon(self, "idle-%d" % i).start()
            try:
                http_call(d.sock, "GET", "/v1/health")
                http_call(d.sock, "GET", "/v1/scopes")
                idle.append(d.hwm_kib() / 1024)
                d.stop()
            finally:
                d.remove()
        self.add(Row("memory", "memory.idle", "peak RSS idle",
                     Fig(idle, "MiB"), target="≤ 32 MiB",
                     ok=statistics.median(idle) <= 32))
        size = self.size(self.heap) / MIB
        r, p = self.heap_import(), self.heap_pprof()
        pp = Fig(p["rss"], "MiB", "≥ " if p["timed_out"] else "")
        pd = Fig(r["rss"], "MiB", "≥ " if r["timed_out"] else "")
        note = ""
        if r["timed_out"]:
            note = "the import timed out after %g s; its peak so far" % \
                self.a.timeout
        self.add(Row("memory", "memory.heap",
                     "peak RSS importing %s pprof" % mb(size * MIB), pd, pp,
                     "%.2f× the inflated size" % (pd.med / size),
                     "≤ 3× inflated (%.0f MiB)" % (3 * size),
                     pd.med <= 3 * size and not r["timed_out"], note=note))
        r = self.trace_import()
        pd = Fig(r["rss"], "MiB")
        if r["timed_out"]:
            pd.prefix = "≥ "
        self.add(Row("memory", "memory.trace",
                     "peak RSS importing %s trace" % mb(self.trace_bytes),
                     pd, "—", "—", "≤ 256 MiB",
                     pd.med <= 256 and not r["timed_out"]))

    # -- load and faults: the load is bench/faults.py's, in processes of
    # its own (one interpreter each), so the prober times profd, not a
    # GIL shared with 50 client threads.

    def fault_params(self):
        if self.smoke:
            return {"clients": 4, "procs": 2, "seconds": 3, "trickle": 20,
                    "trickle_s": 3, "kills": 2, "kill_gap": (0.5, 1.5)}
        return {"clients": 50, "procs": 5, "seconds": 60, "trickle": 1000,
                "trickle_s": 60, "kills": 8, "kill_gap": (1.0, 6.0)}

    def fault_daemon(self, name):
        # No config file and no spool: only the load reaches this profd.
        return Daemon(self, name, ["--no-config", "--spool", "none"]).start()

    def fault_templates(self, d):
        """The blobs the clients push, each pushed once as it is so that
        every scope the clients query exists."""
        tpl = faults.templates(self.a.fixtures, d.dir)
        for scope, path in tpl:
            with open(path, "rb") as f:
                st, body = http_call(d.sock, "POST", "/v1/profiles?scope=" +
                                     scope, f.read())
            if st not in (200, 201):
                raise CaseError("seeding %s: %d %s" % (scope, st, body[:300]))
        if "faults.inputs" not in self.meta:
            self.meta["faults.inputs"] = [
                "load, trickle, crash: each push is one of %s, its gzip "
                "header's mtime made unique so that no push is a duplicate "
                "of another (bench/faults.py)" % ", ".join(
                    "`%s` (%s, scope %s)" % (os.path.basename(p),
                                             mb(os.path.getsize(p)), sc)
                    for sc, p in tpl)]
        return tpl

    def clients(self, d, stop, retry):
        p = self.fault_params()
        tpl = self.fault_templates(d)
        per = p["clients"] // p["procs"]
        return [Worker("clients", {
            "sock": d.sock, "threads": per, "first_client": i * per,
            "seed": i, "templates": tpl, "stop": stop, "retry": retry,
            "push_share": 0.5, "ready": "%s.ready%d" % (stop, i)})
            for i in range(p["procs"])]

    @staticmethod
    def merge(results):
        out = {"ops": {}, "fail": {}, "examples": [], "accepted": [],
               "unacked": [], "cut": 0}
        for r in results:
            for op, o in r["ops"].items():
                m = out["ops"].setdefault(op, {"n": 0, "ok": 0, "lat": []})
                m["n"] += o["n"]
                m["ok"] += o["ok"]
                m["lat"] += o["lat"]
            for k, n in r["fail"].items():
                out["fail"][k] = out["fail"].get(k, 0) + n
            for k in ("examples", "accepted", "unacked"):
                out[k] += r[k]
            out["cut"] += r["cut"]
        return out

    def health_rows(self, case, what, pr, note):
        """Rows of a health prober's figures: p99, and failures."""
        lat = pr["lat"]
        if lat:
            p99 = pct(lat, 99)
            f = Fig([p99], "s")
            note = "p50 %s, max %s, %d requests; %s" % (
                f.fmt(pct(lat, 50)), f.fmt(max(lat)), len(lat) + pr["fail"],
                note)
        else:
            f, p99 = "— (no request answered)", None
        self.add(Row(case, case + ".health",
                     "%s: GET /v1/health p99, %s" % (case, what), f,
                     target="< 10 ms",
                     ok=p99 is not None and p99 < 0.010 and not pr["fail"],
                     note=note + ("; %d failed: %s" % (
                         pr["fail"], "; ".join(pr["examples"][:3]))
                         if pr["fail"] else "")))

    def idle_probe(self, d, seconds):
        stop = os.path.join(d.dir, "stop-idle")
        w = Worker("probe", {"sock": d.sock, "stop": stop})
        try:
            time.sleep(seconds)
            with open(stop, "w"):
                pass
            return w.result(60)
        finally:
            w.kill()

    def case_load(self):
        p = self.fault_params()
        d = self.fault_daemon("load")
        stop = os.path.join(d.dir, "stop")
        workers = []
        try:
            idle = d.hwm_kib() / 1024
            # The prober alone first: what the machine (shared, perhaps)
            # gives without the load.
            base = self.idle_probe(d, 1 if self.smoke else 5)
            workers = self.clients(d, stop, False)
            probe = Worker("probe", {"sock": d.sock, "stop": stop,
                                     "pid": d.proc.pid,
                                     "ready": stop + ".ready-probe"})
            workers.append(probe)
            Worker.wait_ready(workers)
            t0 = time.monotonic()
            time.sleep(p["seconds"])
            with open(stop, "w"):
                pass
            secs = time.monotonic() - t0
            res = [w.result(120) for w in workers]
            alive = d.proc.poll() is None
            peak = d.hwm_kib() / 1024 if alive else None
            files = [os.path.getsize(f) if os.path.exists(f) else 0
                     for f in (d.db, d.db + "-wal")]
        finally:
            for w in workers:
                w.kill()
            d.remove()
        if not alive:
            raise CaseError("profd died under the load: " + d.logtail())
        pr, c = res[-1], self.merge(res[:-1])
        pushes = c["ops"].get("push", {"n": 0, "ok": 0, "lat": []})
        queries = [o for k, o in c["ops"].items() if k != "push"]
        nreq = sum(o["n"] for o in c["ops"].values())
        failed = sum(c["fail"].values())
        what = "%d clients for %.0f s" % (p["clients"], secs)
        self.add(Row("load", "load.failed",
                     "load: failed requests, " + what,
                     Fig([failed], "requests"), target="0", ok=failed == 0,
                     note="of %d requests%s" % (nreq, (
                         "; by kind: %s; e.g. %s" % (
                             json.dumps(c["fail"]),
                             "; ".join(c["examples"][:3])))
                         if failed else "")))
        self.health_rows("load", "a prober beside " + what, pr,
                         "one every 10 ms on a new connection; before the "
                         "load, the prober alone: p99 %s" % (
                             Fig([], "s").fmt(pct(base["lat"], 99))
                             if base["lat"] else "— (none answered)"))
        self.add(Row("load", "load.rss",
                     "load: profd peak RSS, " + what,
                     Fig([peak], "MiB"), target="≤ 256 MiB", ok=peak <= 256,
                     note="%.1f MiB before the load; %d open files at most "
                     "(sampled every 0.5 s)" % (idle, pr["fds_max"])))

        def lat(o):
            if not o["lat"]:
                return "none answered"
            f = Fig([], "s")
            return "p50 %s, p99 %s" % (f.fmt(pct(o["lat"], 50)),
                                       f.fmt(pct(o["lat"], 99)))
        self.add(Row("load", "load.pushes",
                     "load: pushes/s answered 2xx, " + what,
                     Fig([pushes["ok"] / secs], "/s"),
                     note="%d pushes; latency %s" % (pushes["ok"],
                                                      lat(pushes))))
        qok = sum(o["ok"] for o in queries)
        self.add(Row("load", "load.queries",
                     "load: queries/s answered 200, " + what,
                     Fig([qok / secs], "/s"),
                     note="; ".join("%s: %d, %s" % (k, o["ok"], lat(o))
                                    for k, o in sorted(c["ops"].items())
                                    if k != "push")))
        self.add(Row("load", "load.store", "load: store file and WAL at "
                     "the end, " + what, Fig([sum(files)], "B"),
                     note="file %s, WAL %s (profd running)" % (
                         mb(files[0]), mb(files[1]))))
        if self.smoke and (failed or not pushes["ok"] or not qok or
                           pr["fail"]):
            raise CaseError("load: %d failed requests, %d pushes, %d "
                            "queries, %d failed health: %s" % (
                                failed, pushes["ok"], qok, pr["fail"],
                                "; ".join((c["examples"] +
                                           pr["examples"])[:5])))

    def case_trickle(self):
        p = self.fault_params()
        d = self.fault_daemon("trickle")
        stop = os.path.join(d.dir, "stop")
        ready = os.path.join(d.dir, "ready")
        workers = []
        try:
            tr = Worker("trickle", {"sock": d.sock, "n": p["trickle"],
                                    "seconds": p["trickle_s"] + 2,
                                    "interval": 1.0, "ready": ready})
            workers.append(tr)
            deadline = time.monotonic() + 300
            while not os.path.exists(ready):
                if tr.p.poll() is not None or time.monotonic() > deadline:
                    tr.result(1)
                    raise CaseError("trickle: the connections did not open")
                time.sleep(0.05)
            probe = Worker("probe", {"sock": d.sock, "stop": stop,
                                     "pid": d.proc.pid,
                                     "ready": stop + ".ready-probe"})
            workers.append(probe)
            Worker.wait_ready([probe])
            time.sleep(p["trickle_s"])
            with open(stop, "w"):
                pass
            pr = probe.result(120)
            t = tr.result(120)
            alive = d.proc.poll() is None
            peak = d.hwm_kib() / 1024 if alive else None
            nofile = fd_limit(d.proc.pid) if alive else "?"
        finally:
            for w in workers:
                w.kill()
            d.remove()
        if not alive:
            raise CaseError("profd died under the trickle: " + d.logtail())
        closed = t["close_after"]
        note = ("%d of %d connections opened in %.1f s%s%s, each then sent "
                "one more header byte a second; profd closed %d%s%s, %d "
                "still open at the end; profd %d open files at most, peak "
                "RSS %.1f MiB" % (
                    t["opened"], p["trickle"], t["ramp_s"],
                    " (%s)" % json.dumps(t["open_errors"])
                    if t["open_errors"] else "",
                    " (connect found the listen backlog full %d times)" %
                    t["backlog_full"] if t["backlog_full"] else "",
                    t["closed_by_profd"],
                    " (median after %.1f s)" % statistics.median(closed)
                    if closed else "",
                    " with replies %s" % json.dumps(t["replies"])
                    if t["replies"] else "", t["open_at_end"],
                    pr["fds_max"], peak))
        note += "; profd's open files limit %s" % nofile
        self.health_rows("trickle", "%d connections trickling headers" %
                         p["trickle"], pr, note)
        self.add(Row("trickle", "trickle.held", "trickle: trickling "
                     "connections profd still held after %d s" %
                     p["trickle_s"], Fig([t["open_at_end"]], "connections"),
                     note="of %d opened; closed by profd: %d" % (
                         t["opened"], t["closed_by_profd"])))
        if self.smoke and (pr["fail"] or not pr["lat"] or not t["opened"]):
            raise CaseError("trickle: %d health requests answered, %d "
                            "failed: %s" % (len(pr["lat"]), pr["fail"],
                                            "; ".join(pr["examples"][:5])))

    def case_crash(self):
        p = self.fault_params()
        d = self.fault_daemon("crash")
        stop = os.path.join(d.dir, "stop")
        rnd = random.Random()
        workers, kills, restarts = [], [], []
        try:
            workers = self.clients(d, stop, True)
            t0 = time.monotonic()
            for _ in range(p["kills"]):
                time.sleep(rnd.uniform(*p["kill_gap"]))
                kills.append(time.monotonic() - t0)
                d.proc.kill()
                d.proc.wait()
                d.proc = None
                t1 = time.monotonic()
                d.start()
                restarts.append(time.monotonic() - t1)
            time.sleep(rnd.uniform(*p["kill_gap"]))
            with open(stop, "w"):
                pass
            c = self.merge(w.result(300) for w in workers)
            # Every acknowledged push was answered before this kill.
            d.kill()
            d.start()
            d.stop()
        finally:
            for w in workers:
                w.kill()
            d.kill()
        try:
            check = self.crash_check(d.db, c)
        finally:
            d.remove()
        accepted, found, dups, lost, wrong, integrity = check[:6]
        what = "kill -9 ×%d during the load" % len(kills)
        self.add(Row("crash", "crash.accepted",
                     "crash: pushes answered 2xx, " + what,
                     Fig([accepted], "pushes"),
                     note="%d of them answered as the duplicate of a push "
                     "cut by a kill and sent again; %d requests cut; kills "
                     "at %s s; restart to health %s at most; %d other "
                     "failures%s" % (
                         sum(1 for a in c["accepted"] if a[4]), c["cut"],
                         ", ".join("%.1f" % k for k in kills),
                         Fig([], "s").fmt(max(restarts)),
                         sum(c["fail"].values()),
                         " (%s)" % "; ".join(c["examples"][:3])
                         if c["fail"] else "")))
        self.add(Row("crash", "crash.found",
                     "crash: accepted pushes found once, with their id "
                     "and hash, " + what, Fig([found], "pushes"),
                     target="= accepted", ok=found == accepted,
                     note="%d unanswered pushes (given up), %d of them "
                     "stored" % (len(c["unacked"]), check[6])))
        self.add(Row("crash", "crash.lost",
                     "crash: accepted pushes lost, " + what,
                     Fig([lost], "pushes"), target="0", ok=lost == 0,
                     note="and %d found under another id or hash" % wrong
                     if wrong else ""))
        self.add(Row("crash", "crash.duplicates",
                     "crash: accepted pushes stored more than once, " +
                     what, Fig([dups], "pushes"),
                     target="0", ok=dups == 0))
        self.add(Row("crash", "crash.integrity",
                     "crash: PRAGMA integrity_check after the kills",
                     integrity, target="ok",
                     ok=integrity == "ok"))
        if self.smoke and (lost or dups or wrong or integrity != "ok" or
                           not accepted or found != accepted):
            raise CaseError("crash: %d accepted, %d found, %d lost, %d "
                            "duplicates, %d wrong, integrity %s" % (
                                accepted, found, lost, dups, wrong,
                                integrity))

    @staticmethod
    def crash_check(db, c):
        """(accepted, found, duplicates, lost, wrong, integrity, unacked
        stored) of the store after the crash case, read with profd
        stopped."""
        con = sqlite3.connect(db)
        try:
            integrity = "; ".join(r[0] for r in con.execute(
                "PRAGMA integrity_check"))
            rows = con.execute(
                "SELECT s.name, p.name, p.id, lower(hex(p.hash)) FROM "
                "profile p JOIN scope s ON s.id = p.scope_id").fetchall()
        finally:
            con.close()
        stored = {}
        for scope, name, pid, sha in rows:
            stored.setdefault((scope, name), []).append((pid, sha))
        found = dups = lost = wrong = 0
        for name, scope, pid, sha, _ in c["accepted"]:
            got = stored.get((scope, name), [])
            if not got:
                lost += 1
            elif len(got) > 1:
                dups += 1
            elif got[0] != (pid, sha):
                wrong += 1
            else:
                found += 1
        unacked = sum(1 for name, scope, _ in c["unacked"]
                      if (scope, name) in stored)
        return (len(c["accepted"]), found, dups, lost, wrong, integrity,
                unacked)

    # -- perf: where profd's import time goes

    def perf_push(self, path, tag, seconds):
        d = Daemon(self, "perf-" + tag).start()
        data = os.path.join(self.a.perf_dir, tag + ".data")
        perf = subprocess.Popen(
            ["perf", "record", "-g", "-p", str(d.proc.pid), "-o", data],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        try:
            d.push([path], tag, timeout=seconds)
        except Timeout:
            pass
        finally:
            perf.send_signal(signal.SIGINT)
            perf.wait()
            d.remove()
        with open(os.path.join(self.a.perf_dir, tag + ".txt"), "w") as f:
            for sort in ("dso", "dso,sym"):
                f.write("### perf report --no-children --sort %s\n" % sort)
                f.flush()
                subprocess.run(
                    ["perf", "report", "-i", data, "--stdio",
                     "--no-children", "-g", "none", "--percent-limit", "0.5",
                     "--sort", sort], stdout=f, stderr=subprocess.DEVNULL)
        log("perf: %s" % os.path.join(self.a.perf_dir, tag + ".txt"))

    # -- the browser UI: first paint of a flame graph (issue 15)

    def ui_playwright(self):
        """The directory holding node_modules/playwright-core: PLAYWRIGHT_DIR,
        else WORK/../node, installed there by npm when missing."""
        d = os.environ.get("PLAYWRIGHT_DIR") or os.path.join(
            os.path.dirname(self.work), "node")
        if not os.path.isdir(os.path.join(d, "node_modules",
                                          "playwright-core")):
            os.makedirs(d, exist_ok=True)
            run(["npm", "install", "--no-save", "--no-audit", "--no-fund",
                 "--prefix", d, "playwright-core"], timeout=600)
        return d

    def ui_merged(self, d, nodes):
        """Profiles of random stacks pushed to scope merged until its tree
        has about nodes nodes (tests/tools/genpprof.py); the tree's size."""
        tools = os.path.join(os.path.dirname(self.a.fixtures), "tools")
        have, seed = 0, 0
        while have < nodes and seed < 40:
            out = os.path.join(d.dir, "merged-%d.pb.gz" % seed)
            subprocess.run([sys.executable, os.path.join(tools, "genpprof.py"),
                            out, "--samples", "6000", "--functions", "60",
                            "--depth", "12", "--seed", str(seed + 1),
                            "--time", str(1700000000 + 60 * seed)],
                           check=True, env=dict(os.environ,
                                                PYTHONPATH=tools))
            d.push([out], "merged")
            seed += 1
            st, body = http_call(d.sock, "GET", "/v1/tree?scope=merged"
                                 "&source=false", timeout=120)
            if st != 200:
                raise CaseError("tree of merged: %d" % st)
            have = body.count(b'"name"')
        return have

    def case_ui(self):
        if not os.path.exists(self.large):
            raise CaseError("no " + self.large)
        chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        if not os.access(chromium, os.X_OK) or not shutil.which("node"):
            raise CaseError("needs chromium and node")
        pw = self.ui_playwright()
        d = Daemon(self, "ui", ["--no-config", "--spool", "none"]).start()
        web = None
        try:
            d.push([self.large], "large")
            merged = self.ui_merged(d, 3000 if self.smoke else 100000)
            sizes = {}
            for scope in ("large", "merged"):
                for q in ("", "&source=false"):
                    st, body = http_call(d.sock, "GET", "/v1/tree?scope=" +
                                         scope + q, timeout=120)
                    sizes[scope + q] = (len(body), len(zlib.compress(body, 6)))
                st, body = http_call(d.sock, "GET", "/v1/top?scope=" + scope,
                                     timeout=120)
                sizes[scope + " top"] = (len(body), len(zlib.compress(body, 6)))
            web = subprocess.Popen([self.profctl, "--socket", d.sock, "web"],
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)
            url = web.stdout.readline().decode().strip()
            if not url.startswith("http://"):
                raise CaseError("profctl web printed %r" % url)
            p = subprocess.run(
                ["node", os.path.join(os.path.dirname(__file__),
                                      "ui-paint.js"), url, str(self.runs),
                 "large", "merged"], capture_output=True, timeout=900,
                env=dict(os.environ, PLAYWRIGHT_DIR=pw, CHROMIUM=chromium))
            if p.returncode != 0:
                raise CaseError("ui-paint.js: " + p.stderr.decode()[-1000:])
            res = [json.loads(line) for line in p.stdout.decode().split("\n")
                   if line.startswith("{")]
        finally:
            if web is not None:
                web.terminate()
                web.wait()
            d.stop()
            d.remove()
        for r in res:
            sc = r["scope"]
            what = "the large CPU profile" if sc == "large" else \
                "a merged tree of random stacks"
            tot = Fig([x["total"] / 1e3 for x in r["runs"]], "s")
            part = lambda k: Fig([x[k] / 1e3 for x in r["runs"]], "s")
            self.add(Row("ui", "ui.paint." + sc, "flame graph first paint, "
                         "%s (%d nodes)" % (what, r["nodes"]), tot,
                         target="< 200 ms from data to pixels",
                         ok=None if self.smoke else tot.med < 0.2,
                         note="JSON.parse %s, layout %s, canvas drawn %s "
                         "(%d frames wide enough to draw at 1280 px); the "
                         "reply %s, fetched in %.0f ms through profctl web; "
                         "the page opened until drawn: %d ms" % (
                             part("parse"), part("layout"), part("draw"),
                             r["runs"][-1]["drawn"], mb(r["bytes"]),
                             r["fetch_ms"], r["page_ms"])))
            full, fz = sizes[sc]
            lean, lz = sizes[sc + "&source=false"]
            top, tz = sizes[sc + " top"]
            self.add(Row("ui", "ui.payload." + sc, "API payload, %s" % what,
                         Fig([full], "B", "tree "), note="GET /v1/tree %s "
                         "(gzip -6: %s), with source=false %s (%s); GET "
                         "/v1/top %s (%s)" % (mb(full), mb(fz), mb(lean),
                                              mb(lz), mb(top), mb(tz))))
        self.meta["ui.merged"] = merged

    def case_fleet_ship(self):
        fleetship.m = sys.modules[__name__]
        fleetship.case(self)

    def case_fleet_top(self):
        fleetship.m = fleettop.m = sys.modules[__name__]
        fleettop.case(self)

    def case_perf(self):
        os.makedirs(self.a.perf_dir, exist_ok=True)
        self.perf_push(self.large, "large", self.a.timeout)
        self.perf_push(self.heap, "heap", 60)
        self.perf_push(self.trace, "trace", 90)

    # -- the report

    def describe_inputs(self):
        lines = self.describe_generated() if self.generated else []
        if "ui.merged" in self.meta:
            lines.append("ui: the large CPU profile `cpu-large.pb.gz`; "
                         "merged: profiles of 6000 random stacks (depth "
                         "2-12 over 60 functions, tests/tools/genpprof.py) "
                         "pushed to one scope until its tree had %d nodes; "
                         "the page 1280 px wide" % self.meta["ui.merged"])
        return lines + self.meta.get("faults.inputs", []) + \
            self.meta.get("fleet.inputs", [])

    def describe_generated(self):
        large = self.memo.get("large")
        lines = []
        lines.append(
            "large CPU profile `cpu-large.pb.gz`: %s gzipped, %s inflated%s" % (
                mb(os.path.getsize(self.large)), mb(self.size(self.large)),
                ", %d samples stored, %d distinct stacks" % (
                    large["samples"], self.meta["large.stacks"])
                if large and self.meta.get("large.stacks") else ""))
        gz = [os.path.getsize(f) for f in self.series]
        lines.append(
            "series: %d CPU profiles of one continuing program, %s–%s "
            "gzipped (mean %s)%s" % (
                len(self.series), mb(min(gz)), mb(max(gz)),
                mb(statistics.mean(gz)),
                "".join(", %d distinct stacks in the first %d" % (
                    self.meta[k], int(k.split(".")[-1]))
                    for k in sorted(self.meta, key=lambda k: (len(k), k))
                    if k.startswith("series.stacks.") and self.meta[k])))
        heap = self.memo.get("heap")
        lines.append("heap profile `heap-big.pb.gz`: %s gzipped, %s "
                     "inflated%s" % (
                         mb(os.path.getsize(self.heap)),
                         mb(self.size(self.heap)),
                         ", %d samples stored" % heap["samples"]
                         if heap and heap["samples"] else ""))
        lines.append("Perfetto trace `trace.pftrace` (gen-trace): %s, %d "
                     "samples" % (mb(self.trace_bytes), self.trace_samples))
        if self.minutes:
            gz = [os.path.getsize(f) for f in self.minutes[:200]]
            t0 = profile_time(self.minutes[0]) // 10 ** 9
            t1 = profile_time(self.minutes[-1]) // 10 ** 9
            try:
                with open(os.path.join(self.a.inputs, "minutes",
                                       "STACKS")) as f:
                    stacks = f.read().strip()
            except OSError:
                stacks = None
            lines.append(
                "1-minute profiles (bench-gen -mode minutes): %d, a minute "
                "apart, %s to %s UTC (the week: the last %d), each a CPU "
                "profile of ~1500 samples at 100 Hz, %s–%s gzipped (mean "
                "%s, of the first 200), ~900 distinct stacks each%s" % (
                    len(self.minutes), utc(t0), utc(t1), self.a.week,
                    mb(min(gz)), mb(max(gz)), mb(statistics.mean(gz)),
                    " (the generator's count: %s)" % stacks
                    if stacks else ""))
        if self.minutes_real:
            gz = [os.path.getsize(f) for f in self.real]
            t0 = profile_time(self.minutes_real[0]) // 10 ** 9
            t1 = profile_time(self.minutes_real[-1]) // 10 ** 9
            lines.append(
                "real 1-minute profiles (week-real, month-real): %d, a "
                "minute apart, %s to %s UTC, the %d CPU profiles of `real/` "
                "(bench-gen -mode series, 5 s slices in a full run: %s–%s "
                "gzipped, mean "
                "%s) replayed cyclically, time_nanos and duration_nanos "
                "rewritten (bench-gen -mode retime -in DIR)" % (
                    len(self.minutes_real), utc(t0), utc(t1), len(self.real),
                    mb(min(gz)), mb(max(gz)), mb(statistics.mean(gz))))
        if self.repeat:
            lines.append(
                "repeated profile (bench-gen -mode retime): %d copies of "
                "series/%s, %s gzipped, a minute apart" % (
                    len(self.repeat), self.repeat_source,
                    mb(os.path.getsize(self.repeat[0]))))
        st = self.memo.get("series")
        if st:
            for n, (secs, k) in sorted(st["push"].items()):
                lines.append("pushing series profiles %d–%d: %.2f s, %.1f ms "
                             "per profile" % (n - k + 1, n, secs,
                                              secs / k * 1e3))
        return lines


def machine(h):
    def first(path, key):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(key):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return "?"

    def cmd(*c):
        try:
            return subprocess.run(c, capture_output=True, text=True,
                                   check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "?"
    try:
        with open("/etc/debian_version") as f:
            debian = f.read().strip()
    except OSError:
        debian = "?"
    mem = first("/proc/meminfo", "MemTotal")
    ram = "%.1f GiB" % (int(mem.split()[0]) / MIB) if mem != "?" else "?"
    return [
        ("CPUs (nproc)", str(len(os.sched_getaffinity(0)))),
        ("CPU", first("/proc/cpuinfo", "model name")),
        ("RAM", ram),
        ("kernel", os.uname().release),
        ("Debian", debian),
        ("Go", cmd("go", "version").replace("go version ", "")),
        ("SQLite", h.sqlite_version),
        ("C compiler", cmd("cc", "--version").split("\n")[0]),
    ]


def sqlite_version(h):
    d = Daemon(h, "version").start()
    try:
        return d.query("SELECT sqlite_version()")[0][0]
    finally:
        d.remove()


def fd_limit(pid):
    """The soft limit of open files of a process, as /proc shows it."""
    try:
        with open("/proc/%d/limits" % pid) as f:
            for line in f:
                if line.startswith("Max open files"):
                    return line.split()[3]
    except OSError:
        pass
    return "?"


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def busy(seconds=1.0):
    """What else used the CPUs for a second (the machine may be shared):
    "cc1 ×2 85 %, ld 20 %", the commands with the most CPU time."""
    def ticks():
        t = {}
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % pid) as f:
                    st = f.read()
            except OSError:
                continue
            comm = st[st.index("(") + 1:st.rindex(")")]
            f = st[st.rindex(")") + 2:].split()
            t[pid] = (comm, int(f[11]) + int(f[12]))
        return t
    a = ticks()
    time.sleep(seconds)
    b = ticks()
    hz = os.sysconf("SC_CLK_TCK")
    by = {}
    for pid, (comm, t) in b.items():
        d = t - a.get(pid, (comm, 0))[1]
        if d > 0:
            n, total = by.get(comm, (0, 0))
            by[comm] = (n + 1, total + d)
    top = sorted(by.items(), key=lambda kv: -kv[1][1])[:5]
    return ", ".join("%s%s %.0f %%" % (c, " ×%d" % n if n > 1 else "",
                                         d / hz / seconds * 100)
                     for c, (n, d) in top
                     if d / hz / seconds >= 0.05) or "nothing"


def write_report(h, a, started, load0, cases, busy0):
    load1 = loadavg()
    busy1 = busy()
    mode = "smoke run (tiny inputs, targets not checked)" if a.smoke else \
        "full run" if set(cases) == set(CASES) else \
        "partial run (%s)" % ", ".join(cases)
    md = []
    md.append("# profd benchmark results")
    md.append("")
    runs = "; %s per figure%s, figures are the median (min–max)" % (
        "1 run" if a.runs == 1 else "%d runs" % a.runs,
        " (imports of the %s trace: %d)" % (mb(h.trace_bytes), a.trace_runs)
        if h.generated else "")
    if not set(cases) - set(FAULT_CASES):
        runs = "; load and faults: one run each"
    md.append("`bench/run%s`: %s, %s UTC, profd %s%s." % (
        " --smoke" if a.smoke else "", mode,
        started.strftime("%Y-%m-%d %H:%M"), a.revision, runs))
    md.append("")
    md.append("| machine | |")
    md.append("|---|---|")
    for k, v in machine(h):
        md.append("| %s | %s |" % (k, v))
    md.append("| load average (1, 5, 15 min) | %s at the start, %s at the "
              "end |" % (load0, load1))
    md.append("| busiest commands over 1 s (of all CPUs) | %s at the start; "
              "%s at the end |" % (busy0, busy1))
    md.append("")
    md.append("| case | profd | go tool pprof | ratio | target | result |")
    md.append("|---|---|---|---|---|---|")
    for r in h.rows:
        md.append("| %s | %s | %s | %s | %s | %s |" % (
            r.name, r.profd, r.pprof, r.ratio, r.target, r.result(a.smoke)))
    for c, e in h.failed:
        md.append("| %s | ERROR: %s | | | | **MISS** |" % (
            c, e.replace("|", "/").replace("\n", " ")[:300]))
    md.append("")
    notes = [r for r in h.rows if r.note]
    if notes:
        md.append("Row notes:")
        md.append("")
        for r in notes:
            md.append("- %s: %s" % (r.name, r.note))
        md.append("")
    md.append("Inputs:")
    md.append("")
    for line in h.describe_inputs():
        md.append("- " + line)
    md.append("")
    if set(cases) - set(FAULT_CASES):
        md.append(
            "profd times are whole `profctl` processes (`push` returns once "
            "the import committed); pprof is `%s` (the binary `go tool "
            "pprof` runs, without the go command's own start-up), "
            "`-symbolize=none`, output discarded; `tree` is compared with "
            "`-tree`.  Queries get one untimed warm-up run each.  Peak RSS "
            "is profd's VmHWM; pprof's is wait4's maximum RSS." % a.pprof)
    if set(cases) & set(FAULT_CASES):
        fp = h.fault_params()
        if md[-1]:
            md.append("")
        md.append(
            "load, trickle and crash (bench/faults.py): a profd of their "
            "own (`--no-config --spool none`); %d clients are threads in %d "
            "python processes, each request on a new connection, half of "
            "them pushes, the rest `top`, `tree`, `timeline` and a SQL "
            "query, evenly; a failed request is a connection error, a "
            "timeout (30 s) or any status but 200/201.  Health is probed "
            "from a process of its own, GET /v1/health every 10 ms on a new "
            "connection; profd's RSS peak is its VmHWM.  trickle opens %d "
            "connections that send a request head one byte a second, "
            "never ending it, for %d s.  crash kills profd with SIGKILL %d "
            "times at random moments (%g–%g s apart) under the load and "
            "starts it again on the same store; a client sends a push cut "
            "by a kill again, same bytes, until it is answered; then one "
            "last kill -9, a start, a SIGTERM, and the store is read with "
            "profd stopped: each 2xx push, by its scope and unique name, "
            "must be there once with the id and SHA-256 of its reply." % (
                fp["clients"], fp["procs"], fp["trickle"], fp["trickle_s"],
                fp["kills"], fp["kill_gap"][0], fp["kill_gap"][1]))
    text = "\n".join(md) + "\n"
    with open(a.results, "w") as f:
        f.write(text)
    with open(a.json, "w") as f:
        json.dump({"smoke": a.smoke, "cases": cases,
                   "rows": [r.json() for r in h.rows],
                   "errors": [{"case": c, "error": e} for c, e in h.failed],
                   "machine": dict(machine(h)),
                   "inputs": h.describe_inputs()}, f, indent=1)
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profd", required=True)
    ap.add_argument("--profctl", required=True)
    ap.add_argument("--pprof", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--trace-runs", type=int, default=1)
    ap.add_argument("--small", type=int, default=100)
    ap.add_argument("--week", type=int, default=10080)
    ap.add_argument("--budget", type=float, default=1200,
                    help="seconds to push a week's or month's profiles in")
    ap.add_argument("--only", default=",".join(CASES))
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--trace-timeout", type=float, default=1800)
    ap.add_argument("--perf-dir")
    ap.add_argument("--revision", default="?")
    a = ap.parse_args()

    cases = [c for c in a.only.split(",") if c]
    bad = [c for c in cases if c not in CASES + OPT_CASES]
    if bad:
        raise SystemExit("measure: unknown case %s (cases: %s, %s)" % (
            ", ".join(bad), ", ".join(CASES), ", ".join(OPT_CASES)))
    cases = [c for c in CASES + OPT_CASES if c in cases]
    if "perf" in cases and not a.perf_dir:
        raise SystemExit("measure: perf needs --perf-dir")
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    started = datetime.datetime.now(datetime.timezone.utc)
    load0 = loadavg()
    busy0 = busy()
    h = Harness(a)
    h.sqlite_version = sqlite_version(h)
    try:
        for c in cases:
            log("case %s" % c)
            try:
                if c not in OWN_INPUT_CASES and not h.generated:
                    raise CaseError("no generated inputs in " + a.inputs)
                getattr(h, "case_" + c.replace("-", "_"))()
            except (CaseError, Timeout, OSError) as e:
                log("case %s failed: %s" % (c, e))
                h.failed.append((c, str(e)))
    finally:
        st = h.memo.get("series")
        if st:
            st["d"].remove()
    text = write_report(h, a, started, load0,
                        [c for c in cases if c != "perf"], busy0)
    print(text)
    log("wrote %s" % a.results)
    return 1 if h.failed else 0


if __name__ == "__main__":
    sys.exit(main())
