#!/usr/bin/env bash
# libevent's HTTP client when profd is out of file descriptors (issue 24):
# evhttp_make_request cannot open the socket, and for a numeric host it
# answers the request (its callback run, the request freed) before it
# returns.  A fleet view asked then used to write into its question after
# the callback had freed it (heap-use-after-free under ASan, a crash or
# worse without); the shipper's round and a scrape fail the same way at
# once.  Now each is a failure like any other: the view is a 503 naming
# ClickHouse, the shipper and the scraper count a failure and go on, and
# profd answers once descriptors are back.  (The -1 paths, where libevent
# frees the request on one and not on the other, are test_httpc's.)
source "$TESTS_DIR/integration/lib.sh"
cat >"$T/profd-limited" <<EOS
#!/bin/sh
ulimit -n 64
exec "$PROFD" "\$@"
EOS
chmod +x "$T/profd-limited"
# A port nothing listens on: ClickHouse and the scrape target are down.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/profd.conf" <<EOF
[scrape down]
url = http://127.0.0.1:$port
profiles = heap
interval = 1s
timeout = 1s
EOF
PROFD="$T/profd-limited" start_profd --config "$T/profd.conf" \
    --fleet-url "http://127.0.0.1:$port" --fleet-interval 1 \
    --fleet-timeout 1 --max-connections 1000 --header-timeout 300
"$PROFCTL" push --scope web "$FIXTURES/cpu.pprof" >/dev/null ||
	fail "push"

# One connection in, then the rest of the descriptors taken by held
# connections; on the first (it needs no descriptor), profd's counts are
# read until the shipper and the scraper have each failed twice since
# descriptors ran out (the second try began after the first had ended,
# so with none left), then the fleet view is asked.
PYTHONPATH="$TESTS_DIR/tools" python3 - "$SOCK" >"$T/view.out" 2>&1 <<'EOF' || fail "view: $(cat "$T/view.out")"
import json, sys
from sockhttp import connect, get, reply, until
path = sys.argv[1]
a = connect(path)
print(get(a, b"/v1/health")[0])
held = []
for _ in range(120):
    try:
        h = connect(path, 2)
        h.sendall(b"GET /v1/he")
    except OSError:
        break
    held.append(h)
until("a failed accept", lambda: json.loads(get(a, b"/v1/health")[1])
      ["http"]["accept_errors"] > 0)
def failures():
    j = json.loads(get(a, b"/v1/status")[1])
    return (j["fleet"]["failures"],
            j["scrape"][0]["profiles"][0]["failures"])
f0, s0 = failures()
until("two failures each of the shipper and the scraper",
      lambda: (lambda f, s: f >= f0 + 2 and s >= s0 + 2)(*failures()))
print("out of descriptors: the shipper failed %d times, the scraper %d" %
      tuple(n - n0 for n, n0 in zip(failures(), (f0, s0))))
a.sendall(b"GET /v1/top?scope=web&fleet=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
line, body = reply(a)
print(line, body)
if b" 503 " not in line or b"ClickHouse" not in body:
    sys.exit("the fleet view: %r %r" % (line, body))
for h in held:
    h.close()
EOF
cat "$T/view.out"
kill -0 "$PROFD_PID" || fail "profd died"
ok "a fleet view with no descriptor left is a 503"
has 'accept' "$T/profd.log" || fail "descriptors were not exhausted"

r=$(api GET /v1/status)
[ "$(status_of "$r")" = 200 ] || fail "status after: $r"
body_of "$r" | json 'j["fleet"]["failures"] > 0' | has -x True ||
	fail "the shipper counted no failure"
scrape_failed() {
	api GET /v1/status | sed '$d' |
	    json 'j["scrape"][0]["profiles"][0]["failures"] > 0' | has -x True
}
wait_until "a scrape failure" scrape_failed
stop_profd
ok "profd goes on after the client's requests failed at once"
