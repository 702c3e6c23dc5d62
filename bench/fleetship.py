"""fleetship.py: bench/run's fleet-ship case (issue 16): how fast profd
ships a store of N profiles to ClickHouse, and what they take there.

A profd without a fleet stores the N 1-minute CPU profiles of
$inputs/fleet (bench/gen -mode minutes) and stops.  Each run copies that
store into a fresh profd started with --fleet-url at a clickhouse-server
of the bench's own (a user process on loopback ports, its data under the
scratch directory, as tests/integration/fleet-lib.sh starts it) and a
database of the run's own, and times from the start until /v1/status says
nothing is left to ship: profiles/s and sample rows/s.  Then the last
run's tables are merged (OPTIMIZE … FINAL, what ClickHouse does in the
background anyway) and system.parts gives their bytes on disk: per
profile (against the gzipped input and profd's store per profile) and per
sample row.
"""

import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

m = None  # measure.py, as it runs (__main__): set by it


# Nothing from the user's config file or spool directory.
NOCONF = ["--no-config", "--spool", "none"]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class ClickHouse:
    """A clickhouse-server of the bench's own; query_log: every query
    logged in system.query_log, flushed each second (bench/fleettop.py's
    before and after reads what each query read)."""

    def __init__(self, work, query_log=False):
        self.bin = shutil.which("clickhouse-server") or \
            "/usr/sbin/clickhouse-server"
        if not os.access(self.bin, os.X_OK):
            raise m.CaseError("clickhouse-server is not installed "
                              "(contrib/setup.sh)")
        self.dir = os.path.join(work, "clickhouse")
        shutil.rmtree(self.dir, ignore_errors=True)
        for d in ("data", "tmp", "user_files", "format_schemas"):
            os.makedirs(os.path.join(self.dir, d))
        self.http, tcp = free_port(), free_port()
        self.url = "http://127.0.0.1:%d" % self.http
        d = self.dir
        with open(os.path.join(d, "config.xml"), "w") as f:
            f.write("""<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>%(d)s/server.log</log>
    <errorlog>%(d)s/error.log</errorlog><size>10M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>%(http)d</http_port>
  <tcp_port>%(tcp)d</tcp_port>
  <path>%(d)s/data/</path>
  <tmp_path>%(d)s/tmp/</tmp_path>
  <user_files_path>%(d)s/user_files/</user_files_path>
  <format_schema_path>%(d)s/format_schemas/</format_schema_path>
  <users_config>%(d)s/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>5368709</mark_cache_size>
  <max_concurrent_queries>20</max_concurrent_queries>
%(qlog)s</yandex>
""" % {"d": d, "http": self.http, "tcp": tcp, "qlog": (
                "  <query_log><database>system</database><table>query_log"
                "</table><flush_interval_milliseconds>1000"
                "</flush_interval_milliseconds></query_log>\n"
                if query_log else "")})
        with open(os.path.join(d, "users.xml"), "w") as f:
            f.write("""<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>1000000000</max_memory_usage>%s</default></profiles>
  <users><default><password></password>
    <networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
""" % ("<log_queries>1</log_queries>" if query_log else ""))
        self.proc = None

    def start(self):
        out = open(os.path.join(self.dir, "stdout.log"), "ab")
        self.proc = subprocess.Popen(
            [self.bin, "--config-file=" + os.path.join(self.dir,
                                                       "config.xml")],
            stdout=out, stderr=subprocess.STDOUT)
        out.close()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise m.CaseError("clickhouse-server exited at start")
            try:
                if self.sql("SELECT 1") == "1":
                    return self
            except (OSError, m.CaseError):
                pass
            time.sleep(0.2)
        raise m.CaseError("clickhouse-server did not answer")

    def sql(self, q, settings=None):
        """q's answer; settings: ClickHouse settings for this query
        alone, as the HTTP interface takes them (URL parameters)."""
        url = self.url + "/"
        if settings:
            url += "?" + urllib.parse.urlencode(settings)
        req = urllib.request.Request(url, data=q.encode())
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                return r.read().decode().strip()
        except urllib.error.HTTPError as e:
            raise m.CaseError("ClickHouse: %s: %s" % (
                q[:80], e.read().decode(errors="replace")[:300]))

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)


def cpu_seconds(pid):
    """User and system CPU time of a process so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fleet_status(d):
    st, body = m.http_call(d.sock, "GET", "/v1/status")
    if st != 200:
        raise m.CaseError("/v1/status: %d" % st)
    return json.loads(body)["fleet"]


def ship_run(h, store, ch, i, n, batch):
    """One profd shipping a copy of store: (seconds, sample rows, the
    database, profd's CPU seconds, ClickHouse's CPU seconds meanwhile)."""
    db = "bench_%d" % i
    d = m.Daemon(h, "fleet-ship-%d" % i, NOCONF + [
        "--fleet-url", ch.url, "--fleet-host", "bench", "--fleet-database",
        db, "--fleet-batch", str(batch), "--fleet-interval", "1"])
    shutil.copyfile(store, d.db)
    ch0 = cpu_seconds(ch.proc.pid)
    t0 = time.monotonic()
    d.start()
    try:
        deadline = t0 + h.a.timeout
        while True:
            fl = fleet_status(d)
            if fl["lag_profiles"] == 0 and fl["shipped_profiles"] == n:
                secs = time.monotonic() - t0
                ch_cpu = cpu_seconds(ch.proc.pid) - ch0
                cpu = cpu_seconds(d.proc.pid)
                break
            if time.monotonic() > deadline:
                raise m.Timeout("fleet-ship: %s of %d shipped after %g s; "
                                "last error %s" % (fl["shipped_profiles"], n,
                                                   h.a.timeout,
                                                   fl["last_error"]))
            time.sleep(0.02)
        rows = fl["shipped_rows"]
        if fl["failures"] != 0:
            raise m.CaseError("fleet-ship: %d failures: %s" % (
                fl["failures"], fl["last_error"]))
        d.stop()
    finally:
        d.remove()
    got = ch.sql("SELECT count() FROM %s.profiles FINAL" % db)
    if got != str(n):
        raise m.CaseError("fleet-ship: %s profiles in ClickHouse, not %d" % (
            got, n))
    if ch.sql("SELECT count() FROM %s.samples" % db) != str(rows):
        raise m.CaseError("fleet-ship: sample rows differ from shipped_rows")
    return secs, rows, db, cpu, ch_cpu


def parts(ch, db):
    """{table: (bytes on disk, rows, parts)} of the active parts."""
    out = {}
    for line in ch.sql(
            "SELECT table, sum(bytes_on_disk), sum(rows), count() FROM "
            "system.parts WHERE database = '%s' AND active GROUP BY table "
            "FORMAT TabSeparated" % db).splitlines():
        t, b, r, p = line.split("\t")
        out[t] = (int(b), int(r), int(p))
    return out


def case(h):
    files = h.listing(os.path.join(h.a.inputs, "fleet"))
    if not files:
        raise m.CaseError("no profiles in %s/fleet" % h.a.inputs)
    n, batch = len(files), 100
    src = m.Daemon(h, "fleet-store", NOCONF)
    src.start()
    try:
        _, samples = src.push(files, "fleet", timeout=h.a.timeout)
        stacks = src.stacks("fleet")
        src.stop()
        store_bytes = src.used_bytes()
        store = os.path.join(h.work, "fleet-store.db")
        shutil.copyfile(src.db, store)
    finally:
        src.remove()
    gz = statistics.mean(os.path.getsize(f) for f in files)
    ch = ClickHouse(h.work).start()
    try:
        secs, rows, cpu, ch_cpu = [], 0, [], []
        for i in range(h.runs):
            s, rows, db, c, cc = ship_run(h, store, ch, i, n, batch)
            secs.append(s)
            cpu.append(c / n)
            ch_cpu.append(cc / n)
            m.log("fleet-ship run %d: %d profiles, %d rows in %.2f s, "
                  "CPU profd %.1f s, ClickHouse %.1f s" % (
                      i + 1, n, rows, s, c, cc))
            if i + 1 < h.runs:
                ch.sql("DROP DATABASE %s" % db)
        before = parts(ch, db)
        for t in ("samples", "stacks", "profiles"):
            ch.sql("OPTIMIZE TABLE %s.%s FINAL" % (db, t))
        after = parts(ch, db)
        version = ch.sql("SELECT version()")
    finally:
        ch.stop()
        os.unlink(store)
    total = sum(b for b, _, _ in after.values())
    unmerged = sum(b for b, _, _ in before.values())
    smp, stk, prf = (after.get(t, (0, 0, 0)) for t in
                     ("samples", "stacks", "profiles"))
    per_profile = total / n
    per_row = smp[0] / max(rows, 1)
    h.meta["fleet.ship"] = {
        "profiles": n, "rows": rows, "samples": samples, "stacks": stacks,
        "gz": gz, "store_per_profile": store_bytes / n,
        "ch_bytes": total, "ch_unmerged": unmerged,
        "tables": after, "seconds": secs, "version": version}
    h.add(m.Row("fleet-ship", "fleet-ship.profiles",
                "fleet-ship: %d profiles to ClickHouse" % n,
                m.Fig([n / s for s in secs], "/s"),
                note="profiles shipped a second, from profd's start to "
                     "/v1/status lag 0 (batches of %d; ClickHouse %s on the "
                     "same machine)" % (batch, version)))
    h.add(m.Row("fleet-ship", "fleet-ship.rows",
                "fleet-ship: sample rows to ClickHouse",
                m.Fig([rows / s for s in secs], "samples/s"),
                note="%d rows in samples (one per profile, metric, stack "
                     "and label set) for the %d samples profd stored" % (
                         rows, samples)))
    h.add(m.Row("fleet-ship", "fleet-ship.cpu",
                "fleet-ship: CPU per profile shipped",
                m.Fig(cpu, "s"), m.Fig(ch_cpu, "s", "ClickHouse "),
                note="profd's user+system time over the run (its start "
                     "included) and clickhouse-server's meanwhile (its "
                     "merges included), over the profiles: what the rates "
                     "cost on a machine of its own"))
    h.add(m.Row("fleet-ship", "fleet-ship.bytes",
                "fleet-ship: ClickHouse bytes per profile",
                m.Fig([per_profile], "B"), m.Fig([gz], "B", "gzipped file "),
                "%.0f %% of the gzipped size; profd's store %s" % (
                    per_profile / gz * 100, m.mb(store_bytes / n)),
                note="system.parts bytes_on_disk of samples, stacks and "
                     "profiles after OPTIMIZE FINAL over %d profiles: "
                     "samples %s, stacks %s (%d rows), profiles %s; %s "
                     "before the merge" % (
                         n, m.mb(smp[0]), m.mb(stk[0]), stk[1],
                         m.mb(prf[0]), m.mb(unmerged))))
    h.add(m.Row("fleet-ship", "fleet-ship.row-bytes",
                "fleet-ship: ClickHouse bytes per sample row",
                m.Fig([round(per_row, 2)], "bytes"),
                note="samples' bytes on disk over its %d rows" % rows))
    t0 = m.profile_time(files[0]) // 10 ** 9
    h.meta["fleet.inputs"] = [
        "fleet-ship: %d 1-minute CPU profiles (bench/gen -mode minutes, "
        "from %s), mean %s gzipped, %d samples stored, %s distinct stacks" % (
            n, m.utc(t0), m.mb(gz), samples, stacks)]
