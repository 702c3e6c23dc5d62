#!/usr/bin/env python3
"""faults.py: the load and fault cases of bench/run (load, trickle, crash).

measure.py runs the cases; the processes that make the load are this
file's workers, started as `python3 faults.py WORKER JSON` so that each
has an interpreter (and a GIL) of its own and the health prober's
figures are not those of 50 client threads waiting for one lock:

  clients  THREADS threads, each a client looping until the stop file
           appears: push a blob (new bytes each time) or ask top, tree,
           timeline or a SQL query, each on a new connection as curl and
           profctl make them.  With "retry" (the crash case) a push cut by
           a dead profd is sent again, same bytes, until it gets a reply.
  probe    GET /v1/health every 10 ms on a new connection, timed, and
           profd's RSS and open files sampled.
  trickle  N connections that send a request head one byte at a time and
           never finish it (slowloris).

Each prints one JSON object on stdout when it ends.  Standard library
only.
"""
import gzip
import hashlib
import http.client
import json
import os
import random
import resource
import selectors
import socket
import struct
import sys
import threading
import time

# Scopes of the load and what is pushed to them: the pprof fixtures, and
# folded stacks generated here (make_folded).  One format per scope, so a
# scope's default metric is the same whichever profile is newest.
FIXTURES = ("cpu", "heap", "mutex", "block")


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.unix_path)
        self.sock = s


def call(sock, method, path, body=None, timeout=30):
    c = UnixHTTPConnection(sock, timeout)
    try:
        c.request(method, path, body=body)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


# Errors that mean "no profd there" or "profd went away mid-request": in
# the crash case, expected while it is down.
CUT = (ConnectionError, FileNotFoundError, http.client.RemoteDisconnected,
       http.client.IncompleteRead, http.client.BadStatusLine)


def make_folded(path, stacks, seed):
    """A folded-stacks profile of `stacks` distinct stacks, 4–30 frames
    deep from 400 function names, fixed by seed."""
    rnd = random.Random(seed)
    names = ["pkg%d.fn%d" % (i % 17, i) for i in range(400)]
    lines = set()
    while len(lines) < stacks:
        depth = rnd.randint(4, 30)
        lines.add(";".join(rnd.choice(names) for _ in range(depth)))
    with open(path, "w") as f:
        for s in sorted(lines):
            f.write("%s %d\n" % (s, rnd.randint(1, 500)))


def templates(fixtures, work):
    """[[scope, path]]: what the clients push, each gzipped with a zero
    mtime into work (the fixtures, and folded stacks made here)."""
    out = []
    for k in FIXTURES:
        with open(os.path.join(fixtures, k + ".pprof"), "rb") as f:
            b = f.read()
        out.append(("load-" + k, k + ".pprof.gz", b))
    for i, n in enumerate((50, 500, 2000)):
        p = os.path.join(work, "folded-%d.txt" % n)
        make_folded(p, n, i)
        with open(p, "rb") as f:
            out.append(("load-folded", "folded-%d.txt.gz" % n, f.read()))
    paths = []
    for scope, name, b in out:
        if b[:2] != b"\x1f\x8b":
            b = gzip.compress(b, mtime=0)
        path = os.path.join(work, name)
        with open(path, "wb") as f:
            f.write(b)
        paths.append([scope, path])
    return paths


def unique(blob, uid):
    """blob, gzipped, with uid as its header's mtime: new bytes (profd
    refuses the same bytes twice in a scope as a duplicate), the same
    profile.  The CRC covers the inflated data only."""
    return blob[:4] + struct.pack("<I", uid) + blob[8:]


def mark_ready(cfg):
    """Says, by a file, that this worker has had its first answers (a push
    and a query, or a health probe): the caller starts its window then,
    not at a time that a loaded machine may not have reached."""
    if cfg.get("ready") and not os.path.exists(cfg["ready"]):
        with open(cfg["ready"], "w"):
            pass


# ---------------------------------------------------------------------------
# clients

class Client:
    def __init__(self, cfg, n, out, lock):
        self.cfg, self.n, self.out, self.lock = cfg, n, out, lock
        self.sock = cfg["sock"]
        self.rnd = random.Random(cfg["seed"] * 1000 + n)
        self.tpl = cfg["templates"]
        self.seq = 0

    def note(self, op, ok, secs=None, fail=None):
        with self.lock:
            o = self.out["ops"].setdefault(op, {"n": 0, "ok": 0, "lat": []})
            o["n"] += 1
            if ok:
                o["ok"] += 1
                o["lat"].append(secs)
                ops = self.out["ops"]
                if ops.get("push", {}).get("ok") and any(
                        o["ok"] for k, o in ops.items() if k != "push"):
                    mark_ready(self.cfg)
            if fail:
                f = self.out["fail"]
                f[fail[0]] = f.get(fail[0], 0) + 1
                if len(self.out["examples"]) < 20:
                    self.out["examples"].append("%s: %s" % (op, fail[1]))

    def stopped(self):
        return os.path.exists(self.cfg["stop"])

    def push(self):
        scope, blob = self.tpl[self.rnd.randrange(len(self.tpl))]
        cid = self.cfg["first_client"] + self.n
        self.seq += 1
        uid = 1 + cid * 100000 + self.seq
        name = "c%d-%d" % (cid, self.seq)
        body = unique(blob, uid)
        sha = hashlib.sha256(body).hexdigest()
        path = "/v1/profiles?scope=%s&name=%s" % (scope, name)
        retry_until = None
        while True:
            t0 = time.perf_counter()
            try:
                st, rb = call(self.sock, "POST", path, body)
            except CUT as e:
                if not self.cfg["retry"]:
                    self.note("push", False, fail=(type(e).__name__, e))
                    return
                # Sent again, same bytes, until profd answers: if the
                # cut push was committed the answer is a duplicate of it.
                with self.lock:
                    self.out["cut"] += 1
                if retry_until is None and self.stopped():
                    retry_until = time.monotonic() + 30
                if retry_until and time.monotonic() > retry_until:
                    self.out["unacked"].append([name, scope, sha])
                    return
                time.sleep(0.05)
                continue
            except OSError as e:  # a timeout
                self.note("push", False, fail=(type(e).__name__, e))
                self.out["unacked"].append([name, scope, sha])
                return
            secs = time.perf_counter() - t0
            if st in (200, 201):
                r = json.loads(rb)
                self.note("push", True, secs)
                with self.lock:
                    self.out["accepted"].append(
                        [name, scope, r["profile_id"], sha,
                         bool(r.get("duplicate"))])
            else:
                self.note("push", False, fail=(
                    "HTTP %d" % st, rb[:200].decode(errors="replace")))
                self.out["unacked"].append([name, scope, sha])
            return

    def query(self):
        scope = self.tpl[self.rnd.randrange(len(self.tpl))][0]
        op = self.rnd.choice(("top", "tree", "timeline", "query"))
        if op == "query":
            args = ("POST", "/v1/query?timeout_ms=10000",
                    ("SELECT count(*), sum(samples) FROM profiles WHERE "
                     "scope = '%s'" % scope).encode())
        else:
            q = "&limit=20" if op == "top" else ""
            args = ("GET", "/v1/%s?scope=%s%s" % (op, scope, q), None)
        t0 = time.perf_counter()
        try:
            st, rb = call(self.sock, *args)
        except CUT as e:
            if self.cfg["retry"]:
                with self.lock:
                    self.out["cut"] += 1
                time.sleep(0.05)
            else:
                self.note(op, False, fail=(type(e).__name__, e))
            return
        except OSError as e:
            self.note(op, False, fail=(type(e).__name__, e))
            return
        if st == 200:
            self.note(op, True, time.perf_counter() - t0)
        else:
            self.note(op, False, fail=(
                "HTTP %d" % st, rb[:200].decode(errors="replace")))

    def loop(self):
        while not self.stopped():
            if self.rnd.random() < self.cfg["push_share"]:
                self.push()
            else:
                self.query()


def w_clients(cfg):
    tpl = []
    for scope, path in cfg["templates"]:
        with open(path, "rb") as f:
            tpl.append((scope, f.read()))
    cfg["templates"] = tpl
    out = {"ops": {}, "fail": {}, "examples": [], "accepted": [],
           "unacked": [], "cut": 0}
    lock = threading.Lock()
    ts = [threading.Thread(target=Client(cfg, i, out, lock).loop)
          for i in range(cfg["threads"])]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out


# ---------------------------------------------------------------------------
# probe

def proc_figures(pid):
    """(VmRSS KiB, open files) of pid, or None when it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            rss = next(int(l.split()[1]) for l in f
                       if l.startswith("VmRSS:"))
        return rss, len(os.listdir("/proc/%d/fd" % pid))
    except (OSError, StopIteration):
        return None


def w_probe(cfg):
    lat, fail, examples = [], 0, []
    rss_max = fds_max = 0
    next_proc = 0
    while not os.path.exists(cfg["stop"]):
        t0 = time.perf_counter()
        try:
            st, body = call(cfg["sock"], "GET", "/v1/health",
                            timeout=cfg.get("timeout", 10))
            if st != 200:
                raise OSError("HTTP %d %s" % (st, body[:100]))
            lat.append(time.perf_counter() - t0)
            mark_ready(cfg)
        except (OSError, http.client.HTTPException) as e:
            fail += 1
            if len(examples) < 10:
                examples.append("%s: %s" % (type(e).__name__, e))
        now = time.monotonic()
        if cfg.get("pid") and now >= next_proc:
            f = proc_figures(cfg["pid"])
            if f:
                rss_max, fds_max = max(rss_max, f[0]), max(fds_max, f[1])
            next_proc = now + 0.5
        time.sleep(0.01)
    return {"lat": lat, "fail": fail, "examples": examples,
            "rss_max_kib": rss_max, "fds_max": fds_max}


# ---------------------------------------------------------------------------
# trickle

def w_trickle(cfg):
    """cfg: sock, n, seconds, interval.  Opens n connections, then sends
    each one byte of a never-ending request head every interval s."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = cfg["n"] + 64
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    head = b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\n"
    line = b"X-Trickle: slow\r\n"
    sel = selectors.DefaultSelector()
    conns = {}
    res = {"opened": 0, "open_errors": {}, "closed_by_profd": 0,
           "close_after": [], "replies": {}, "bytes_sent": 0}
    t0 = time.monotonic()
    res["backlog_full"] = 0
    for i in range(cfg["n"]):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            # A Unix socket's connect does not wait for room in the
            # listen backlog: it fails with EAGAIN.  Tried again for 10 s,
            # as a client that wants in would.
            give_up = time.monotonic() + 10
            while True:
                try:
                    s.connect(cfg["sock"])
                    break
                except BlockingIOError:
                    res["backlog_full"] += 1
                    if time.monotonic() > give_up:
                        raise
                    time.sleep(0.01)
            s.sendall(head)
        except OSError as e:
            k = type(e).__name__
            res["open_errors"][k] = res["open_errors"].get(k, 0) + 1
            s.close()
            continue
        s.setblocking(False)
        conns[s] = {"sent": 0, "opened": time.monotonic()}
        sel.register(s, selectors.EVENT_READ)
        res["opened"] += 1
    res["ramp_s"] = time.monotonic() - t0
    # Tell the parent that the connections are open: the prober starts.
    with open(cfg["ready"], "w") as f:
        f.write("%d\n" % res["opened"])

    def gone(s, why):
        c = conns.pop(s)
        sel.unregister(s)
        s.close()
        res["closed_by_profd"] += 1
        res["close_after"].append(time.monotonic() - c["opened"])
        if why:
            res["replies"][why] = res["replies"].get(why, 0) + 1

    end = time.monotonic() + cfg["seconds"]
    next_tick = time.monotonic()
    while time.monotonic() < end:
        timeout = max(0, min(next_tick, end) - time.monotonic())
        for key, _ in sel.select(timeout):
            s = key.fileobj
            try:
                b = s.recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                b = b""
            if not b:
                gone(s, None)
            else:
                why = b.split(b"\r\n", 1)[0].decode(errors="replace")[:60]
                gone(s, why)
        if time.monotonic() >= next_tick:
            for s, c in list(conns.items()):
                try:
                    s.send(line[c["sent"] % len(line):][:1])
                    c["sent"] += 1
                    res["bytes_sent"] += 1
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    gone(s, None)
            next_tick += cfg["interval"]
    res["open_at_end"] = len(conns)
    for s in conns:
        s.close()
    return res


WORKERS = {"clients": w_clients, "probe": w_probe, "trickle": w_trickle}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in WORKERS:
        raise SystemExit("usage: faults.py clients|probe|trickle JSON")
    json.dump(WORKERS[sys.argv[1]](json.loads(sys.argv[2])), sys.stdout)
