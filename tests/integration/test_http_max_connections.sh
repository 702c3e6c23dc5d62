#!/usr/bin/env bash
# max-connections: beyond it a request gets 503 (with Retry-After) but
# GET /v1/health still answers 200; beyond the health slots a connection
# gets 503 at once, without being read; closed connections are counted
# out.
source "$TESTS_DIR/integration/lib.sh"
start_profd --max-connections 4
python3 "$TESTS_DIR/integration/http_attack.py" max-connections "$SOCK" 4 16 ||
	fail "max-connections"
r=$(api GET /v1/health)
[ "$(status_of "$r")" = 200 ] || fail "health after: $r"
