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
stop_profd

# profd takes the hard file limit as its soft one at start.
cat >"$T/profd-limited" <<EOS
#!/bin/sh
exec prlimit --nofile=256:4096 "$PROFD" "\$@"
EOS
chmod +x "$T/profd-limited"
command -v prlimit >/dev/null || { echo "skip: no prlimit"; exit 77; }
PROFD="$T/profd-limited" start_profd
pid=$(pgrep -P "$PROFD_PID" -x profd || echo "$PROFD_PID")
soft=$(awk '/^Max open files/ { print $4 }' "/proc/$pid/limits")
[ "$soft" = 4096 ] || fail "soft file limit $soft, hard 4096"
ok "soft file limit raised to the hard one (256 -> $soft)"
stop_profd
