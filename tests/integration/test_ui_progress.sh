# The browser page's progress bar for a pushed file, in headless
# Chromium (playwright-core) through profctl web against a real profd: a
# 41 MB pprof dropped on the page (dragenter, dragover, drop with the
# file, as a browser fires them) goes as a chunked upload, its
# <progress> bar (each change recorded in the page as it happens) moves through at
# least three values, says it imports before the result line (the
# store's write lock held by the test until the page shows the import,
# so that it is seen however fast it runs), and the result line is
# profctl push's for the same profile, which then opens; random bytes
# picked show profd's error in place of the bar, with no bar left and
# the name as text, not HTML; a file picked while profctl push's import
# is in flight (held) says it waits behind it, with the queue, and is
# stored once that one is.
# Screenshot of the held import: ${BUILD_DIR:-/tmp}/ui-progress.png.
# Skips (77) without chromium, node or npm.
. "$(dirname "$0")/lib.sh"

TOOL=${TESTS_DIR:-$(dirname "$0")/..}/tools/ui_progress.js
WEB_PID=
need_playwright
trap '[ -z "$WEB_PID" ] || kill "$WEB_PID" 2>/dev/null || true; cleanup' EXIT

# A large pprof, inflated: over 32 MiB, so a chunked upload, of 840,000
# samples over 3,000 stacks (a call tree the page draws quickly).
python3 "$TESTS_DIR/tools/genpprof.py" "$T/big.pb.gz" --samples 840000 \
    --functions 2000 --depth 30 --stacks 3000 --seed 31 ||
	fail "genpprof: the large profile"
gunzip "$T/big.pb.gz" || fail "gunzip the large profile"
size=$(stat -c %s "$T/big.pb")
[ "$size" -ge 40000000 ] || fail "the large profile is $size bytes"

start_profd
# From its directory: profctl names the file as given, the page by its
# base name.
(cd "$T" && "$PROFCTL" push big.pb --scope cli) >"$T/cli.out" ||
	fail "profctl push: $(cat "$T/cli.out")"
grep -Eq '^big\.pb: stored as profile [0-9]+ \([0-9]+ samples\)$' \
    "$T/cli.out" || fail "profctl push said: $(cat "$T/cli.out")"

"$PROFCTL" web >"$T/web.out" 2>"$T/web.err" &
WEB_PID=$!
wait_until "profctl web's URL" grep -q . "$T/web.out"

PLAYWRIGHT_DIR="$NODE_DIR" CHROMIUM="$CHROMIUM" timeout 300 \
    node "$TOOL" "$(head -n 1 "$T/web.out")" "$T/big.pb" \
    "$(cat "$T/cli.out")" "$DB" "${BUILD_DIR:-/tmp}/ui-progress.png" ||
	fail "in the browser"

# The large file and the one that waited, each stored once.
"$PROFCTL" profiles --scope web --json | json 'len(j["profiles"])' |
    has -x 2 || fail "the picked files not stored once each in scope web"
ok "a ${size}-byte pprof pushed from the page with its progress shown"
