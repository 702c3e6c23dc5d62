# The browser UI's fleet switch (issue 16) in headless Chromium, through
# profctl web: profd (host web-1) and a second profd (web-2) ship the
# same CPU profile to a real ClickHouse; the switch turns the views into
# the fleet's (the top table equals profctl top --fleet), hosts narrows
# them, the scopes page lists the fleet's hosts (tests/tools/ui_fleet.js).
# Skips (77) without chromium, node or npm, or clickhouse-server.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

need_playwright
WEB_PID=
trap 'kill $WEB_PID $(cat "$T/b.pid" 2>/dev/null) 2>/dev/null; ch_cleanup' EXIT

ch_config a
ch_start a
start_profd --fleet-url "$(ch_url a)" --fleet-host web-1 --fleet-interval 1
fleet_profd b --fleet-url "$(ch_url a)" --fleet-host web-2 --fleet-interval 1
fleet_push "$SOCK" "$FIXTURES/cpu.pprof" fx
fleet_push "$T/b.sock" "$FIXTURES/cpu.pprof" fx
wait_until "web-1 shipped" fleet_shipped "$SOCK" 1
wait_until "web-2 shipped" fleet_shipped "$T/b.sock" 1
"$PROFCTL" top --fleet --scope fx --json >"$T/fleet.json" ||
    fail "profctl top --fleet"
"$PROFCTL" top --scope fx --json >"$T/local.json" || fail "profctl top"

"$PROFCTL" web >"$T/web.out" 2>"$T/web.err" &
WEB_PID=$!
wait_until "profctl web's URL" grep -q . "$T/web.out"
SHOTS=${BUILD_DIR:-/tmp}/ui
mkdir -p "$SHOTS"
PLAYWRIGHT_DIR="$NODE_DIR" CHROMIUM="$CHROMIUM" timeout 300 \
    node "$TESTS_DIR/tools/ui_fleet.js" "$(head -n 1 "$T/web.out")" \
    "$SHOTS" "$T/fleet.json" "$T/local.json" || fail "in the browser"
ok "the fleet switch in the browser"
