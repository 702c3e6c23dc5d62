#!/usr/bin/env bash
# test_scrape_deltas.sh: allocs, mutex and block scraped as deltas (issue
# 27 step 3), from the real Go program of scrape-target/ (a steady
# allocation rate and a contended mutex), by a profd started detached as
# the README starts it:
#  - svc (a Go of today): ?seconds=N with N = interval - 1 s; its allocs,
#    mutex and block profiles have a duration and every metric is a delta;
#    heap, scraped beside allocs, keeps inuse_* (gauges) only and allocs
#    alloc_* only; over a window of 6 more of svc's scrapes the stored
#    alloc_space and mutex delay sum to what the service's own counters
#    say it did in the stretches those profiles cover (within 25 %), read
#    from two plain fetches the test makes around the window and go tool
#    pprof -raw;
#  - old (400 for ?seconds=N, as a server that cannot give deltas) and
#    older (seconds ignored, as a Go before 1.15): fetched plain from the
#    first answer on, no failure, their counters cumulative;
#  - POST /v1/profiles?keep=METRIC keeps those metrics, refuses bad ones.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scrape-lib.sh"

# 16 MB/s: net/http/pprof's own allocations (a MB or so a fetch, most of
# it outside the interval a delta covers) stay a small part, and so does
# the lag of the allocs counters (up to two GC cycles, a few MB each)
# beside what a window holds.
scrape_target SVC -burn=false -alloc-rate 16
scrape_target OLD -burn=false -alloc-rate 16 -seconds refuse
scrape_target OLDER -burn=false -alloc-rate 1 -seconds ignore

cat >"$T/defaults.conf" <<EOF
[scrape svc]
url = http://$SVC
profiles = heap allocs mutex block
interval = 4s

[scrape old]
url = http://$OLD
profiles = heap allocs mutex block
interval = 3s

[scrape older]
url = http://$OLDER
profiles = allocs mutex
interval = 3s
EOF
"$PROFD" --no-config --config "$T/defaults.conf" --print-config >"$T/printed.conf" ||
	fail "--print-config"
has -Fx "timeout = 13s" "$T/printed.conf" ||
	fail "the default timeout is not the delta's 3 s + 10 s: $(cat "$T/printed.conf")"
# Run with a timeout no fetch reaches (10 min, a bound against a hang):
# the checks below want no failure, and a starved service on a loaded
# machine may answer later than the default's 10 s past the delta.
sed 's/^interval = .*/&\ntimeout = 10m/' "$T/defaults.conf" >"$T/profd.conf"

# Detached: the command returns once the socket listens; its pid from
# the status, stopped by the cleanup too (lib.sh).
start_profd_detached --config "$T/profd.conf"

# rows SQL: the rows of POST /v1/query, one JSON array a line.
rows() {
	local r
	r=$(api POST /v1/query --data-binary "$1")
	[ "$(status_of "$r")" = 200 ] || fail "query $1: $r"
	body_of "$r" | python3 -c '
import json, sys
for row in json.load(sys.stdin)["rows"]:
    print(json.dumps(row))'
}
# newest SCOPE PROFILE: the time_ns of its newest profile of that kind, 0.
newest() {
	rows "SELECT coalesce(max(time_ns), 0) FROM profiles WHERE scope = '$1' AND name LIKE '%/$2%'" |
	    tr -d '[]'
}
fetched_all() {
	local s p
	for s in svc old; do
		for p in heap allocs mutex block; do
			[ "$(newest $s $p)" != 0 ] || return 1
		done
	done
	[ "$(newest older allocs)" != 0 ] && [ "$(newest older mutex)" != 0 ]
}
WAIT_S=300 wait_until "a profile of each kind from each target" fetched_all
ok "heap, allocs, mutex and block scraped from the three targets"

# The window: the service's own cumulative counters read at its start
# and end (plain fetches, as go tool pprof would), around what profd
# stored meanwhile.  Its end is not a time but what profd did: counted
# from /v1/status after the first readings (so of each kind at most the
# one in flight then began before them), svc's 6 more allocs and mutex
# deltas (5 or more whole in the window, the check below wants 3), old's
# 8 more allocs and steps for its timeline (below), and of every kind
# the profiles the checks below read.
stored() {
	api GET /v1/status | sed '$d' |
	    json "{t['name'] + ' ' + p['profile']: p['stored'] for t in j['scrape'] for p in t['profiles']}"
}
window_done() {
	stored >"$T/stored1.json"
	python3 - "$T/stored0.json" "$T/stored1.json" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
more = {"svc allocs": 6, "svc mutex": 6, "old allocs": 8}
least = {"svc block": 3, "old heap": 2, "old mutex": 2, "old block": 2,
         "older allocs": 2}
sys.exit(0 if all(b[k] - a[k] >= n for k, n in more.items()) and
         all(b[k] >= n for k, n in least.items()) else 1)
EOF
}
# old's timeline (the views below) in steps that each hold one of its
# allocs scrapes at least, whatever the machine: twice the longest gap
# between two of them (from the one before w0) rounded up to whole
# seconds, 6 s at least; the window long enough for two whole steps.
# Prints STEP FIRST LAST (the steps' span, seconds); fails until then.
cat >"$T/steps.py" <<'EOF'
import json, sys
w0 = int(sys.argv[1])
ts = sorted(json.loads(line)[0] for line in open(sys.argv[2]))
i = next((k for k, t in enumerate(ts) if t >= w0 * 10**9), len(ts))
ts = ts[max(i - 1, 0):]
if len(ts) < 2:
    sys.exit(1)
gap = max(b - a for a, b in zip(ts, ts[1:]))
step = max(6, 2 * (gap // 10**9 + 1))
first = -(-w0 // step) * step
last = ts[-1] // 10**9 // step * step - 1
if last - first + 1 < 2 * step:
    sys.exit(1)
print(step, first, last)
EOF
old_steps() {
	rows "SELECT time_ns FROM profiles WHERE scope = 'old' AND name LIKE '%/debug/pprof/allocs'" \
	    >"$T/oldtimes.rows"
	python3 "$T/steps.py" "$w0" "$T/oldtimes.rows" >"$T/steps"
}
# The views' window from the next second: old's allocs stored so far
# (one at least) are before it, so its first difference reaches back to
# one of them, not to the process's start.
w0=$(($(date +%s) + 1))
curl -sf -o "$T/allocs0.pb" "http://$SVC/debug/pprof/allocs" || fail "fetch allocs0"
curl -sf -o "$T/oldallocs0.pb" "http://$OLD/debug/pprof/allocs" || fail "fetch old allocs0"
curl -sf -o "$T/mutex0.pb" "http://$SVC/debug/pprof/mutex" || fail "fetch mutex0"
stored >"$T/stored0.json"
WAIT_S=300 wait_until "the window's profiles stored" window_done
WAIT_S=300 wait_until "old's scrapes over two steps" old_steps
curl -sf -o "$T/allocs1.pb" "http://$SVC/debug/pprof/allocs" || fail "fetch allocs1"
curl -sf -o "$T/mutex1.pb" "http://$SVC/debug/pprof/mutex" || fail "fetch mutex1"
curl -sf -o "$T/oldallocs1.pb" "http://$OLD/debug/pprof/allocs" || fail "fetch old allocs1"
curl -sf -o "$T/heap1.pb" "http://$SVC/debug/pprof/heap" || fail "fetch heap1"
w1=$(date +%s)
for f in allocs0 mutex0 allocs1 mutex1 oldallocs0 oldallocs1 heap1; do
	go tool pprof -raw "$T/$f.pb" >"$T/$f.raw" 2>"$T/$f.err" ||
		fail "go tool pprof -raw $f: $(cat "$T/$f.err")"
done
# Every profile whose interval ends in the window stored (each profile
# of a target is fetched one after the other, imported in order), and
# old's allocs past the window's last second.
end_ns=$(python3 -c 'import time; print(time.time_ns())')
past_window() {
	[ "$(newest svc allocs)" -gt "$end_ns" ] && [ "$(newest svc mutex)" -gt "$end_ns" ] &&
	    [ "$(newest old allocs)" -ge $(((w1 + 1) * 1000000000)) ]
}
WAIT_S=300 wait_until "svc's profiles past the window" past_window

rows "SELECT p.scope, p.name, p.time_ns, p.duration_ns, m.metric, m.kind, m.total FROM profiles p JOIN profile_metrics m USING (profile_id) ORDER BY p.profile_id, m.metric" \
    >"$T/metrics.rows"
api GET /v1/status | sed '$d' >"$T/status.json"

python3 - "$T" <<'EOF' || fail "the profiles stored (above)"
import datetime, json, re, sys
T = sys.argv[1]
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)

# Per stored profile: scope, what was fetched, time, duration, metrics.
prof = {}
for line in open(T + "/metrics.rows"):
    scope, name, t, dur, metric, kind, total = json.loads(line)
    what = re.sub(r".*/debug/pprof/", "", name)
    p = prof.setdefault((scope, name, t), {"what": what, "t": t, "dur": dur,
                                          "m": {}})
    p["m"][metric] = (kind, total)

def kinds(p):
    return " ".join("%s:%s" % (m, p["m"][m][0]) for m in sorted(p["m"]))

def of(scope, base):
    return [p for (s, _, _), p in prof.items()
            if s == scope and p["what"].split("?")[0] == base]

# svc: deltas over interval - 1 s: each at least its 3 s (the service
# reads its counters, sleeps that long, reads them again), and none
# overlaps the one before it (the next fetch begins once the answer came
# back).  No upper bound: a loaded machine stretches a fetch.
for base, want in [("allocs", "alloc_objects:delta alloc_space:delta"),
                   ("mutex", "contentions:delta delay:delta"),
                   ("block", "contentions:delta delay:delta")]:
    ps = sorted(of("svc", base), key=lambda p: p["t"])
    check(len(ps) >= 3, "svc %s: %d profiles" % (base, len(ps)))
    for p in ps:
        check(p["what"] == base + "?seconds=3", "svc fetched " + p["what"])
        check(p["dur"] >= 2.5e9, "svc %s: duration %d ns" %
              (p["what"], p["dur"]))
        check(kinds(p) == want, "svc %s: %s" % (p["what"], kinds(p)))
    for a, b in zip(ps, ps[1:]):
        check(b["t"] - b["dur"] > a["t"], "svc %s: the delta of %d began "
              "before the one of %d ended" % (base, b["t"], a["t"]))
for p in of("svc", "heap"):
    check(p["dur"] == 0 and kinds(p) == "inuse_objects:gauge inuse_space:gauge",
          "svc heap: duration %d, %s" % (p["dur"], kinds(p)))

# old: plain fetches from the first refusal on, cumulative counters;
# heap and allocs each keep their own metrics.
for base, want in [("heap", "inuse_objects:gauge inuse_space:gauge"),
                   ("allocs", "alloc_objects:cumulative alloc_space:cumulative"),
                   ("mutex", "contentions:cumulative delay:cumulative"),
                   ("block", "contentions:cumulative delay:cumulative")]:
    ps = of("old", base)
    check(len(ps) >= 2, "old %s: %d profiles" % (base, len(ps)))
    for p in ps:
        check(p["what"] == base and p["dur"] == 0 and kinds(p) == want,
              "old %s: duration %d, %s" % (p["what"], p["dur"], kinds(p)))

# older: seconds ignored.  The first allocs answer (to ?seconds=2) keeps
# alloc_* (a delta's inuse_* would mean nothing); the plain ones after it,
# without heap in the section, keep everything.
ps = sorted(of("older", "allocs"), key=lambda p: p["t"])
check(len(ps) >= 2 and all(p["dur"] == 0 for p in ps), "older allocs: %d" % len(ps))
check(all(p["what"] == "allocs" for p in ps[1:]), "older allocs fetched " +
      " ".join(p["what"] for p in ps))
check(any(kinds(p) == "alloc_objects:cumulative alloc_space:cumulative "
          "inuse_objects:gauge inuse_space:gauge" for p in ps[1:]),
      "older allocs: " + "; ".join(kinds(p) for p in ps))

# The status: the paths fetched now, no failure.
status = {t["name"]: {p["profile"]: p for p in t["profiles"]}
          for t in json.load(open(T + "/status.json"))["scrape"]}
for name, base, path in [("svc", "allocs", "/debug/pprof/allocs?seconds=3"),
                         ("svc", "heap", "/debug/pprof/heap"),
                         ("old", "allocs", "/debug/pprof/allocs"),
                         ("old", "mutex", "/debug/pprof/mutex"),
                         ("old", "block", "/debug/pprof/block"),
                         ("older", "allocs", "/debug/pprof/allocs"),
                         ("older", "mutex", "/debug/pprof/mutex")]:
    p = status[name][base]
    check(p["path"] == path, "status %s %s: path %s" % (name, base, p["path"]))
    check(p["failures"] == 0, "status %s %s: %d failures: %s" %
          (name, base, p["failures"], p["last_error"]))

# What the service did in the window, by its own counters (plain fetches
# read with go tool pprof -raw): the growth of a metric from the first
# reading to the second, and their times.
def raw(f, metric):
    total, types, t = 0, None, None
    for line in open("%s/%s.raw" % (T, f)):
        if line.startswith("Locations"):
            break
        if line.startswith("Time: "):
            s = line[6:].split(" +")[0]
            day, frac = (s.split(".") + ["0"])[:2]
            t = datetime.datetime.strptime(day, "%Y-%m-%d %H:%M:%S").replace(
                tzinfo=datetime.timezone.utc).timestamp() * 1e9 + \
                int((frac + "000000000")[:9])
        elif types is None and "/" in line and line.split() and \
                all("/" in w for w in line.split()):
            types = [w.split("/")[0] for w in line.split()]
        elif types is not None and re.match(r"^\s*-?\d+(\s+-?\d+)*:", line):
            total += int(line.split(":")[0].split()[types.index(metric)])
    return t, total

out = []
for fetched, metric in [("allocs", "alloc_space"), ("mutex", "delay")]:
    t0, v0 = raw(fetched + "0", metric)
    t1, v1 = raw(fetched + "1", metric)
    rate = (v1 - v0) / (t1 - t0)
    # The stored deltas whose whole interval is in the window: a delta
    # fetch covers interval - 1 s of every interval, so what they sum to
    # is compared with the rate over the time they cover.
    ps = [p for p in of("svc", fetched) if p["t"] - p["dur"] >= t0 and p["t"] <= t1]
    got = sum(p["m"][metric][1] for p in ps)
    covered = sum(p["dur"] for p in ps)
    want = rate * covered
    check(len(ps) >= 3, "%s: %d profiles in the window" % (metric, len(ps)))
    check(want > 0 and abs(got / want - 1) <= 0.25,
          "%s: the stored deltas sum to %d, the service's counters say %d "
          "over the %.1f s they cover" % (metric, got, want, covered / 1e9))
    # Never more than the service did in the whole window (a sum of
    # cumulative counters would be many times that).
    check(got <= 1.25 * (v1 - v0), "%s: %d stored, %d in the whole window" %
          (metric, got, v1 - v0))
    out.append("%s %d profiles over %.1f of %.1f s: %.3g stored, %.3g by "
               "the service's counters (%.0f %%)" % (metric, len(ps),
               covered / 1e9, (t1 - t0) / 1e9, got, want,
               100 * got / want if want else 0))
for b in bad:
    print("bad: " + b, file=sys.stderr)
print("\n".join(out))
sys.exit(1 if bad else 0)
EOF
ok "svc: allocs, mutex, block deltas over 3 s; heap inuse_* only, allocs alloc_* only"
ok "old (400 for seconds) and older (seconds ignored): plain fetches, cumulative, no failure"
ok "alloc_space and mutex delay over the window within 25 % of the service's own counters"

# The views over the window (docs/TIME.md): old's cumulative counters,
# counted as differences at import, sum to what the service allocated
# (its own counters around the window) in the time they cover, from the
# scrape before the window's first to its last, within 25 %; its
# timeline is flat (the rate is: no step holds much more than the
# service did in a step's time); svc's in-use memory, averaged over the
# heap snapshots of the window, lies between the smallest and the
# largest of them (their totals as stored; summed, it would be several
# times the largest).
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
"$PROFCTL" top --scope old --metric alloc_space --since "$(iso "$w0")" \
    --until "$(iso "$w1")" --json >"$T/oldtop.json" || fail "top old"
r=$(api GET "/v1/top?scope=old&metric=alloc_space&since=$(iso "$w0")&until=$(iso "$w1")")
[ "$(status_of "$r")" = 200 ] || fail "/v1/top old: $r"
[ "$(body_of "$r" | json 'j["total"]')" = "$(json 'j["total"]' <"$T/oldtop.json")" ] ||
	fail "profctl and the API differ"
"$PROFCTL" top --scope svc --metric inuse_space --since "$(iso "$w0")" \
    --until "$(iso "$w1")" --json >"$T/inuse.json" || fail "top inuse"
"$PROFCTL" top --scope svc --metric inuse_space --since "$(iso "$w0")" \
    --until "$(iso "$w1")" >"$T/inuse.txt" || fail "top inuse (text)"
has -E "^Type: inuse_space \(average of [0-9]+ profiles\)$" "$T/inuse.txt" ||
	fail "the in-use header: $(head -3 "$T/inuse.txt")"
# The steps old_steps chose, inside the window.
read -r step s0 s1 <"$T/steps"
r=$(api GET "/v1/timeline?scope=old&metric=alloc_space&step=${step}s&since=$(iso "$s0")&until=$(iso "$s1")")
[ "$(status_of "$r")" = 200 ] || fail "timeline old: $r"
body_of "$r" >"$T/oldtl.json"
rows "SELECT time_ns FROM profiles WHERE scope = 'old' AND name LIKE '%/debug/pprof/allocs'" \
    >"$T/oldtimes.rows"
python3 - "$T" "$w0" "$w1" "$step" <<'PY' || fail "the window's views (above)"
import datetime, json, re, sys
T = sys.argv[1]
w0, w1, step = (int(a) for a in sys.argv[2:])
def raw(f, metric):
    total, types, t = 0, None, None
    for line in open("%s/%s.raw" % (T, f)):
        if line.startswith("Locations"):
            break
        if line.startswith("Time: "):
            s = line[6:].split(" +")[0]
            day, frac = (s.split(".") + ["0"])[:2]
            t = datetime.datetime.strptime(day, "%Y-%m-%d %H:%M:%S").replace(
                tzinfo=datetime.timezone.utc).timestamp() * 1e9 + \
                int((frac + "000000000")[:9])
        elif types is None and "/" in line and line.split() and \
                all("/" in w for w in line.split()):
            types = [w.split("/")[0] for w in line.split()]
        elif types is not None and re.match(r"^\s*-?\d+(\s+-?\d+)*:", line):
            total += int(line.split(":")[0].split()[types.index(metric)])
    return t, total
t0, v0 = raw("oldallocs0", "alloc_space")
t1, v1 = raw("oldallocs1", "alloc_space")
rate = (v1 - v0) / (t1 - t0)
# The window's stored differences add up from the scrape before its
# first to its last (a sample's time is its second's).
ts = sorted(json.loads(line)[0] for line in open(T + "/oldtimes.rows"))
inside = [k for k, t in enumerate(ts) if w0 <= t // 10**9 <= w1]
covered = ts[inside[-1]] - ts[inside[0] - 1]
want = rate * covered
got = json.load(open(T + "/oldtop.json"))["total"]
_, snap = raw("heap1", "inuse_space")
inuse = json.load(open(T + "/inuse.json"))["total"]
heaps = []
for line in open(T + "/metrics.rows"):
    scope, name, t, dur, metric, kind, total = json.loads(line)
    if scope == "svc" and metric == "inuse_space" and \
            w0 <= t // 10**9 <= w1:
        heaps.append(total)
pts = [p["value"] for p in json.load(open(T + "/oldtl.json"))["points"]]
print("old alloc_space: the window counts %d, the service did %d in the "
      "%.1f s its scrapes cover (%.0f %%); svc inuse_space: average %d "
      "of %d snapshots (%d to %d; one fetched apart %d); old's %d s "
      "steps: %s" % (got, want, covered / 1e9, 100.0 * got / want, inuse,
      len(heaps), min(heaps or [0]), max(heaps or [0]), snap, step, pts))
bad = []
if not (0.75 <= got / want <= 1.25):
    bad.append("alloc_space not within 25 %")
# (An average rounds per stack: a hundredth of slack.)
if not heaps or not (min(heaps) * 0.99 <= inuse <= max(heaps) * 1.01):
    bad.append("inuse_space not between the window's smallest and "
               "largest snapshot")
# Each step within 2.5x of what the service did in a step's time: a step
# holds a scrape or more (old_steps), so its differences cover the step
# and at most the gap before it, half a step; a step of cumulative
# counters summed holds all the process did since it started, again for
# every scrape in the step.
per_step = rate * step * 1e9
if len(pts) < 2 or min(pts) <= 0 or max(pts) > 2.5 * per_step:
    bad.append("the timeline is not flat (%.3g a step on average)" %
               per_step)
if bad:
    sys.exit("; ".join(bad))
PY
ok "views: old's alloc_space within 25 % of the service, a flat timeline; svc's in-use average between the window's smallest and largest snapshot"

"$PROFCTL" profiles --scope svc >"$T/profiles.txt" || fail "profctl profiles"
has -F "alloc_objects,alloc_space (delta)" "$T/profiles.txt" ||
	fail "profctl profiles: $(head "$T/profiles.txt")"
has -F "inuse_objects,inuse_space (gauge)" "$T/profiles.txt" ||
	fail "profctl profiles: $(head "$T/profiles.txt")"
"$PROFCTL" top --scope svc --metric alloc_space >"$T/top.txt" || fail "profctl top"
has "main.scrapeAllocate" "$T/top.txt" || fail "top alloc_space: $(head "$T/top.txt")"
"$PROFCTL" top --scope svc --metric delay --cum >"$T/top.delay" || fail "profctl top delay"
has "main.scrapeContend" "$T/top.delay" || fail "top delay: $(head "$T/top.delay")"
ok "profctl profiles shows the kinds; top shows scrapeAllocate and scrapeContend"

# keep= on the push API.
r=$(api POST "/v1/profiles?scope=kept&keep=inuse_space&keep=inuse_objects/count" \
    --data-binary @"$FIXTURES/heap.pprof")
[ "$(status_of "$r")" = 201 ] || fail "push keep=: $r"
[ "$(body_of "$r" | json '" ".join(m["type"] + ":" + m["kind"] for m in j["metrics"])')" = \
    "inuse_objects:gauge inuse_space:gauge" ] || fail "push keep=: $r"
r=$(api POST "/v1/profiles?scope=kept2&keep=cpu" --data-binary @"$FIXTURES/heap.pprof")
[ "$(status_of "$r")" = 400 ] || fail "push keep=cpu of a heap profile: $r"
case $r in *"none of the metrics kept (cpu)"*) ;; *) fail "keep=cpu: $r" ;; esac
r=$(api POST "/v1/profiles?scope=kept2&keep=inuse_space/" --data-binary @"$FIXTURES/heap.pprof")
[ "$(status_of "$r")" = 400 ] || fail "push keep=inuse_space/: $r"
case $r in *"keep: "*"is not TYPE or TYPE/UNIT"*) ;; *) fail "keep=inuse_space/: $r" ;; esac
ok "POST /v1/profiles?keep=METRIC stores those metrics only; bad ones refused"

# Not this shell's child: gone once it exited.  300 s: a bound against a
# hang.
WAIT_S=300 stop_profd
ok "the detached profd stopped on SIGTERM"
