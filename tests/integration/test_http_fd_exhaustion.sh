#!/usr/bin/env bash
# Out of file descriptors (profd under ulimit -n 64 with max-connections
# far above it): accept() fails with EMFILE; profd pauses accepting
# instead of retrying at once forever (27 M warnings in 8 s, 63 % of a
# core before), logs the episode once, and answers again once
# connections close.
source "$TESTS_DIR/integration/lib.sh"
cat >"$T/profd-limited" <<EOS
#!/bin/sh
ulimit -n 64
exec "$PROFD" "\$@"
EOS
chmod +x "$T/profd-limited"
PROFD="$T/profd-limited" start_profd --max-connections 1000 \
    --header-timeout 300
# A connection made before the descriptors run out: profd answers on it
# all along (no descriptor needed), so its count of failed accepts is read
# while they fail.  Until it says N: each of them would have been a line
# in the log before.
N=10
PYTHONPATH="$TESTS_DIR/tools" python3 - "$SOCK" "$T" "$N" >"$T/watch.out" 2>&1 <<'EOF' &
import json, os, sys
from sockhttp import connect, get, until
path, t, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
a = connect(path)
def health():
    return json.loads(get(a, b"/v1/health")[1])["http"]
health()
open(os.path.join(t, "watching"), "w").close()
until("the holder to connect", lambda: os.path.exists(os.path.join(t, "held")),
      step=0.05)
h = until("%d failed accepts" % n,
          lambda: (lambda h: h if h["accept_errors"] >= n else None)(health()))
print("%d failed accepts, accepting paused: %s" % (h["accept_errors"],
                                                   h["accept_paused"]))
EOF
watcher=$!
WAIT_S=300 wait_until "the watching connection" test -e "$T/watching"
python3 "$TESTS_DIR/integration/http_attack.py" hold "$SOCK" 120 \
    "$T/held" &
holder=$!
WAIT_S=300 wait_until "the holder to connect" test -f "$T/held"
echo "client holds $(cat "$T/held") connections"
# profd has run out.  Before, each failed accept() was retried at once
# and logged (187,000 lines/s, half a core); now accepting pauses, and
# the episode is logged once, however many accepts fail.  CPU is printed,
# not asserted (speed).
ticks() { awk '{ print $14 + $15 }' "/proc/$PROFD_PID/stat"; }
t0=$(ticks)
wait "$watcher" || fail "the watching connection: $(cat "$T/watch.out")"
t1=$(ticks)
cat "$T/watch.out"
echo "CPU meanwhile: $((t1 - t0)) ticks ($(getconf CLK_TCK) a second)"
n=$(grep -c 'accept' "$T/profd.log" || true)
echo "accept lines while out of descriptors: $n"
grep 'accept' "$T/profd.log" | head -n 3
[ "$n" -ge 1 ] || fail "no accept warning (were descriptors exhausted?)"
[ "$n" -le 2 ] || fail "$n accept lines in the log for one episode"
[ "$(wc -c <"$T/profd.log")" -lt 4096 ] || fail "the log grew to $(wc -c <"$T/profd.log") bytes"
touch "$T/held.release"
wait "$holder"
health_again() {
	r=$(api GET /v1/health)
	[ "$(status_of "$r")" = 200 ]
}
WAIT_S=300 wait_until "health after the connections closed" health_again
body_of "$r" | json 'j["http"]["accept_errors"] > 0' | has -x True ||
	fail "accept_errors not counted: $(body_of "$r")"
has 'accept: working again' <"$T/profd.log" ||
	fail "the end of the episode is not logged"
ok "paused on EMFILE and answered again"
