# profctl web under load (issue 25): an idle or slow connection costs a
# slot and a deadline, never a thread.  With 300 idle connections open
# (half sent half a request head, half nothing), a UI file and an API call
# forwarded to profd are still answered, while the idle connections are
# held (the thread-per-connection server answered nothing until they timed
# out, a minute); the oldest idle connections were closed for new ones,
# the newest at the head deadline (5 s).  A head trickled a byte at a time
# is closed at that deadline too, and a request that finds every worker
# busy and the queue full is 503 at once.  Nothing is timed but from
# below (a deadline cannot fire early); web_load.py says how.
. "$(dirname "$0")/lib.sh"
WEB=$TESTS_DIR/../web
WEB_PID=

stop_web() {
	if [ -n "$WEB_PID" ]; then
		kill "$WEB_PID" 2>/dev/null || true
		wait "$WEB_PID" 2>/dev/null || true
	fi
	WEB_PID=
}
trap 'stop_web; cleanup' EXIT

start_profd
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope fx >/dev/null
"$PROFCTL" web >"$T/web.out" 2>"$T/web.err" &
WEB_PID=$!
wait_until "profctl web's URL" grep -q . "$T/web.out"
URL=$(head -n 1 "$T/web.out")
BASE=${URL%/\?token=*}
TOKEN=${URL#*\?token=}
PORT=${BASE##*:}

load() {
	python3 "$TESTS_DIR/integration/web_load.py" "$1" "$PORT" "$TOKEN" \
	    "${@:2}" || fail "$1 (profctl web: $(cat "$T/web.err"))"
}

load flood "$WEB/index.html"
ok "answered with 300 idle connections open; idle ones closed"
load slowloris
ok "a head a byte at a time closed at the head deadline"
load busy "$SOCK"
ok "503 when every worker is busy and the queue is full"
kill -0 "$WEB_PID" || fail "profctl web is gone"
