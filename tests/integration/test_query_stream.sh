# POST /v1/query replies are streamed, paced by the client and capped:
# a result past max_bytes ends in the documented error members (or is a
# 413 when that happens within the first chunk), profctl query reports it
# as an error, a time limit hit mid-reply ends the same way (503 inside),
# profctl prints a reply of 72 MB in a few MB of memory, and clients that
# do not read a large reply hold a bounded amount of profd's memory while
# health is still answered.
. "$(dirname "$0")/lib.sh"

start_profd --query-threads 4

# rows N PAD: N rows of (x, PAD hex digits).
rows() {
	echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $1) SELECT x, hex(zeroblob($(( $2 / 2 )))) AS pad FROM c"
}

# Every query has a time limit, counted while its client reads (5 s
# unless it says): where the limit is not what is tested, a query asks for
# the most there is (60 s), so a loaded machine does not run into it.
TMO=60000

# post PARAMS SQL OUT: the reply's body into OUT; prints the status.
post() {
	local q=$1
	case $q in *timeout_ms=*) ;; *) q="$q&timeout_ms=$TMO" ;; esac
	curl -s --unix-socket "$SOCK" -X POST -o "$3" -w '%{http_code}' \
	    -H 'Content-Type: text/plain' "http://localhost/v1/query?$q" \
	    --data-binary "$2"
}

# A reply of many chunks that fits: every row, in order, and no error.
st=$(post "max_rows=1000000" "$(rows 20000 280)" "$T/full.json")
[ "$st" = 200 ] || fail "a 6 MB reply: $st $(head -c 300 "$T/full.json")"
python3 - "$T/full.json" <<'PY' || fail "the 6 MB reply is not the result"
import json, sys
j = json.load(open(sys.argv[1]))
assert "error" not in j, j.get("detail")
assert j["columns"] == ["x", "pad"] and j["truncated"] is False
assert j["rows"] == [[i, "0" * 280] for i in range(1, 20001)]
PY
ok "a reply of $(wc -c <"$T/full.json") bytes streams whole"

# Its end arrives every time, on a kept-alive connection (curl) and on one
# the client asks to close (profctl): the reply's end may still be in the
# connection's buffers when the work is done.
for i in 1 2 3 4 5 6; do
	st=$(post "max_rows=1000000" "$(rows 20000 280)" "$T/again.json")
	[ "$st" = 200 ] && python3 - "$T/full.json" "$T/again.json" <<'PY' ||
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
a.pop("elapsed_ms"); b.pop("elapsed_ms")
assert a == b
PY
	    fail "reply $i of 6 MB: $st, $(wc -c <"$T/again.json") bytes"
	"$PROFCTL" query --max-rows 1000000 --timeout-ms "$TMO" \
	    "$(rows 20000 280)" \
	    >"$T/again.txt" 2>"$T/err" ||
	    fail "profctl query $i of 6 MB: $(cat "$T/err")"
	has -x '(20000 rows)' <"$T/err" && tail -1 "$T/again.txt" |
	    grep -q '^20000 ' ||
	    fail "profctl query $i of 6 MB: $(cat "$T/err")"
done
ok "6 MB replies end whole, kept alive and closed (6 + 6)"

# profctl prints a reply as it streams in: a 72 MB result goes through a
# few MB of it, even as a table (whose cells wait in a temporary file for
# the widths; CSV and JSON print each row as it comes).  profctl read the
# whole reply and parsed it before, some four times the reply: twice the
# bound below would do to tell, and a larger reply (230 MB before) comes
# too slowly on a loaded machine for the longest time limit.  Its peak is
# the kernel's, at its exit (wait4's ru_maxrss: VmHWM), not sampled.
python3 - "$T/peak" "$PROFCTL" query --max-rows 1000000 --timeout-ms "$TMO" \
    "$(rows 250000 280)" >"$T/big.out" 2>"$T/err" <<'EOF' ||
import os, subprocess, sys
p = subprocess.Popen(sys.argv[2:])
_, status, ru = os.wait4(p.pid, 0)
p.returncode = os.waitstatus_to_exitcode(status)
open(sys.argv[1], "w").write("%d\n" % ru.ru_maxrss)
sys.exit(p.returncode)
EOF
    fail "profctl query of 72 MB: $(cat "$T/err")"
peak=$(cat "$T/peak")
[ "$(wc -l <"$T/big.out")" = 250001 ] && has -x '(250000 rows)' "$T/err" &&
    tail -1 "$T/big.out" | grep -q '^250000  0000' ||
    fail "profctl query of 72 MB: $(tail -c 300 "$T/big.out")"
# ASan's quarantine keeps freed chunks: memory is only measured without.
if grep -q '^PROFD_SANITIZE:BOOL=ON' "${BUILD_DIR:-.}/CMakeCache.txt" \
    2>/dev/null; then
	echo "sanitizer build: profctl's VmHWM not checked"
else
	[ "$peak" -lt $(( 32 * 1024 )) ] ||
	    fail "profctl query of 72 MB: peak RSS $peak kB"
fi
ok "profctl query: a table of $(wc -c <"$T/big.out") bytes, peak RSS $peak kB"
rm -f "$T/big.out"

# Past max_bytes after the first chunk: 200, then the error members; only
# complete rows, in order; the body within max_bytes + 8 KiB.
st=$(post "max_rows=1000000&max_bytes=1048576" "$(rows 100000 280)" \
    "$T/cap.json")
[ "$st" = 200 ] || fail "max_bytes mid-reply: $st"
python3 - "$T/cap.json" <<'PY' || fail "the capped reply does not end as documented: $(tail -c 300 "$T/cap.json")"
import json, os, sys
size = os.path.getsize(sys.argv[1])
j = json.load(open(sys.argv[1]))
assert size <= 1048576 + 8192, size
assert j["error"] == "too large" and j["status"] == 413, j
assert j["truncated"] is True
n = len(j["rows"])
assert 1000 < n < 100000, n
assert j["detail"] == ("the reply reached its size limit (max_bytes = "
    "1048576) after %d rows" % n), j["detail"]
assert j["rows"] == [[i, "0" * 280] for i in range(1, n + 1)]
PY
ok "past max_bytes: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["detail"])' "$T/cap.json")"

# Past max_bytes within the first chunk: an ordinary 413.
st=$(post "max_rows=1000000&max_bytes=2000" "$(rows 100000 280)" \
    "$T/small.json")
[ "$st" = 413 ] || fail "max_bytes in the first chunk: $st $(cat "$T/small.json")"
json 'j["detail"]' <"$T/small.json" | has 'max_bytes = 2000' ||
    fail "413 detail: $(cat "$T/small.json")"
ok "past max_bytes in the first chunk: 413"
st=$(post "max_bytes=1023" "SELECT 1" "$T/bad.json")
[ "$st" = 400 ] || fail "max_bytes=1023: $st"

# profctl query reports a reply cut by max_bytes as an error: exit 1, the
# detail, no rows in a table; as CSV the rows that came before it.
rc=0
"$PROFCTL" query --max-rows 1000000 --max-bytes 1048576 --timeout-ms "$TMO" \
    "$(rows 100000 280)" \
    >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] || fail "profctl query past max_bytes exited $rc: $(cat "$T/err")"
has 'too large: the reply reached its size limit (max_bytes = 1048576)' \
    "$T/err" || fail "profctl query message: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "profctl query printed rows of a failed reply"
ok "profctl query: $(cat "$T/err")"
rc=0
"$PROFCTL" query --csv --max-rows 1000000 --max-bytes 1048576 \
    --timeout-ms "$TMO" \
    "$(rows 100000 280)" >"$T/out" 2>"$T/err" || rc=$?
n=$(sed -n 's/.* the \([0-9]*\) rows before it were printed)$/\1/p' "$T/err")
[ "$rc" = 1 ] && [ -n "$n" ] && [ "$(wc -l <"$T/out")" = $((n + 1)) ] &&
    tail -1 "$T/out" | grep -q "^$n,0000" ||
    fail "profctl query --csv past max_bytes: $rc $(cat "$T/err")"
ok "profctl query --csv past max_bytes: the $n rows before the error"

# The time limit hit after the first chunk went: the same ending, 503.
slow="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
SELECT x, CASE WHEN x < 1000 THEN hex(zeroblob(140)) ELSE
  (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r)
END FROM c"
st=$(post "timeout_ms=2000" "$slow" "$T/slow.json")
[ "$st" = 200 ] || fail "time limit mid-reply: $st $(head -c 300 "$T/slow.json")"
python3 - "$T/slow.json" <<'PY' || fail "the timed-out reply does not end as documented: $(tail -c 300 "$T/slow.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["error"] == "timeout" and j["status"] == 503, j
assert j["detail"] == ("the query ran longer than its time limit "
    "(timeout_ms = 2000)"), j["detail"]
assert j["rows"] == [[i, "0" * 280] for i in range(1, 1000)], len(j["rows"])
PY
rc=0
"$PROFCTL" query --timeout-ms 2000 "$slow" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] && has 'timeout: the query ran longer' "$T/err" ||
    fail "profctl query past the time limit mid-reply: $rc $(cat "$T/err")"
ok "time limit mid-reply: 200 with error timeout/503; profctl exits 1"

# Four clients send a query whose reply would be 268 MB and read nothing
# but its first bytes.  profd must not hold their replies: its RSS stays
# bounded while they stall, and health is answered all the while.  The
# peak is the kernel's high-water mark (VmHWM, reset as they begin), not a
# sample that may miss it.
rss_kb() { awk "/^$1:/ { print \$2 }" "/proc/$PROFD_PID/status"; }
base=$(rss_kb VmRSS)
echo 5 >"/proc/$PROFD_PID/clear_refs" || fail "cannot reset profd's VmHWM"
python3 - "$SOCK" "$T" "$(rows 1000000 280)" <<'PY' &
import os, socket, sys, time
sock, tmp, sql = sys.argv[1], sys.argv[2], sys.argv[3].encode()
conns = []
for _ in range(4):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    s.sendall(b"POST /v1/query?max_rows=1000000&timeout_ms=60000 HTTP/1.1\r\n"
              b"Host: localhost\r\nContent-Type: text/plain\r\n"
              b"Content-Length: %d\r\n\r\n" % len(sql) + sql)
    conns.append(s)
for s in conns:
    s.settimeout(120)
    # The status line: the reply has begun.  Nothing is taken off.
    if not s.recv(16, socket.MSG_PEEK).startswith(b"HTTP/1.1 200"):
        sys.exit("no 200")
open(os.path.join(tmp, "stalled"), "w").close()
# Until told, or until the test is gone (it failed and cleaned up).
while (not os.path.exists(os.path.join(tmp, "release")) and
       os.path.exists(tmp)):
    time.sleep(0.05)
for s in conns:
    s.close()
PY
stallers=$!
for _ in $(seq 1 2400); do
	[ -e "$T/stalled" ] && break
	kill -0 "$stallers" 2>/dev/null || fail "the stalling clients gave up"
	sleep 0.05
done
[ -e "$T/stalled" ] || fail "the stalling clients never saw a reply begin"
# A fifth query, while the four hold every query thread (--query-threads
# 4): it waits for one of them to end.
curl -s --max-time 300 --unix-socket "$SOCK" -X POST -o "$T/after.json" \
    -w '%{http_code}' http://localhost/v1/query --data-binary \
    "SELECT count(*) FROM profiles" >"$T/after.status" &
after=$!
queued() {
	[ "$(body_of "$(api GET /v1/health)" | json 'j["query_queue_depth"]')" -ge 1 ]
}
WAIT_S=300 wait_until "the fifth query in the queue" queued
# Health while they stall (an unpaced profd would fill its memory with
# their replies meanwhile: the high-water mark keeps what it took).
for i in $(seq 1 20); do
	r=$(api GET /v1/health)
	[ "$(status_of "$r")" = 200 ] || fail "health while 4 clients stall: $r"
done
peak=$(rss_kb VmHWM)
[ $(( peak - base )) -lt $(( 150 * 1024 )) ] ||
    fail "profd grew from $base kB to $peak kB with 4 clients not reading"
ok "4 clients not reading 268 MB replies: RSS $base -> $peak kB at most; health answered"

# Once they close, the query threads are free again: the fifth query,
# still waiting as they close (none of theirs ended on its own), is
# answered.
queued || fail "the fifth query no longer waits: a stalled query ended"
touch "$T/release"
wait "$stallers" || fail "the stalling clients failed"
wait "$after" || fail "a query after the stall: $(cat "$T/after.json")"
[ "$(cat "$T/after.status")" = 200 ] ||
    fail "a query after the stall: $(cat "$T/after.status") $(cat "$T/after.json")"
ok "the stalled queries ended with their clients"

stop_profd
ok "stopped cleanly"
