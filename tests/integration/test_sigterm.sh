#!/usr/bin/env bash
# SIGTERM during a long import: profd rolls the import back (or, if it was
# already done, keeps all of it), exits 0 without waiting for the import to
# run its course, and the store is whole: no partial profile, and the same
# file pushed again after a restart is stored once.
source "$TESTS_DIR/integration/lib.sh"
[ -x "$BUILD_DIR/gen-trace" ] || { echo "skip: no gen-trace"; exit 77; }

"$BUILD_DIR/gen-trace" "$T/big.pftrace" $((96 << 20)) 2>"$T/gen.txt"
samples=$(sed -n 's/.* \([0-9]*\) samples$/\1/p' "$T/gen.txt")
[ -n "$samples" ] || fail "gen-trace: $(cat "$T/gen.txt")"
# shutdown-timeout is the bounded stop's deadline, not what is tested
# here (test_shutdown tests it): the rollback must not race it, so that a
# loaded machine (a sanitizer build, both cores busy) still sees profd
# roll the import back and exit 0 rather than give up at the deadline.
start_profd --shutdown-timeout 300

# Over 32 MiB profctl uploads in chunks and the import reads the file.
"$PROFCTL" push "$T/big.pftrace" --scope big >"$T/push.out" 2>&1 &
push_pid=$!
# Until the import runs (the upload comes first) or the push is over: a
# fast machine may import it all before it is seen, and the test takes
# either outcome.
importing_or_done() {
	! kill -0 "$push_pid" 2>/dev/null ||
	    api GET /v1/health | sed '$d' | json 'j["importing"]' | has -x True
}
WAIT_S=600 wait_until "the import or the end of the push" importing_or_done
t0=$(date +%s%N)
kill -TERM "$PROFD_PID"
wait "$PROFD_PID" || fail "profd exited non-zero on SIGTERM"
ms=$((($(date +%s%N) - t0) / 1000000))
PROFD_PID=
set +e
wait "$push_pid"
push_rc=$?
set -e

if [ "$push_rc" != 0 ]; then
	# The client is told, with a 503 it may retry.
	has "profd is stopping: the import was rolled back" "$T/push.out" ||
		fail "push: $(cat "$T/push.out")"
	expect=0
	ok "SIGTERM rolled the import back; profd exited after ${ms} ms"
else
	# The import had finished: it is there, whole.
	expect=1
	ok "the import finished before SIGTERM reached it"
fi
start_profd
n=$(api GET "/v1/profiles?scope=big" | sed '$d' |
    json 'len(j["profiles"])' 2>/dev/null || echo 0)
[ "$n" = "$expect" ] || fail "$n profiles stored, expected $expect"
"$PROFCTL" push "$T/big.pftrace" --scope big >"$T/push2.out" 2>&1 ||
	fail "push after restart: $(cat "$T/push2.out")"
body=$(api GET "/v1/profiles?scope=big" | sed '$d')
[ "$(printf '%s' "$body" | json 'len(j["profiles"])')" = 1 ] ||
	fail "profiles after the second push: $body"
[ "$(printf '%s' "$body" | json 'j["profiles"][0]["samples"]')" = "$samples" ] ||
	fail "samples stored: $body, generated $samples"
stop_profd
ok "after a restart the trace is stored once, with all $samples samples"
