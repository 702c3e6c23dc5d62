#!/usr/bin/env bash
# A client trickling its head (or its body) a byte at a time is closed at
# header-timeout (body-timeout), however often it sends: libevent's own
# timeout starts again at every byte.
source "$TESTS_DIR/integration/lib.sh"
start_profd --header-timeout 1 --body-timeout 2
# 300 s of trickling at most: a bound against a hang (a connection kept
# open by every byte), not a speed check.
python3 "$TESTS_DIR/integration/http_attack.py" slowloris "$SOCK" 300 ||
	fail "slow head"
python3 "$TESTS_DIR/integration/http_attack.py" slowloris "$SOCK" 300 1 ||
	fail "slow body"
r=$(api GET /v1/health)
[ "$(status_of "$r")" = 200 ] || fail "health after: $r"
body_of "$r" | json 'j["http"]["timed_out"]' | has -x 2 ||
	fail "timed_out is not 2: $(body_of "$r")"
