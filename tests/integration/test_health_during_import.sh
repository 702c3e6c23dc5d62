# A slow import must not delay GET /v1/health: the event loop never waits
# for the import thread.  While a large profile imports, health is asked
# repeatedly and each answer must come quickly and report the import.
. "$(dirname "$0")/lib.sh"
[ -x "$BUILD_DIR/gen-trace" ] || { echo "skip: no gen-trace"; exit 77; }

# A Perfetto trace of 128 MiB: about 2.7 M samples, a second or more of
# import (a generated pprof of 60 000 samples became too quick to see).
"$BUILD_DIR/gen-trace" "$T/big.pftrace" $((128 << 20)) 2>"$T/gen.txt" ||
    fail "gen-trace: $(cat "$T/gen.txt")"
start_profd

"$PROFCTL" push "$T/big.pftrace" --scope big >"$T/push.out" 2>&1 &
push_pid=$!

seen_importing=0
worst=0
for _ in $(seq 1 400); do
	t=$(curl -s -o "$T/h.json" -w '%{time_total}' --unix-socket "$SOCK" \
	    http://localhost/v1/health) || fail "health did not answer"
	ms=$(python3 -c "print(int(float('$t') * 1000))")
	if [ "$(json 'j["importing"]' <"$T/h.json")" = True ]; then
		seen_importing=$((seen_importing + 1))
		[ "$ms" -gt "$worst" ] && worst=$ms
	fi
	kill -0 "$push_pid" 2>/dev/null || break
	sleep 0.02
done
wait "$push_pid" || fail "push failed: $(cat "$T/push.out")"
[ "$seen_importing" -ge 5 ] ||
    fail "the import was too quick to test ($seen_importing health calls saw it)"
# Generous against a loaded CI machine; a blocked loop takes seconds.
[ "$worst" -lt 500 ] || fail "health took ${worst} ms during the import"
ok "health answered $seen_importing times during the import, worst ${worst} ms"
grep -q "stored as profile" "$T/push.out" || fail "push: $(cat "$T/push.out")"
