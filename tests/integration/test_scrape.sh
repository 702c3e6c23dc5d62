#!/usr/bin/env bash
# test_scrape.sh: [scrape NAME] targets (issue 17).  A real Go program
# serving net/http/pprof (scrape-target/, built here with the system's go,
# no module proxy) is scraped every 2 s over TCP and over a Unix socket:
# its CPU, heap and goroutine profiles appear on schedule in the target's
# scope with instance and the configured labels, and profctl top shows the
# functions it is busy in.  Beside it a target that is down, one that
# never answers and one that answers garbage fail with backoff and their
# errors in the status, while health, pushes and the good target go on.
# SIGHUP adds and removes targets and keeps them when the file is bad.
# Each is observed as it happens: the target notes every request's begin
# and end (-request-log), the slow server every request and close, and a
# fetch that never ends (held's) is in flight while health answers and
# when profd stops.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scrape-lib.sh"

scrape_target ADDR -unix "$T/target.sock" -request-log "$T/requests.log"

# A port nothing listens on, a server that takes connections and never
# answers, and one that answers 200 with bytes that are no profile.  The
# slow one notes each connection's request line in conns/N.req once it
# came whole, then conns/N.closed when the client closed it.
python3 - "$T" >"$T/ports" 2>"$T/servers.log" <<'EOF' &
import os, socket, sys, threading, http.server
d = sys.argv[1]
os.mkdir(d + "/conns")
s = socket.socket(); s.bind(("127.0.0.1", 0)); down = s.getsockname()[1]; s.close()
slow = socket.socket(); slow.bind(("127.0.0.1", 0)); slow.listen(64)
held = []
def note(name, text):
    with open("%s/conns/.%s" % (d, name), "w") as f:
        f.write(text)
    os.rename("%s/conns/.%s" % (d, name), "%s/conns/%s" % (d, name))
def watch(c, n):
    got = b""
    try:
        while b"\r\n\r\n" not in got:
            b = c.recv(4096)
            if not b:
                break
            got += b
        if b"\r\n\r\n" in got:
            note("%d.req" % n, got.split(b"\r\n")[0].decode() + "\n")
        while c.recv(4096):
            pass
    except OSError:
        pass
    note("%d.closed" % n, "")
def hold():
    n = 0
    while True:
        c, _ = slow.accept(); held.append(c); n += 1
        threading.Thread(target=watch, args=(c, n), daemon=True).start()
threading.Thread(target=hold, daemon=True).start()
class G(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        b = b"this is not a profile\n" * 50
        self.send_response(200); self.send_header("Content-Length", str(len(b)))
        self.end_headers(); self.wfile.write(b)
    def log_message(self, *a): pass
g = http.server.ThreadingHTTPServer(("127.0.0.1", 0), G)
print(down, slow.getsockname()[1], g.server_address[1], flush=True)
g.serve_forever()
EOF
PIDS+=($!)
WAIT_S=300 wait_until "the python servers" test -s "$T/ports"
read -r DOWN SLOW GARBAGE <"$T/ports"

# (a) Config errors name the file, the line and the section.
cat >"$T/bad.conf" <<EOF
[scrape fast]
url = http://$ADDR
interval = 2s
cpu_seconds = 2s
EOF
if "$PROFD" --config "$T/bad.conf" --print-config >"$T/bad.out" 2>&1; then
	fail "cpu_seconds = interval was taken"
fi
has -F "$T/bad.conf:1: [scrape fast]: cpu_seconds must be at least 1s and less than interval" "$T/bad.out" ||
	fail "the error: $(cat "$T/bad.out")"
printf '[scrape x]\nurl = ftp://h\n' >"$T/bad2.conf"
"$PROFD" --config "$T/bad2.conf" --print-config >"$T/bad2.out" 2>&1 &&
	fail "an ftp url was taken"
has -F "$T/bad2.conf:2: [scrape x]: url:" "$T/bad2.out" ||
	fail "the url error: $(cat "$T/bad2.out")"
ok "config errors name file, line and section"

# The targets that must not fail (go-svc) or must fail for their own
# reason (garbage, tcp-big, unix-big) have a timeout no fetch reaches
# (10 min, a bound against a hang): a starved target on a loaded machine
# may answer later than the default.
conf() {
	cat <<EOF
[scrape go-svc]
url = http://$ADDR
profiles = cpu heap goroutine
interval = 2s
cpu_seconds = 1
timeout = 10m
label = env=test
label = team=perf

[scrape down]
url = http://127.0.0.1:$DOWN
profiles = heap
interval = $([ "$1" = reloaded ] && echo 3s || echo 2s)

[scrape slow]
url = http://127.0.0.1:$SLOW
profiles = goroutine
interval = 4s
timeout = 2s

# The slow server again, a fetch that lasts an hour: in flight for as
# long as the test needs one.
[scrape held]
url = http://127.0.0.1:$SLOW
profiles = heap
interval = 2s
timeout = 1h
EOF
	[ "$1" = initial ] && cat <<EOF

[scrape garbage]
url = http://127.0.0.1:$GARBAGE
profiles = goroutine
interval = 2s
timeout = 10m
EOF
	[ "$1" = reloaded ] && cat <<EOF

[scrape over-unix]
url = unix:$T/target.sock
profiles = goroutine heap
interval = 2s
scope = go-unix
EOF
	true
}
conf initial >"$T/profd.conf"
"$PROFD" --config "$T/profd.conf" --print-config >"$T/printed.conf" ||
	fail "--print-config"
printf '[scrape d]\nurl = http://%s\nprofiles = cpu heap goroutine\ninterval = 2s\ncpu_seconds = 1\n' "$ADDR" >"$T/default.conf"
"$PROFD" --no-config --config "$T/default.conf" --print-config >"$T/default.out" ||
	fail "--print-config of $(cat "$T/default.conf")"
has -Fx "timeout = 11s" "$T/default.out" || fail "the default timeout is not cpu_seconds + 10s: $(cat "$T/default.out")"
"$PROFD" --no-config --config "$T/printed.conf" --print-config >"$T/printed2.conf" ||
	fail "--print-config's output does not load back"
diff <(sed 1d "$T/printed.conf") <(sed 1d "$T/printed2.conf") >/dev/null ||
	fail "--print-config's output loads back differently"
ok "--print-config prints the sections, which load back the same"

start_profd --config "$T/profd.conf"

status() { api GET /v1/status | sed '$d'; }
# prof_count SCOPE NAME-SUBSTRING
prof_count() {
	api GET "/v1/profiles?scope=$1" | sed '$d' |
	    json "sum(1 for p in j.get('profiles', []) if '$2' in p['name'])"
}
have_all() {
	[ "$(prof_count go-svc profile?seconds=1)" -ge 1 ] &&
	    [ "$(prof_count go-svc /heap)" -ge 1 ] &&
	    [ "$(prof_count go-svc /goroutine)" -ge 1 ]
}
WAIT_S=300 wait_until "cpu, heap and goroutine profiles of go-svc" have_all
ok "cpu, heap and goroutine profiles scraped into scope go-svc"

labels=$(api GET "/v1/profiles?scope=go-svc" | sed '$d' |
    json "sorted(set(json.dumps(p['labels'], sort_keys=True) for p in j['profiles']))")
[ "$labels" = "[\"{\\\"env\\\": \\\"test\\\", \\\"instance\\\": \\\"$ADDR\\\", \\\"team\\\": \\\"perf\\\"}\"]" ] ||
	fail "labels: $labels"
ok "labels: instance=$ADDR, env=test, team=perf"

"$PROFCTL" top --scope go-svc --metric cpu >"$T/top.cpu" || fail "profctl top cpu"
has "main.scrapeBurnCPU" "$T/top.cpu" || fail "top cpu: $(head -12 "$T/top.cpu")"
"$PROFCTL" top --scope go-svc --metric inuse_space >"$T/top.heap" || fail "profctl top heap"
has "main.scrapeAllocate" "$T/top.heap" || fail "top heap: $(head -12 "$T/top.heap")"
"$PROFCTL" top --scope go-svc --metric goroutine --cum >"$T/top.gr" || fail "profctl top goroutine"
has "main.scrapeParked" "$T/top.gr" || fail "top goroutine: $(head -12 "$T/top.gr")"
ok "profctl top shows scrapeBurnCPU (cpu), scrapeAllocate (heap), scrapeParked (goroutines)"

# One goroutine profile: the program parks exactly 20 goroutines.
id=$(api GET "/v1/profiles?scope=go-svc" | sed '$d' |
    json "[p['id'] for p in j['profiles'] if p['name'].endswith('/goroutine')][0]")
"$PROFCTL" top --scope go-svc --profile "$id" --metric goroutine --cum >"$T/top.one" ||
	fail "profctl top of profile $id"
parked=$(awk '$6 == "main.scrapeParked" { print $4 }' "$T/top.one")
[ "$parked" = 20 ] || fail "scrapeParked in profile $id: '$parked' goroutines: $(head "$T/top.one")"
ok "one scraped goroutine profile has the 20 goroutines parked in scrapeParked"

# On schedule: every 2 s, never two at once, from the goroutine fetches
# the target noted over TCP.  A fetch begins once the one before came
# back and an interval after that one began; the target notes a begin
# after profd began the fetch and an end before profd can have the
# answer.  So however slow the machine, fetch j begins after fetch i
# ended, and j - i - 1 intervals later (less 0.5 s each: libevent times
# a timer from the coarse clock it read when the loop woke, a little
# before profd's own reading).  Two begins in a row are not compared (a
# request held up on its way shortens the gap to the next), and there is
# no upper bound: a loaded machine only makes fetches late.
cat >"$T/fetches.py" <<'EOF'
import sys
begin, end = {}, {}
for line in open(sys.argv[1]):
    if not line.endswith("\n"):
        continue
    w = line.split()
    if w[1] == "begin" and w[3:] == ["tcp", "/debug/pprof/goroutine"]:
        begin[w[0]] = int(w[2])
    elif w[1] == "end":
        end[w[0]] = int(w[2])
f = sorted((begin[i], end.get(i)) for i in begin)
if sys.argv[2] == "count":
    print(sum(1 for _, e in f if e is not None))
    sys.exit(0)
interval, margin = 2e9, 0.5e9
bad = []
for i in range(len(f)):
    for j in range(i + 1, len(f)):
        if f[i][1] is None:
            bad.append("fetch %d began while %d was in flight" % (j, i))
        elif f[j][0] - f[i][1] <= (j - i - 1) * (interval - margin):
            bad.append("fetch %d began %.3f s after %d ended, %d between" %
                       (j, (f[j][0] - f[i][1]) / 1e9, i, j - i - 1))
gaps = ["%.2f" % ((f[k + 1][0] - f[k][0]) / 1e9) for k in range(len(f) - 1)]
print("%d fetches, begun %s s apart" % (len(f), " ".join(gaps)))
for b in bad[:10]:
    print("bad: " + b)
sys.exit(1 if bad else 0)
EOF
fetched() { python3 "$T/fetches.py" "$T/requests.log" count; }
n0=$(fetched)
more_fetched() { [ "$(fetched)" -ge $((n0 + 3)) ]; }
WAIT_S=300 wait_until "3 more goroutine fetches of go-svc" more_fetched
python3 "$T/fetches.py" "$T/requests.log" check >"$T/fetches.txt" ||
	fail "the goroutine fetches: $(cat "$T/fetches.txt")"
ok "on schedule: never two at once, an interval apart: $(head -1 "$T/fetches.txt")"

# The failing targets: errors in the status, backoff growing, while
# health answers and a push is stored.
target_field() {
	status | json "[p for t in j['scrape'] if t['name'] == '$1' for p in t['profiles']][0]$2"
}
failed_twice() {
	[ "$(target_field down "['failures']")" -ge 3 ] &&
	    [ "$(target_field slow "['failures']")" -ge 2 ] &&
	    [ "$(target_field garbage "['failures']")" -ge 3 ]
}
# Health while a fetch waits on a target that does not answer: held's
# request is at the slow server, then health answers, and profd still
# waits on that same fetch (its first, in flight, no failure: it lasts
# an hour), its connection open.  A loop blocked on the fetch could not
# have answered before the fetch ended.  (slow's fetches end after 2 s:
# on a loaded machine health may take longer than that, so they would
# prove nothing.)
held_conn() { grep -lsF "GET /debug/pprof/heap " "$T"/conns/*.req; }
held_state() {
	status | json "[(p['in_flight'], p['scrapes'], p['failures']) for t in j['scrape'] if t['name'] == 'held' for p in t['profiles']][0]"
}
WAIT_S=300 wait_until "held's request at the slow server" held_conn
c=$(held_conn)
r=$(api GET /v1/health --max-time 300)
[ "$(status_of "$r")" = 200 ] || fail "health while held's fetch waits: $r"
[ "$(held_state)" = "(True, 1, 0)" ] ||
	fail "held's fetch is no longer the first, in flight: $(target_field held "")"
[ ! -e "${c%.req}.closed" ] || fail "held's connection was closed"
r=$(api POST "/v1/profiles?scope=pushed" --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 201 ] || fail "a push while targets fail: $r"
WAIT_S=300 wait_until "failures of down, slow, garbage" failed_twice
ok "health answered while a fetch waited on a target that does not answer; a push was stored meanwhile"

e=$(target_field down "['last_error']")
case $e in *"127.0.0.1:$DOWN/debug/pprof/heap: "*) ;; *) fail "down's error: $e" ;; esac
e=$(target_field slow "['last_error']")
case $e in *"no whole answer within the timeout (2 s)"*) ;; *) fail "slow's error: $e" ;; esac
e=$(target_field garbage "['last_error']")
case $e in *"the profile was not stored: "*) ;; *) fail "garbage's error: $e" ;; esac
b=$(target_field down "['backoff_s']")
[ "$b" = 2 ] || fail "down's backoff is $b s (1, 2, then the interval: 2)"
[ "$(target_field garbage "['stored']")" = 0 ] || fail "garbage was stored"
has -E "scrape down heap: .*retry in [0-9]+ s" "$T/profd.log" || fail "no log line of the failing target"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has -F "scrape slow: http://127.0.0.1:$SLOW into scope slow every 4 s" "$T/status.txt" ||
	fail "profctl status: $(cat "$T/status.txt")"
has -F "no whole answer within the timeout" "$T/status.txt" || fail "profctl status shows no error: $(cat "$T/status.txt")"
ok "down, slow and garbage fail with their errors, backoff capped at the interval, in the log and profctl status"
# The good target went on meanwhile.
[ "$(target_field go-svc "['failures']")" = 0 ] || fail "go-svc failed: $(target_field go-svc "['last_error']")"
ok "go-svc never failed meanwhile"

# (b) SIGHUP: garbage removed, a Unix socket target added, down changed.
gr_scrapes() {
	status | json "[p['scrapes'] for t in j['scrape'] if t['name'] == 'go-svc' for p in t['profiles'] if p['profile'] == 'goroutine'][0]"
}
n_before=$(gr_scrapes)
n_hup=$(fetched)
conf reloaded >"$T/profd.conf"
kill -HUP "$PROFD_PID"
reloaded() {
	[ "$(status | json "sorted(t['name'] for t in j['scrape'])")" = \
	    '["down", "go-svc", "held", "over-unix", "slow"]' ]
}
WAIT_S=300 wait_until "the targets after SIGHUP" reloaded
unix_ok() {
	[ "$(prof_count go-unix /goroutine)" -ge 1 ] && [ "$(prof_count go-unix /heap)" -ge 1 ]
}
WAIT_S=300 wait_until "profiles over the Unix socket" unix_ok
inst=$(api GET "/v1/profiles?scope=go-unix" | sed '$d' | json "j['profiles'][0]['labels']['instance']")
[ "$inst" = "$T/target.sock" ] || fail "the unix target's instance: $inst"
"$PROFCTL" top --scope go-unix --metric goroutine --cum >"$T/top.unix" || fail "top go-unix"
has "main.scrapeParked" "$T/top.unix" || fail "top go-unix: $(head "$T/top.unix")"
ok "SIGHUP removed garbage and added over-unix: its profiles stored with instance=$T/target.sock"

# down changed: stopped and started again (the log says so as it
# happens), its counts too: the failures it has now, read first, are no
# more than the failures logged since it started again (read after).
[ "$(status | json "[t['interval_s'] for t in j['scrape'] if t['name'] == 'down'][0]")" = 3 ] ||
	fail "down's interval after SIGHUP"
has -F "scrape down: stopped" "$T/profd.log" || fail "down was not stopped on SIGHUP"
f=$(target_field down "['failures']")
l=$(awk -v s="scrape down: http://127.0.0.1:$DOWN every 3 s" '
	index($0, s) { on = 1; n = 0; next }
	on && index($0, "scrape down heap: ") { n++ }
	END { print n + 0 }' "$T/profd.log")
[ "$f" -le "$l" ] || fail "down's counts were kept: $f failures, $l logged since it started again"
ok "a changed target started again"
# go-svc and held unchanged: neither stopped nor started again, counts
# kept (go-svc's only grew), held's fetch still the one in flight, and
# go-svc's fetches on the schedule they had across the SIGHUP.
[ "$(grep -cF "scrape go-svc: stopped" "$T/profd.log")" = 0 ] &&
    [ "$(grep -cF "scrape go-svc: http://$ADDR every 2 s" "$T/profd.log")" = 1 ] ||
	fail "go-svc started again on SIGHUP"
[ "$(gr_scrapes)" -ge "$n_before" ] || fail "go-svc's counts went back on SIGHUP"
[ "$(held_state)" = "(True, 1, 0)" ] || fail "held's fetch after SIGHUP: $(target_field held "")"
past_hup() { [ "$(fetched)" -ge $((n_hup + 2)) ]; }
WAIT_S=300 wait_until "2 goroutine fetches of go-svc since SIGHUP" past_hup
python3 "$T/fetches.py" "$T/requests.log" check >"$T/fetches.txt" ||
	fail "the goroutine fetches across SIGHUP: $(cat "$T/fetches.txt")"
ok "an unchanged target kept its schedule, counts and fetch in flight"

# A bad file on SIGHUP changes nothing.
printf '[scrape broken]\nurl = http://127.0.0.1:1\ninterval = 2s\ncpu_seconds = 3s\n' >>"$T/profd.conf"
kill -HUP "$PROFD_PID"
WAIT_S=300 wait_until "the SIGHUP error logged" has -F "[scrape broken]: cpu_seconds must be" "$T/profd.log"
reloaded || fail "a bad file changed the targets"
ok "a bad file on SIGHUP keeps the targets (logged)"

# Stopping with a fetch in flight does not wait for it: held's lasts an
# hour, yet profd exits (300 s: a bound against a hang) and says it cut
# that fetch short.
[ "$(held_state)" = "(True, 1, 0)" ] || fail "held's fetch before SIGTERM: $(target_field held "")"
kill -TERM "$PROFD_PID"
profd_exited() {
	[ ! -e "/proc/$PROFD_PID" ] ||
	    [ "$(awk '{ print $3 }' "/proc/$PROFD_PID/stat" 2>/dev/null)" = Z ]
}
WAIT_S=300 wait_until "profd's exit on SIGTERM" profd_exited
wait "$PROFD_PID" || fail "profd exited non-zero on SIGTERM"
PROFD_PID=
has -F "scrape held: the heap fetch in flight was cut short" "$T/profd.log" ||
	fail "held's fetch was not cut short"
ok "SIGTERM with a fetch in flight stops without waiting for it"

# (c) The body is bounded by max-body: over it, the scrape fails (both
# clients), nothing is stored.
cat >"$T/small.conf" <<EOF
[scrape tcp-big]
url = http://$ADDR
profiles = heap
interval = 2s
timeout = 10m

[scrape unix-big]
url = unix:$T/target.sock
profiles = heap
interval = 2s
timeout = 10m
EOF
rm -f "$DB"
start_profd --config "$T/small.conf" --max-body 1k
too_big() {
	[ "$(target_field tcp-big "['failures']")" -ge 1 ] &&
	    [ "$(target_field unix-big "['failures']")" -ge 1 ]
}
WAIT_S=300 wait_until "the bodies over max-body refused" too_big
e=$(target_field tcp-big "['last_error']")
case $e in *"the body is over max-body"*) ;; *) fail "tcp-big's error: $e" ;; esac
e=$(target_field unix-big "['last_error']")
case $e in *"the body is over max-body (1024 bytes)"*) ;; *) fail "unix-big's error: $e" ;; esac
[ "$(target_field tcp-big "['stored']")" = 0 ] && [ "$(target_field unix-big "['stored']")" = 0 ] ||
	fail "a body over max-body was stored"
ok "bodies over max-body (1k) refused over TCP and the Unix socket"

stop_profd
ok "profd stopped cleanly"
