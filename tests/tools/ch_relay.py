#!/usr/bin/env python3
"""ch_relay.py DIR BACKEND_PORT: an HTTP relay in front of a ClickHouse
server's HTTP port on 127.0.0.1, that can refuse inserts into one table:
a shard that goes away in the middle of a batch, after some of its
INSERTs were taken and before the others.

Writes its port to DIR/port once it listens.  While DIR/refuse exists,
an INSERT INTO any database's table named there (the file's first
line, e.g. "stack_frames") is answered 503 without reaching ClickHouse,
and DIR/refused holds how many were (the file replaced whole, for a
test to wait on); everything else goes to ClickHouse and its answer
back, status and body.  Runs until killed."""
import http.client
import http.server
import os
import re
import sys
import threading
import urllib.parse

DIR = sys.argv[1]
BACKEND = int(sys.argv[2])
lock = threading.Lock()
refused = 0


def refused_table():
    try:
        with open(os.path.join(DIR, "refuse")) as f:
            return f.readline().strip()
    except OSError:
        return None


def note():
    tmp = os.path.join(DIR, "refused.tmp")
    with open(tmp, "w") as f:
        f.write("%d\n" % refused)
    os.rename(tmp, os.path.join(DIR, "refused"))


class Relay(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def relay(self):
        global refused
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n > 0 else b""
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        sql = q.get("query", [""])[0] or body[:200].decode(errors="replace")
        table = refused_table()
        if table and re.match(r"\s*INSERT\s+INTO\s+[\w.]*\b%s\b" %
                              re.escape(table), sql, re.I):
            with lock:
                refused += 1
                note()
            self.answer(503, b"Code: 210. ch_relay: the shard is away\n")
            return
        up = http.client.HTTPConnection("127.0.0.1", BACKEND, timeout=300)
        try:
            up.request(self.command, self.path, body, {
                "Content-Length": str(len(body))})
            r = up.getresponse()
            self.answer(r.status, r.read())
        except OSError as e:
            self.answer(502, ("ch_relay: %s\n" % e).encode())
        finally:
            up.close()

    def answer(self, status, data):
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = relay


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Relay)
srv.daemon_threads = True
tmp = os.path.join(DIR, "port.tmp")
with open(tmp, "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(tmp, os.path.join(DIR, "port"))
srv.serve_forever()
