#!/usr/bin/env bash
# Every read is bounded and cancellable (issue 40, findings 3 and 4):
# (a) a read past query-timeout stops and is answered 504 naming it, and
#     its query thread is free (SQLite interrupted: a loop with no end);
# (b) a streamed reply the client does not read stops being produced at
#     query-timeout, while the client still holds its connection: the one
#     query thread answers the next read, and the reply read later ends
#     with the 504 after about a megabyte;
# (c) a client that leaves while its read runs stops it, and one that
#     leaves while its read waits for the thread has it dropped: the
#     counter of /v1/status says so and the one thread answers next;
# (d) readers on the TCP listener never take the last query thread: with
#     two threads and three of Grafana's calls held (a ClickHouse that
#     does not answer them, tests/tools/holdch.py), one runs, two wait,
#     and a view on the socket is answered while they are still held;
#     when they leave, the running one is stopped (its ClickHouse
#     question cancelled) and the waiting ones dropped;
# (e) Grafana's calls past query-timeout, the one running and the one
#     waiting for a thread, are Connect's deadline_exceeded.
# No clock is watched: each step waits for the condition it needs
# (profd's counters, the stand-in's held questions), bounded against a
# hang only.
source "$TESTS_DIR/integration/lib.sh"
export PYTHONPATH="$TESTS_DIR/tools"

# No end but an interrupt: SQLite's progress handler is what stops it.
LOOP="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
views() { body_of "$(api GET /v1/status)" | json "j['views']['$1']"; }
views_are() { [ "$(views "$1")" = "$2" ]; }
top_ok() {
	local r
	r=$(api GET "/v1/top?scope=cpu")
	[ "$(status_of "$r")" = 200 ] || fail "GET /v1/top: $r"
}

# (a) query-timeout.
start_profd --query-threads 1 --query-timeout 2
r=$(api POST "/v1/profiles?scope=cpu" --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 201 ] || fail "push: $r"
r=$(api POST "/v1/query?timeout_ms=60000" --data-binary "$LOOP")
[ "$(status_of "$r")" = 504 ] || fail "a query past query-timeout: $r"
body_of "$r" | json '(j["error"] == "deadline exceeded" and
    "query-timeout (2 s)" in j["detail"])' | grep -qx True ||
	fail "the 504 does not name query-timeout: $r"
[ "$(views timed_out)" = 1 ] || fail "views.timed_out is not 1"
top_ok
ok "a read past query-timeout: 504 naming it; the one query thread answers next"

# (b) A client that reads nothing of a large streamed reply.
python3 - "$SOCK" "$T" <<'PY' &
import os, socket, sys, sockhttp
sock, tmp = sys.argv[1], sys.argv[2]
sql = (b"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
       b"WHERE x < 1000000) SELECT x, hex(zeroblob(500)) FROM c")
s = sockhttp.connect(sock)
s.sendall(b"POST /v1/query?max_rows=1000000&timeout_ms=60000 HTTP/1.1\r\n"
          b"Host: localhost\r\nContent-Length: %d\r\n\r\n" % len(sql) + sql)
if not s.recv(16, socket.MSG_PEEK).startswith(b"HTTP/1.1 200"):
    sys.exit("the reply did not begin")
open(os.path.join(tmp, "began"), "w").close()
sockhttp.until("the test's word", lambda: os.path.exists(
    os.path.join(tmp, "read")))
data = b""
while not data.endswith(b"\r\n0\r\n\r\n"):
    d = s.recv(1 << 20)
    if not d:
        sys.exit("closed before the reply's end")
    data += d
if b'"status":504' not in data or b"query-timeout (2 s)" not in data:
    sys.exit("the reply does not end with the 504: %r" % data[-400:])
# The work stopped while unread: the reply holds what it had written by
# then (the stream's megabyte and a chunk), not its 1 GB.
if len(data) > (16 << 20):
    sys.exit("%d bytes were produced for a client that read none"
             % len(data))
print("reply: %d bytes, then the 504" % len(data))
PY
reader=$!
wait_until "the stream's first bytes" test -e "$T/began"
WAIT_S=300 wait_until "the unread stream to stop" views_are timed_out 2
kill -0 "$reader" 2>/dev/null || fail "the client not reading is gone"
top_ok
touch "$T/read"
wait "$reader" || fail "the unread reply"
ok "a reply not read stops at query-timeout, its thread free while the client holds on"

# (c) Clients that leave.
stop_profd
start_profd --query-threads 1 --query-timeout 600
python3 - "$SOCK" "$LOOP" <<'PY' || fail "clients leaving"
import sys, sockhttp
sock, sql = sys.argv[1], sys.argv[2].encode()

def status():
    return sockhttp.ask(sock, "/v1/status")

def query(sql):
    s = sockhttp.connect(sock)
    s.sendall(b"POST /v1/query?timeout_ms=60000 HTTP/1.1\r\n"
              b"Host: localhost\r\nContent-Length: %d\r\n\r\n"
              % len(sql) + sql)
    return s

running = query(sql)
sockhttp.until("the query to run",
    lambda: status()["views"]["running"] == 1)
waiting = query(sql)
sockhttp.until("the second query to wait",
    lambda: status()["query_queue"] == 1)
waiting.close()
running.close()
sockhttp.until("both reads cancelled",
    lambda: status()["views"]["cancelled"] == 2)
st = status()
assert st["views"]["running"] == 0 and st["query_queue"] == 0, st
s = sockhttp.connect(sock)
line, body = sockhttp.get(s, b"/v1/top?scope=cpu")
assert line.startswith(b"HTTP/1.1 200"), (line, body)
PY
ok "a client leaving stops its running read; one leaving the queue has its read dropped"

# (d) The TCP listener's readers and the socket's views.
stop_profd
mkdir "$T/ch"
python3 "$TESTS_DIR/tools/holdch.py" "$T/ch" &
ch=$!
trap 'kill "$ch" 2>/dev/null || true; cleanup' EXIT
wait_until "the ClickHouse stand-in" test -s "$T/ch/port"
TOKEN=0123456789abcdef0123456789abcdef
fleet_flags=(--db "$T/fleet.db" --fleet-url "http://127.0.0.1:$(cat "$T/ch/port")"
    --grafana-source fleet --listen-tcp 127.0.0.1:0 --tcp-read-token "$TOKEN")
start_profd --query-threads 2 --query-timeout 600 "${fleet_flags[@]}"
python3 - "$SOCK" "$(tcp_port)" "$TOKEN" "$T/ch" <<'PY' || fail "TCP readers"
import os, socket, sys, sockhttp
sock, port, token, ch = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
body = (b'{"profileTypeID":"process_cpu:cpu:nanoseconds:cpu:nanoseconds",'
        b'"labelSelector":"{service_name=\\"hold\\"}","start":0,'
        b'"end":3000000000000}')

def status():
    return sockhttp.ask(sock, "/v1/status")

def held():
    return int(open(os.path.join(ch, "held")).read())

readers = []
for _ in range(3):
    s = socket.create_connection(("127.0.0.1", port), timeout=sockhttp.HANG_S)
    s.sendall(b"POST /querier.v1.QuerierService/SelectMergeStacktraces "
              b"HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
              b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
              % (token.encode(), len(body)) + body)
    readers.append(s)
# One runs, held by ClickHouse (its questions of the scope, asked at
# once: one or more held); two wait: the last thread is not theirs.
sockhttp.until("one reader held, two waiting",
    lambda: held() >= 1 and status()["views"]["waiting"] == 2)
st = status()["views"]
assert st["running"] == 1, st
# A fleet view on the socket: it runs on the thread left, and is answered.
s = sockhttp.connect(sock)
line, reply = sockhttp.get(s, b"/v1/scopes?fleet=1")
assert line.startswith(b"HTTP/1.1 200") and b'"hold"' in reply, (line, reply)
st = status()["views"]
assert held() >= 1 and st["running"] == 1 and st["waiting"] == 2, st
print("socket view answered while TCP readers held: %s" % st)
# They leave: the running one is stopped (the stand-in sees its question
# go), the waiting ones are dropped.
for r in readers:
    r.close()
sockhttp.until("the readers' reads cancelled",
    lambda: status()["views"]["cancelled"] == 3 and held() == 0)
st = status()["views"]
assert st["running"] == 0 and st["waiting"] == 0, st
PY
ok "TCP readers leave a query thread to the socket; leaving, their reads stop"

# (e) Grafana's calls past query-timeout: the one that runs (held by
# ClickHouse) and the one that waits for the thread left to guests.
stop_profd
start_profd --query-threads 2 --query-timeout 2 "${fleet_flags[@]}"
python3 - "$(tcp_port)" "$TOKEN" <<'PY' || fail "calls past query-timeout"
import json, socket, sys, sockhttp
port, token = int(sys.argv[1]), sys.argv[2].encode()
body = (b'{"profileTypeID":"process_cpu:cpu:nanoseconds:cpu:nanoseconds",'
        b'"labelSelector":"{service_name=\\"hold\\"}","start":0,'
        b'"end":3000000000000}')
calls = []
for _ in range(2):
    s = socket.create_connection(("127.0.0.1", port), timeout=sockhttp.HANG_S)
    s.sendall(b"POST /querier.v1.QuerierService/SelectMergeStacktraces "
              b"HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
              b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
              % (token, len(body)) + body)
    calls.append(s)
for s in calls:
    line, reply = sockhttp.reply(s)
    j = json.loads(reply)
    assert line.startswith(b"HTTP/1.1 504") and \
        j["code"] == "deadline_exceeded" and \
        "query-timeout (2 s)" in j["message"], (line, reply)
PY
held_none() { [ "$(cat "$T/ch/held")" = 0 ]; }
wait_until "the held question let go" held_none
[ "$(views timed_out)" = 2 ] || fail "views.timed_out is not 2"
ok "Grafana's calls past query-timeout, run or waiting: 504 deadline_exceeded; ClickHouse's question cancelled"
