# profctl flamegraph against the Go CPU fixture, opened in headless
# Chromium (driven by playwright-core): clicking a frame zooms it to full
# width and hides its sibling, Reset Zoom restores, the Search prompt
# highlights matches and shows "Matched: X%" with a subtree counted once,
# hovering shows details, no script errors and no network requests.
# Screenshot: $T/flame.png, copied to ${BUILD_DIR:-/tmp}/flame.png.
# Skips (77) without chromium, node or npm.
. "$(dirname "$0")/lib.sh"

TOOL=${TESTS_DIR:-$(dirname "$0")/..}/tools/flamegraph_browser.js
need_playwright

start_profd
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope fx >/dev/null
"$PROFCTL" flamegraph --scope fx --metric cpu --title 'CPU <fx> & co' \
    -o "$T/flame.svg" || fail "profctl flamegraph"
head -c 6 "$T/flame.svg" | has '^<?xml' || fail "not XML"
grep -q '>CPU &lt;fx&gt; &amp; co</text>' "$T/flame.svg" ||
    fail "title not escaped"
python3 - "$T/flame.svg" <<'PY' || fail "SVG not well-formed"
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
frames = root.findall(".//s:g[@class='f']", ns)
assert len(frames) > 50, len(frames)
assert root.find("s:script", ns) is not None
assert root.get("data-total") == "4720000000", root.get("data-total")
PY
ok "flamegraph written, well-formed, title escaped"

# Pruning keeps the total and draws fewer frames.
"$PROFCTL" flamegraph --scope fx --min-fraction 0.05 -o "$T/small.svg" ||
    fail "flamegraph --min-fraction"
[ "$(grep -c 'class="f"' "$T/small.svg")" -lt \
    "$(grep -c 'class="f"' "$T/flame.svg")" ] || fail "min-fraction kept all"
grep -q 'data-total="4720000000"' "$T/small.svg" || fail "pruned total"
ok "--min-fraction draws fewer frames, same total"

# Differential: the tree against itself is all grey.
curl -sf --unix-socket "$SOCK" \
    "http://localhost/v1/tree?scope=fx&metric=cpu" >"$T/base.json" ||
    fail "GET /v1/tree"
"$PROFCTL" flamegraph --scope fx --metric cpu --diff "$T/base.json" \
    -o "$T/diff.svg" || fail "flamegraph --diff"
grep -q '>Differential Flame Graph<' "$T/diff.svg" || fail "diff title"
! grep -q 'class="f".*fill="rgb(255,' "$T/diff.svg" || fail "diff of same"
ok "--diff against the same tree: no change coloured"

# Usage errors.
"$PROFCTL" flamegraph -o "$T/x.svg" 2>/dev/null && fail "no --scope"
[ ! -e "$T/x.svg" ] || fail "file left by a failed run"
"$PROFCTL" flamegraph --scope nosuch -o "$T/x.svg" 2>/dev/null &&
    fail "unknown scope"
[ ! -e "$T/x.svg" ] || fail "file left by a refused request"
ok "usage errors and refusals leave no file"

PLAYWRIGHT_DIR="$NODE_DIR" CHROMIUM="$CHROMIUM" timeout 600 \
    node "$TOOL" "$T/flame.svg" "$T/flame.png" \
    main.hashPhase main.cryptoPhase 'main\.(cryptoPhase|digestLoop)' \
    main.cryptoPhase || fail "in the browser"
[ -s "$T/flame.png" ] || fail "no screenshot"
cp "$T/flame.png" "${BUILD_DIR:-/tmp}/flame.png"
cp "$T/flame.svg" "${BUILD_DIR:-/tmp}/flame.svg"
ok "browser: zoom, reset, search, details; screenshot ${BUILD_DIR:-/tmp}/flame.png"
