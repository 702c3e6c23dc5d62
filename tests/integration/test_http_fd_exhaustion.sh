#!/usr/bin/env bash
# Out of file descriptors (profd under ulimit -n 64 with max-connections
# far above it): accept() fails with EMFILE; profd pauses accepting
# instead of retrying at once forever (27 M warnings in 8 s, 63 % of a
# core before), and answers again once connections close.
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
# profd has run out: the warnings must stay few and the CPU idle.
ticks() { awk '{ print $14 + $15 }' "/proc/$PROFD_PID/stat"; }
t0=$(ticks)
sleep 2
t1=$(ticks)
hz=$(getconf CLK_TCK)
echo "CPU over 2 s: $((t1 - t0)) ticks of $((2 * hz))"
[ $((t1 - t0)) -lt $((hz / 2)) ] ||
	fail "profd used $((t1 - t0)) ticks in 2 s while out of descriptors"
n=$(grep -c 'accept' "$T/profd.log" || true)
echo "accept warnings: $n"
grep 'accept' "$T/profd.log" | head -n 3
[ "$n" -ge 1 ] || fail "no accept warning (were descriptors exhausted?)"
[ "$n" -le 5 ] || fail "$n accept warnings in the log"
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
ok "paused on EMFILE and answered again"
