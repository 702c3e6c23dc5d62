# Web pages of other origins cannot write or read through any face of
# profd (issue 25, item 3), in real headless Chromium.  The browser has
# opened profctl web from the URL it printed and profd's page through the
# socket's `ssh -L`-style forward, and those pages push (the controls:
# profd's own UI code gets 201 on both; curl, no browser, gets 201 and
# 200 through the forward and the TCP listener with the very bodies the
# attacks send).  Then a page on another loopback port and a page on a
# foreign name resolved to 127.0.0.1 (a rebound DNS name) each push,
# push with the UI's headers, and read, through the forward, the TCP
# listener and profctl web, on 127.0.0.1, localhost and the foreign name:
# nothing is stored, nothing is read, the token is nowhere in what the
# pages saw, and the refusals are counted.  The browser sends profctl
# web's cookie to the other port's server (cookies ignore ports): with
# it no API call is answered.  Skips (77) without chromium, node or npm.
. "$(dirname "$0")/lib.sh"
need_playwright
PIDS=
trap 'kill $PIDS 2>/dev/null; cleanup' EXIT

start_profd --listen-tcp 127.0.0.1:0
TPORT=$(tcp_port)
python3 "$TESTS_DIR/tools/sockfwd.py" "$SOCK" "$T/fwd.port" &
PIDS="$PIDS $!"
mkdir -p "$T/evil"
python3 "$TESTS_DIR/tools/evilpage.py" "$T/evil.port" "$T/evil" &
PIDS="$PIDS $!"
"$PROFCTL" web >"$T/web.out" 2>"$T/web.err" &
PIDS="$PIDS $!"
wait_until "the forward, the other origin's server and profctl web" \
    test -s "$T/fwd.port" -a -s "$T/evil.port" -a -s "$T/web.out"
FPORT=$(cat "$T/fwd.port")
EPORT=$(cat "$T/evil.port")
URL=$(head -n 1 "$T/web.out")
TOKEN=${URL#*\?token=}
WBASE=${URL%/\?token=*}
WPORT=${WBASE##*:}

# The controls: the attacks' bodies, from a client that is not a browser.
printf 'evil;xo 1\n' >"$T/body"
r=$(curl -s -w '%{http_code}' -o "$T/out" -H 'Content-Type: text/plain;charset=UTF-8' \
    --data-binary @"$T/body" "http://127.0.0.1:$FPORT/v1/profiles?scope=ctl-curl")
[ "$r" = 201 ] || fail "curl through the forward: $r $(cat "$T/out")"
r=$(curl -s -w '%{http_code}' -o "$T/out" -H 'Content-Type: text/plain;charset=UTF-8' \
    --data-binary @"$T/body" "http://127.0.0.1:$TPORT/ingest?name=ctl-tcp.cpu&from=1700000000&until=1700000010")
[ "$r" = 200 ] || fail "curl to the TCP listener: $r $(cat "$T/out")"
ok "the controls: curl pushes the attacks' body through the forward (201) and to the TCP listener (200)"

PLAYWRIGHT_DIR="$NODE_DIR" CHROMIUM="$CHROMIUM" timeout 600 \
    node "$TESTS_DIR/tools/cross_origin.js" "$URL" "$FPORT" "$TPORT" \
    "$WPORT" "$EPORT" || fail "in the browser"

"$PROFCTL" scopes >"$T/scopes"
for s in ctl-curl ctl-tcp ctl-web ctl-page; do
	has -w "$s" "$T/scopes" || fail "control $s not stored: $(cat "$T/scopes")"
done
! has xo- "$T/scopes" || fail "a page of another origin stored: $(grep xo- "$T/scopes")"
ok "stored: the four controls; from the other origins: nothing"

# What the pages saw.
CSECRET=$(sed -n "s/.*profd_token_$WPORT=$WPORT\.\([0-9a-f]*\).*/\1/p" "$T/evil/cookies.txt" 2>/dev/null | head -n 1)
for label in lo ext; do
	[ -s "$T/evil/report-$label.json" ] || fail "no report from page $label"
	python3 - "$T/evil/report-$label.json" "$TOKEN" "$CSECRET" <<'PY' || fail "page $label"
import json, sys
rep = json.load(open(sys.argv[1]))
token, secret = sys.argv[2], sys.argv[3]
text = json.dumps(rep)
bad = []
if token in text:
    bad.append("the token is in what the page saw")
if secret and secret in text:
    bad.append("the cookie's secret is in what the page saw")
if "profd_token" in rep["cookie"] + rep["cookie_after"]:
    bad.append("document.cookie shows profctl web's cookie")
n = 0
for t in rep["tries"]:
    for k in ("push_headers", "read", "page"):
        if k in t:
            n += 1
            if not str(t[k]).startswith("failed"):
                bad.append("%s %s %s: %s" % (t["face"], t["host"], k, t[k]))
for b in bad:
    print("FAIL: " + b, file=sys.stderr)
print("   %s (%s): %d tries, %d reads and preflighted pushes, all failed"
      % (rep["label"], rep["origin"], len(rep["tries"]), n))
sys.exit(1 if bad else 0)
PY
done
ok "the pages read nothing, and saw neither the token nor the cookie"

h=$(api GET /v1/health | sed '$d' | json 'j["http"]["refused_origins"]')
t=$(api GET /v1/status | sed '$d' | json 'j["tcp"]["refused_origins"]')
[ "$h" -ge 4 ] && [ "$t" -ge 4 ] ||
    fail "refusals counted: socket and TCP together $h, TCP $t"
ok "refused as another origin's: $h requests on profd's faces, $t of them on TCP"

# Cookies ignore ports: the other port's server was sent profctl web's.
if [ -n "$CSECRET" ]; then
	C="profd_token_$WPORT=$WPORT.$CSECRET"
	for a in "" "-H X-Profd-UI:1"; do
		# shellcheck disable=SC2086
		r=$(curl -s -o /dev/null -w '%{http_code}' -b "$C" $a "$WBASE/v1/scopes")
		[ "$r" = 401 ] || fail "profctl web's leaked cookie read: $r"
		# shellcheck disable=SC2086
		r=$(curl -s -o /dev/null -w '%{http_code}' -b "$C" $a \
		    --data-binary @"$T/body" "$WBASE/v1/profiles?scope=xo-leak")
		[ "$r" = 401 ] || fail "profctl web's leaked cookie pushed: $r"
	done
	ok "the browser sent profctl web's cookie to http://127.0.0.1:$EPORT (cookies ignore ports); with it: 401"
else
	ok "the browser did not send profctl web's cookie to another port"
fi
