#!/usr/bin/env bash
# Four connections each holding a body one byte short of max-body (32 MiB):
# max-inflight-body (64 MiB) is enforced with 503, and profd's peak RSS
# grows by less than the four bodies (128 MiB) would take.
source "$TESTS_DIR/integration/lib.sh"
start_profd --max-body 32M --max-inflight-body 64M
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$PROFD_PID/status"; }
before=$(hwm)
python3 "$TESTS_DIR/integration/http_attack.py" body-budget "$SOCK" 4 \
    $((32 << 20)) $((64 << 20)) || fail "body budget"
after=$(hwm)
grown=$(((after - before) / 1024))
echo "VmHWM grew by $grown MiB"
# ASan's quarantine keeps freed chunks: memory is only measured without.
if grep -q '^PROFD_SANITIZE:BOOL=ON' "${BUILD_DIR:-.}/CMakeCache.txt" \
    2>/dev/null; then
	echo "sanitizer build: VmHWM not checked"
else
	[ "$grown" -lt 100 ] ||
		fail "VmHWM grew by $grown MiB (budget 64 MiB)"
fi
r=$(api GET /v1/health)
[ "$(status_of "$r")" = 200 ] || fail "health after: $r"
ok "peak RSS +$grown MiB"
