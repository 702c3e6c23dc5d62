#!/usr/bin/env bash
# A 64 MiB request head is refused with 431 (JSON) after max-header-size,
# not read to its end (it took 36 s of CPU before the limit).
source "$TESTS_DIR/integration/lib.sh"
start_profd
python3 "$TESTS_DIR/integration/http_attack.py" big-header "$SOCK" 64 ||
	fail "64 MiB header"
r=$(api GET /v1/health)
[ "$(status_of "$r")" = 200 ] || fail "health after: $r"
