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
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scrape-lib.sh"

scrape_target ADDR -unix "$T/target.sock"

# A port nothing listens on, a server that takes connections and never
# answers, and one that answers 200 with bytes that are no profile.
python3 - "$T" >"$T/ports" 2>"$T/servers.log" <<'EOF' &
import socket, sys, threading, time, http.server
d = sys.argv[1]
s = socket.socket(); s.bind(("127.0.0.1", 0)); down = s.getsockname()[1]; s.close()
slow = socket.socket(); slow.bind(("127.0.0.1", 0)); slow.listen(64)
held = []
def hold():
    while True:
        c, _ = slow.accept(); held.append(c)
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
wait_until "the python servers" test -s "$T/ports"
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

conf() {
	cat <<EOF
[scrape go-svc]
url = http://$ADDR
profiles = cpu heap goroutine
interval = 2s
cpu_seconds = 1
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
EOF
	[ "$1" = initial ] && cat <<EOF

[scrape garbage]
url = http://127.0.0.1:$GARBAGE
profiles = goroutine
interval = 2s
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
has -F "timeout = 11s" "$T/printed.conf" || fail "the default timeout is not cpu_seconds + 10s: $(cat "$T/printed.conf")"
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
WAIT_S=30 wait_until "cpu, heap and goroutine profiles of go-svc" have_all
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

# On schedule: every 2 s, never two at once, so about 3 more in 6 s.
# Fetches begun, as /v1/status counts them: stored profiles lag them
# when the imports wait for a loaded machine, and come in bursts.
fetches() {
	api GET /v1/status | sed '$d' | json "[p['scrapes'] for t in j['scrape'] if t['name'] == 'go-svc' for p in t['profiles'] if p['profile'] == 'goroutine'][0]"
}
n0=$(fetches)
sleep 6
n1=$(fetches)
[ $((n1 - n0)) -ge 2 ] && [ $((n1 - n0)) -le 4 ] ||
	fail "goroutine fetches: $n0 then $n1 six seconds later (every 2 s expected)"
ok "on schedule: $((n1 - n0)) goroutine scrapes in 6 s at interval 2s"

# The failing targets: errors in the status, backoff growing, while
# health answers at once and a push is stored.
target_field() {
	status | json "[p for t in j['scrape'] if t['name'] == '$1' for p in t['profiles']][0]$2"
}
failed_twice() {
	[ "$(target_field down "['failures']")" -ge 3 ] &&
	    [ "$(target_field slow "['failures']")" -ge 2 ] &&
	    [ "$(target_field garbage "['failures']")" -ge 3 ]
}
slowest=0
# curl's own time: from connecting to the last byte of the answer.
for i in $(seq 1 20); do
	s=$(curl -sf --max-time 5 -o /dev/null -w '%{time_total}' \
	    --unix-socket "$SOCK" http://localhost/v1/health) ||
		fail "health did not answer while targets fail"
	ms=$(python3 -c "print(int(float('$s') * 1000))")
	[ "$ms" -gt "$slowest" ] && slowest=$ms
	sleep 0.1
done
r=$(api POST "/v1/profiles?scope=pushed" --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 201 ] || fail "a push while targets fail: $r"
WAIT_S=40 wait_until "failures of down, slow, garbage" failed_twice
[ "$slowest" -lt 1000 ] || fail "health took $slowest ms"
ok "health answered in at most $slowest ms (20 tries) and a push was stored meanwhile"

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
down_failures=$(target_field down "['failures']")
conf reloaded >"$T/profd.conf"
kill -HUP "$PROFD_PID"
reloaded() {
	[ "$(status | json "sorted(t['name'] for t in j['scrape'])")" = \
	    '["down", "go-svc", "over-unix", "slow"]' ]
}
wait_until "the targets after SIGHUP" reloaded
unix_ok() {
	[ "$(prof_count go-unix /goroutine)" -ge 1 ] && [ "$(prof_count go-unix /heap)" -ge 1 ]
}
WAIT_S=30 wait_until "profiles over the Unix socket" unix_ok
inst=$(api GET "/v1/profiles?scope=go-unix" | sed '$d' | json "j['profiles'][0]['labels']['instance']")
[ "$inst" = "$T/target.sock" ] || fail "the unix target's instance: $inst"
"$PROFCTL" top --scope go-unix --metric goroutine --cum >"$T/top.unix" || fail "top go-unix"
has "main.scrapeParked" "$T/top.unix" || fail "top go-unix: $(head "$T/top.unix")"
ok "SIGHUP removed garbage and added over-unix: its profiles stored with instance=$T/target.sock"

# down changed: started again (its counts too).
[ "$(status | json "[t['interval_s'] for t in j['scrape'] if t['name'] == 'down'][0]")" = 3 ] ||
	fail "down's interval after SIGHUP"
[ "$(target_field down "['failures']")" -lt "$down_failures" ] ||
	fail "down was not started again ($down_failures failures before)"
ok "a changed target started again"
# go-svc unchanged: its schedule went on (its counts were kept).
[ "$(target_field go-svc "['scrapes']")" -ge 5 ] || fail "go-svc started again on SIGHUP"
ok "an unchanged target kept its schedule and counts"

# A bad file on SIGHUP changes nothing.
printf '[scrape broken]\nurl = http://127.0.0.1:1\ninterval = 2s\ncpu_seconds = 3s\n' >>"$T/profd.conf"
kill -HUP "$PROFD_PID"
wait_until "the SIGHUP error logged" has -F "[scrape broken]: cpu_seconds must be" "$T/profd.log"
reloaded || fail "a bad file changed the targets"
ok "a bad file on SIGHUP keeps the targets (logged)"

# Stopping with a request in flight (slow) is prompt.
t0=$(date +%s)
stop_profd
[ $(($(date +%s) - t0)) -le 5 ] || fail "SIGTERM took $(($(date +%s) - t0)) s"
ok "SIGTERM with scrapes in flight stops at once"

# (c) The body is bounded by max-body: over it, the scrape fails (both
# clients), nothing is stored.
cat >"$T/small.conf" <<EOF
[scrape tcp-big]
url = http://$ADDR
profiles = heap
interval = 2s

[scrape unix-big]
url = unix:$T/target.sock
profiles = heap
interval = 2s
EOF
rm -f "$DB"
start_profd --config "$T/small.conf" --max-body 1k
too_big() {
	[ "$(target_field tcp-big "['failures']")" -ge 1 ] &&
	    [ "$(target_field unix-big "['failures']")" -ge 1 ]
}
WAIT_S=20 wait_until "the bodies over max-body refused" too_big
e=$(target_field tcp-big "['last_error']")
case $e in *"the body is over max-body"*) ;; *) fail "tcp-big's error: $e" ;; esac
e=$(target_field unix-big "['last_error']")
case $e in *"the body is over max-body (1024 bytes)"*) ;; *) fail "unix-big's error: $e" ;; esac
[ "$(target_field tcp-big "['stored']")" = 0 ] && [ "$(target_field unix-big "['stored']")" = 0 ] ||
	fail "a body over max-body was stored"
ok "bodies over max-body (1k) refused over TCP and the Unix socket"

stop_profd
ok "profd stopped cleanly"
