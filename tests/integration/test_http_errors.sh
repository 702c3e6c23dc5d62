#!/usr/bin/env bash
# Every error is the documented JSON {"error", "detail"}, also those
# libevent answers itself (a garbage request line, a body over max-body,
# broken chunked framing, an unknown method or expectation), and a detail
# quoting invalid UTF-8 or markup is still valid, escaped JSON.  Chunked
# uploads beyond max-uploads get 503.
source "$TESTS_DIR/integration/lib.sh"
start_profd --max-body 1M --max-uploads 2

python3 "$TESTS_DIR/integration/http_attack.py" errors "$SOCK" ||
	fail "an error reply is not the documented JSON"

for i in 1 2; do
	r=$(api POST /v1/uploads)
	[ "$(status_of "$r")" = 201 ] || fail "upload $i: $r"
done
r=$(api POST /v1/uploads -D "$T/h")
[ "$(status_of "$r")" = 503 ] || fail "a third upload over max-uploads 2: $r"
body_of "$r" | json 'j["detail"]' | has max-uploads ||
	fail "the 503 does not name max-uploads: $r"
has -i '^Retry-After:' "$T/h" || fail "no Retry-After on the 503"
ok "max-uploads: third upload -> 503"
stop_profd
