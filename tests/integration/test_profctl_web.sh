# profctl web against a real profd: the first line of stdout is the URL with
# the token; the token is needed for every request (401): in the query, or
# for an API call in X-Profd-Token, for the page's files the cookie (its
# name and value name the port, its secret is not the token); a Host that
# is not the listen address or localhost is refused (403), so is a page of
# another origin (Origin, Sec-Fetch-Site); the UI's files are served with ETags, API reads and pushes are
# forwarded, deletes are refused unless --allow-write, and --read-only
# refuses pushes too; a profd that is not there is 502.
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

# start_web [flags...]: URL, BASE (http://HOST:PORT), TOKEN, PORT, COOKIE.
start_web() {
	stop_web
	: >"$T/web.out"
	"$PROFCTL" web "$@" >"$T/web.out" 2>"$T/web.err" &
	WEB_PID=$!
	wait_until "profctl web's URL" grep -q . "$T/web.out"
	URL=$(head -n 1 "$T/web.out")
	BASE=${URL%/\?token=*}
	TOKEN=${URL#*\?token=}
	PORT=${BASE##*:}
	TOK="X-Profd-Token: $TOKEN"
	curl -s -o /dev/null -D "$T/head0" "$URL"
	COOKIE=$(sed -n 's/^[Ss]et-[Cc]ookie: \([^;]*\);.*/\1/p' "$T/head0")
	CVAL=${COOKIE#*=}
}

# code ARGS...: the status curl gets.
code() {
	curl -s -o "$T/body" -D "$T/head" -w '%{http_code}' "$@"
}

start_profd
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope fx >/dev/null
start_web
printf '%s\n' "$URL" | has -x 'http://127\.0\.0\.1:[0-9]*/?token=[0-9a-f]\{32\}' ||
    fail "first line is not the URL: $URL"
ok "first line of stdout: $URL"

# The token.
[ "$(code "$URL&scope=fx")" = 302 ] || fail "the URL: $(cat "$T/head")"
grep -qi "^location: /ui/?scope=fx#token=$TOKEN"$'\r' "$T/head" ||
    fail "not led to /ui/ (the token in the fragment): $(cat "$T/head")"
grep -qi "^set-cookie: profd_token_$PORT=$PORT\.[0-9a-f]\{32\}; Path=/; HttpOnly; SameSite=Strict" \
    "$T/head" || fail "no cookie: $(cat "$T/head")"
[ "$CVAL" != "$PORT.$TOKEN" ] || fail "the cookie holds the token"
[ "$(code -b "$COOKIE" "$BASE/ui/")" = 200 ] || fail "cookie refused"
cmp -s "$T/body" "$WEB/index.html" || fail "/ui/ is not index.html"
[ "$(code "$BASE/ui/?token=$TOKEN")" = 200 ] || fail "query token refused"
# One digit off (not always 0: the token may end in 0, 1 time in 16).
OFF=${TOKEN%?}$([ "${TOKEN: -1}" = 0 ] && echo 1 || echo 0)
for args in "$BASE/ui/" "$BASE/" "$BASE/v1/scopes" "$BASE/ui/app.js" \
    "$BASE/v1/scopes?token=$OFF" "$BASE/v1/scopes?token=" \
    "$BASE/v1/scopes?xtoken=$TOKEN"; do
	[ "$(code "$args")" = 401 ] || fail "$args without the token"
	json 'j["error"]' <"$T/body" | has -x unauthorized || fail "not JSON"
done
[ "$(code -b "profd_token_$PORT=${TOKEN%?}x" "$BASE/v1/scopes")" = 401 ] ||
    fail "a wrong cookie"
[ "$(code -b "profd_token_1=$TOKEN" "$BASE/v1/scopes")" = 401 ] ||
    fail "another port's cookie"
# The value names the port too: its secret alone, or with another port
# (a cookie another port's profctl web set), or the token, is refused.
C=${CVAL#*.}
for v in "$C" "1.$C" "$PORT$C" "$CVAL.x" "$PORT.$TOKEN" "$TOKEN"; do
	[ "$(code -b "profd_token_$PORT=$v" "$BASE/ui/")" = 401 ] ||
	    fail "cookie value $v"
done
# The cookie admits the page's files only: an API call needs the token.
for args in "-b $COOKIE" "-b $COOKIE -H X-Profd-UI:1" \
    "-b $COOKIE -H X-Profd-Token:$C" "-b $COOKIE -H X-Profd-Token:$CVAL"; do
	# shellcheck disable=SC2086
	[ "$(code $args "$BASE/v1/scopes")" = 401 ] ||
	    fail "an API call with $args"
done
json 'j["detail"]' <"$T/body" | has "X-Profd-Token" || fail "401 detail"
[ "$(code -H "$TOK" "$BASE/v1/scopes")" = 200 ] || fail "the token header"
ok "401 without the token, in the query or the cookie"

# The Host header.
for h in "evil.example:$PORT" "evil.example" "127.0.0.1" "127.0.0.2:$PORT" \
    "localhost.evil.example:$PORT" "localhost:1$PORT"; do
	[ "$(code -H "Host: $h" "$URL")" = 403 ] || fail "Host $h"
done
r=$(printf 'GET /ui/?token=%s HTTP/1.0\r\n\r\n' "$TOKEN" |
    python3 -c 'import socket,sys
s=socket.create_connection(("127.0.0.1",int(sys.argv[1])))
s.sendall(sys.stdin.buffer.read()); print(s.recv(100).split(b" ")[1].decode())' "$PORT")
[ "$r" = 403 ] || fail "no Host: $r"
for h in "localhost:$PORT" "LOCALHOST:$PORT" localhost "127.0.0.1:$PORT"; do
	[ "$(code -H "Host: $h" -b "$COOKIE" -H "$TOK" "$BASE/v1/scopes")" = 200 ] ||
	    fail "Host $h refused"
done
ok "403 for a Host that is not the listen address or localhost"

# A control character in what would be passed on: 400, nothing forwarded.
r=$(printf 'GET /v1/scopes HTTP/1.1\r\nHost: localhost\r\nCookie: %s\r\nContent-Type: a\rX-Injected: 1\r\n\r\n' "$COOKIE" |
    python3 -c 'import socket,sys
s=socket.create_connection(("127.0.0.1",int(sys.argv[1])))
s.sendall(sys.stdin.buffer.read()); print(s.recv(100).split(b" ")[1].decode())' "$PORT")
[ "$r" = 400 ] || fail "a bare CR in a header: $r"
ok "400 for a control character in a header"

# Pages of other origins (issue 25): another port of this host, a foreign
# name, a sandboxed page; with the cookie and the header both, reads and
# pushes alike.  The page's own origin passes.
for o in "http://127.0.0.1:1$PORT" "http://localhost:8080" "null" \
    "http://evil.example:$PORT" "https://127.0.0.1:$PORT.evil.example"; do
	[ "$(code -b "$COOKIE" -H "$TOK" -H "Origin: $o" "$BASE/v1/scopes")" = 403 ] ||
	    fail "a read from Origin $o"
	[ "$(code -b "$COOKIE" -H "$TOK" -H "Origin: $o" --data-binary \
	    @"$FIXTURES/heap.pprof" "$BASE/v1/profiles?scope=evil")" = 403 ] ||
	    fail "a push from Origin $o"
	json 'j["detail"]' <"$T/body" | has "another origin" ||
	    fail "the 403 does not say why: $(cat "$T/body")"
done
for site in cross-site same-site; do
	[ "$(code -b "$COOKIE" -H "$TOK" -H "Sec-Fetch-Site: $site" "$BASE/v1/scopes")" = 403 ] ||
	    fail "Sec-Fetch-Site: $site"
done
[ "$(code -b "$COOKIE" -H "$TOK" -H "Origin: $BASE" -H "Sec-Fetch-Site: same-origin" "$BASE/v1/scopes")" = 200 ] ||
    fail "the page's own origin refused: $(cat "$T/body")"
"$PROFCTL" scopes | has -w evil && fail "a cross-origin push was stored"
ok "403 for other origins (Origin, Sec-Fetch-Site)"

# Files and reads.
[ "$(code -b "$COOKIE" --compressed "$BASE/ui/app.js")" = 200 ] ||
    fail "app.js"
cmp -s "$T/body" "$WEB/app.js" || fail "app.js differs"
grep -qi '^content-encoding: gzip' "$T/head" || fail "no gzip"
etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: \(.*\)\r$/\1/p' "$T/head")
[ "$(code -b "$COOKIE" -H "If-None-Match: $etag" "$BASE/ui/app.js")" = 304 ] ||
    fail "ETag not revalidated"
[ "$(code -b "$COOKIE" "$BASE/ui/nope.js")" = 404 ] || fail "404"
[ "$(code -b "$COOKIE" -X POST "$BASE/ui/")" = 405 ] || fail "405"
[ "$(code -b "$COOKIE" -H "$TOK" "$BASE/v1/top?scope=fx&limit=5")" = 200 ] ||
    fail "top through profctl web"
curl -sf --unix-socket "$SOCK" "http://localhost/v1/top?scope=fx&limit=5" |
    cmp -s - "$T/body" || fail "top differs from profd's"
[ "$(code -b "$COOKIE" -H "$TOK" "$BASE/v1/top?scope=nosuch")" = 404 ] ||
    fail "profd's 404 not forwarded"
[ "$(code -b "$COOKIE" -H "$TOK" --data 'SELECT 1 AS x' "$BASE/v1/query")" = 200 ] ||
    fail "read-only SQL: $(cat "$T/body")"
[ "$(json 'j["rows"]' <"$T/body")" = '[[1]]' ] || fail "SQL: $(cat "$T/body")"
ok "files revalidated, API reads forwarded as profd answers them"

# Pushes yes, deletes no.
[ "$(code -b "$COOKIE" -H "$TOK" --data-binary @"$FIXTURES/heap.pprof" \
    "$BASE/v1/profiles?scope=pushed")" = 201 ] || fail "push: $(cat "$T/body")"
[ "$(code -b "$COOKIE" -H "$TOK" -X POST "$BASE/v1/uploads")" = 201 ] ||
    fail "upload: $(cat "$T/body")"
[ "$(code -b "$COOKIE" -H "$TOK" -X DELETE "$BASE/v1/profiles?scope=pushed")" = 403 ] ||
    fail "delete forwarded without --allow-write"
[ "$(code -b "$COOKIE" -H "$TOK" -X PATCH "$BASE/v1/profiles?scope=pushed")" = 403 ] ||
    fail "PATCH forwarded"
"$PROFCTL" scopes | has pushed || fail "the refused delete deleted"
ok "pushes forwarded, deletes and other writes 403"

start_web --allow-write --listen localhost:0
[ "$(code -b "$COOKIE" -H "$TOK" -X DELETE "$BASE/v1/profiles?scope=pushed")" = 200 ] ||
    fail "delete with --allow-write: $(cat "$T/body")"
! "$PROFCTL" scopes | has pushed || fail "not deleted"
ok "--allow-write forwards deletes"

start_web --read-only
[ "$(code -b "$COOKIE" -H "$TOK" --data-binary @"$FIXTURES/heap.pprof" \
    "$BASE/v1/profiles?scope=ro")" = 403 ] || fail "push with --read-only"
[ "$(code -b "$COOKIE" -H "$TOK" -X POST "$BASE/v1/uploads")" = 403 ] ||
    fail "upload with --read-only"
[ "$(code -b "$COOKIE" -H "$TOK" -X DELETE "$BASE/v1/profiles?scope=fx")" = 403 ] ||
    fail "delete with --read-only"
[ "$(code -b "$COOKIE" -H "$TOK" "$BASE/v1/scopes")" = 200 ] || fail "read"
! "$PROFCTL" scopes | has -w ro || fail "read-only push stored"
ok "--read-only refuses pushes too"

rc=0
"$PROFCTL" web --read-only --allow-write >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--read-only --allow-write: exit $rc"
rc=0
"$PROFCTL" web --listen nonsense >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--listen nonsense: exit $rc"
ok "contradictory and bad flags refused"

start_web --socket "$T/none.sock"
[ "$(code -b "$COOKIE" -H "$TOK" "$BASE/v1/scopes")" = 502 ] || fail "no profd: 502"
json 'j["detail"]' <"$T/body" | has none.sock || fail "502 detail"
ok "502 naming the socket when profd is not there"
