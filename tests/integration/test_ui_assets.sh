# GET /ui/...: every file of web/ is served from profd's socket as it is in
# the tree, with its type, an ETag answered by 304, gzip when the client
# takes it (and only then), 404 and 405 in JSON for what is not a file or
# not a GET; / and /ui lead to /ui/ with the query kept; the files answer
# while an import is held (served on the loop from memory).
. "$(dirname "$0")/lib.sh"
WEB=$TESTS_DIR/../web
start_profd

n=0
for f in "$WEB"/*.html "$WEB"/*.css "$WEB"/*.js "$WEB"/*.svg; do
	[ -e "$f" ] || continue
	name=$(basename "$f")
	case $name in
	*.html) type='text/html; charset=utf-8' ;;
	*.css) type='text/css; charset=utf-8' ;;
	*.js) type='text/javascript; charset=utf-8' ;;
	*.svg) type='image/svg+xml' ;;
	esac
	curl -sf --unix-socket "$SOCK" -D "$T/h" -o "$T/body" \
	    "http://localhost/ui/$name" || fail "GET /ui/$name"
	cmp -s "$T/body" "$f" || fail "/ui/$name differs from web/$name"
	grep -qix "content-type: $type"$'\r' "$T/h" ||
	    fail "/ui/$name type: $(grep -i content-type "$T/h")"
	! grep -qi '^content-encoding' "$T/h" || fail "gzip not asked for"
	etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: \(.*\)\r$/\1/p' "$T/h")
	[ -n "$etag" ] || fail "/ui/$name has no ETag"
	grep -qi "^content-security-policy: default-src 'self'" "$T/h" ||
	    fail "/ui/$name has no CSP"

	curl -sf --unix-socket "$SOCK" -D "$T/hz" -o "$T/body.gz" \
	    -H 'Accept-Encoding: br, gzip;q=0.8' "http://localhost/ui/$name" ||
	    fail "GET /ui/$name gzip"
	if grep -qi '^content-encoding: gzip' "$T/hz"; then
		gunzip -c "$T/body.gz" | cmp -s - "$f" ||
		    fail "/ui/$name gzipped is not the file"
		[ "$(stat -c %s "$T/body.gz")" -lt "$(stat -c %s "$f")" ] ||
		    fail "/ui/$name gzip larger than the file"
	else
		cmp -s "$T/body.gz" "$f" || fail "/ui/$name unzipped differs"
	fi
	grep -qi '^vary: accept-encoding' "$T/hz" || fail "no Vary"
	curl -sf --unix-socket "$SOCK" -D "$T/hq" -o "$T/body.q0" \
	    -H 'Accept-Encoding: gzip;q=0' "http://localhost/ui/$name" ||
	    fail "GET gzip;q=0"
	! grep -qi '^content-encoding' "$T/hq" || fail "gzip;q=0 got gzip"

	r=$(curl -s --unix-socket "$SOCK" -o "$T/b304" -w '%{http_code}' \
	    -H "If-None-Match: \"x\", W/$etag" "http://localhost/ui/$name")
	[ "$r" = 304 ] || fail "/ui/$name with its ETag: $r"
	[ ! -s "$T/b304" ] || fail "304 with a body"
	r=$(curl -s --unix-socket "$SOCK" -o /dev/null -w '%{http_code}' \
	    -H 'If-None-Match: "stale"' "http://localhost/ui/$name")
	[ "$r" = 200 ] || fail "/ui/$name with another ETag: $r"
	n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "only $n files in web/"
ok "$n files of web/ served as they are, typed, gzipped, revalidated"

cmp -s <(curl -sf --unix-socket "$SOCK" http://localhost/ui/) \
    "$WEB/index.html" || fail "/ui/ is not index.html"
for p in / /ui; do
	curl -s --unix-socket "$SOCK" -D "$T/h" -o /dev/null \
	    "http://localhost$p?scope=a&view=top"
	head -n 1 "$T/h" | has ' 302 ' || fail "$p: $(head -n 1 "$T/h")"
	grep -qi '^location: /ui/?scope=a&view=top'$'\r' "$T/h" ||
	    fail "$p: $(grep -i location "$T/h")"
done
ok "/ and /ui lead to /ui/, the query kept"

for p in /ui/nope.js /ui/../v1/health /uix /ui/index.html/ /ui/.; do
	r=$(api GET "$p" --path-as-is)
	[ "$(status_of "$r")" = 404 ] || fail "$p: $r"
	body_of "$r" | json 'j["error"]' | has . || fail "$p: not JSON"
done
r=$(api POST /ui/ --data x)
[ "$(status_of "$r")" = 405 ] || fail "POST /ui/: $r"
r=$(api DELETE /ui/app.js)
[ "$(status_of "$r")" = 405 ] || fail "DELETE /ui/app.js: $r"
ok "404 and 405 in JSON"

r=$(api GET /v1/health)
[ "$(body_of "$r" | json 'j["routes"]["GET /ui"]["calls"] > 10')" = True ] ||
    fail "GET /ui not counted: $r"
ok "counted in /v1/health"

python3 "$TESTS_DIR/tools/held_import.py" ui "$SOCK" "$DB" \
    "$FIXTURES/cpu.pprof" "$WEB" || fail "the UI during a held import"
