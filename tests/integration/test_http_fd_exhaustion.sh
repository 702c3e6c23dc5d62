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
python3 "$TESTS_DIR/integration/http_attack.py" hold "$SOCK" 120 \
    "$T/held" &
holder=$!
for _ in $(seq 1 600); do
	[ -f "$T/held" ] && break
	sleep 0.05
done
[ -f "$T/held" ] || fail "the holder did not connect"
echo "client holds $(cat "$T/held") connections"
# profd has run out.  Before, each failed accept() was retried at once
# and logged (187,000 lines/s, half a core); now accepting pauses, and
# the episode is logged once.  CPU is printed, not asserted (speed).
ticks() { awk '{ print $14 + $15 }' "/proc/$PROFD_PID/stat"; }
t0=$(ticks)
sleep 2
t1=$(ticks)
echo "CPU over 2 s: $((t1 - t0)) ticks of $((2 * $(getconf CLK_TCK)))"
n=$(grep -c 'accept' "$T/profd.log" || true)
echo "accept lines while out of descriptors: $n"
grep 'accept' "$T/profd.log" | head -n 3
[ "$n" -ge 1 ] || fail "no accept warning (were descriptors exhausted?)"
[ "$n" -le 2 ] || fail "$n accept lines in the log for one episode"
[ "$(wc -c <"$T/profd.log")" -lt 4096 ] || fail "the log grew to $(wc -c <"$T/profd.log") bytes"
touch "$T/held.release"
wait "$holder"
for _ in $(seq 1 200); do
	r=$(api GET /v1/health)
	[ "$(status_of "$r")" = 200 ] && break
	sleep 0.05
done
[ "$(status_of "$r")" = 200 ] || fail "no health after the connections closed"
body_of "$r" | json 'j["http"]["accept_errors"] > 0' | has -x True ||
	fail "accept_errors not counted: $(body_of "$r")"
has 'accept: working again' <"$T/profd.log" ||
	fail "the end of the episode is not logged"
ok "paused on EMFILE and answered again"
