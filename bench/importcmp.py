#!/usr/bin/env python3
"""importcmp.py FILE ROUNDS NAME=BUILDDIR...: issue 29 item 3.  Each round
times `gzip -dc FILE`, then imports FILE (profctl push, end to end) into a
fresh profd of each build, then gzip -dc again: the import speed as a
share of gzip -dc's (the mean of the two around it over the import's
time), medians per build, profd's CPU time (utime + stime) and peak RSS,
and gzip -dc's CPU time over profd's (on a loaded machine both wall times
are mostly waiting: the CPU share is the one that compares work).
Builds interleaved in one run, so a loaded machine loads them alike.
"""
import os, resource, shutil, signal, statistics, subprocess, sys, time, socket

def wait_sock(sock, proc):
    for _ in range(1500):
        if proc.poll() is not None:
            raise SystemExit("profd exited")
        if os.path.exists(sock):
            try:
                s = socket.socket(socket.AF_UNIX); s.connect(sock); s.close()
                return
            except OSError:
                pass
        time.sleep(0.02)
    raise SystemExit("no socket")

def hwm(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0

def one_import(build, path, work, extra):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    sock, db = work + "/s", work + "/db"
    log = open(work + "/log", "wb")
    # Never the machine's own config and spool (an installed package's).
    p = subprocess.Popen([build + "/profd", "--foreground", "--no-config",
                          "--spool", "none", "--socket", sock,
                          "--db", db] + extra, stdout=log, stderr=log)
    try:
        wait_sock(sock, p)
        t0 = time.perf_counter()
        out = subprocess.run([build + "/profctl", "--socket", sock, "push",
                              path, "--scope", "x"], capture_output=True,
                             text=True)
        t = time.perf_counter() - t0
        if out.returncode != 0:
            raise SystemExit("push failed: " + out.stderr + out.stdout)
        rss = hwm(p.pid)
        with open("/proc/%d/stat" % p.pid) as f:
            st = f.read().rsplit(")", 1)[1].split()
        cpu = (int(st[11]) + int(st[12])) / os.sysconf("SC_CLK_TCK")
        return t, rss, out.stdout.strip(), cpu
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(120)
        log.close()

def gz(path):
    if open(path, "rb").read(2) != b"\x1f\x8b":
        return 0.0
    t0 = time.perf_counter()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["gzip", "-dc", path], stdout=subprocess.DEVNULL,
                   check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    gzcpu.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
    return time.perf_counter() - t0

# gzip -dc's CPU time per run: on a loaded machine its wall time is
# mostly waiting, and so is the import's; the CPU shares compare work.
gzcpu = []

def main():
    path, rounds = sys.argv[1], int(sys.argv[2])
    builds = [a.split("=", 1) for a in sys.argv[3:]]
    extra = os.environ.get("PROFD_EXTRA", "").split()
    res = {n: [] for n, _ in builds}
    rss = {n: [] for n, _ in builds}
    g = []
    ratios = {n: [] for n, _ in builds}
    cpus = {n: [] for n, _ in builds}
    for r in range(rounds):
        gt = gz(path)
        g.append(gt)
        for n, b in builds:
            # IMPORTCMP_WORK: where the profds' stores go (bench/issue41)
            t, m, out, c = one_import(b, path, os.path.join(os.environ.get(
                "IMPORTCMP_WORK", "/tmp/h-import-cmp"), n), extra)
            cpus[n].append(c)
            res[n].append(t)
            rss[n].append(m)
            ratios[n].append(gt / t)
            if r == 0:
                print(n, out, file=sys.stderr)
        gt2 = gz(path)
        g.append(gt2)
        for n, _ in builds:
            ratios[n][-1] = ((gt + gt2) / 2) / res[n][-1]
    med = statistics.median
    print("gzip -dc: median %.3f s (min %.3f)" % (med(g), min(g)))
    for n, _ in builds:
        print("%-8s median %.3f s (min %.3f max %.3f)  gzip/import %.1f %% "
              "(per-round median; min %.1f max %.1f)  rss %.1f MiB" % (
                  n, med(res[n]), min(res[n]), max(res[n]),
                  100 * med(ratios[n]), 100 * min(ratios[n]),
                  100 * max(ratios[n]), max(rss[n])))
        print("         cpu median %.2f s (min %.2f)" % (med(cpus[n]),
                                                     min(cpus[n])))
        if gzcpu:
            print("         gzip -dc cpu / profd cpu %.1f %% (medians; "
                  "gzip -dc cpu %.3f s)" % (
                      100 * med(gzcpu) / med(cpus[n]), med(gzcpu)))

main()
