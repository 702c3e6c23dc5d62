# The browser UI in headless Chromium (playwright-core), through profctl
# web against a real profd: every view loads with no console error and no
# request outside the origin; the top table equals profctl top (numbers
# and text); the search share equals the SVG flame graph's; zoom, Back,
# keyboard, sandwich, the refine menu and the timeline's brush change the
# URL and the view; peek, traces and tags show what profctl peek, traces
# (the first N) and tags print as JSON, and change the URL (Back works); the diff against the previous window equals /v1/diff;
# live mode extends the timeline when a profile arrives; downloads (pprof,
# folded, SVG) are the selection; a file dropped on the page, or picked,
# is pushed (over 32 MiB as a chunked upload) and opened; a gauge series
# is averaged, the header says so as profctl does, and aggregate=sum
# picked is in the URL, in every view's request and in the numbers (as
# the API answers them), through Back and a reload.  Screenshots of each view: ${BUILD_DIR:-/tmp}/ui/.
# Skips (77) without chromium, node or npm.
. "$(dirname "$0")/lib.sh"

TOOL=${TESTS_DIR:-$(dirname "$0")/..}/tools/ui_browser.js
SHOTS=${BUILD_DIR:-/tmp}/ui
WEB_PID=
need_playwright
trap '[ -z "$WEB_PID" ] || kill "$WEB_PID" 2>/dev/null || true; cleanup' EXIT

start_profd
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope fx >/dev/null
for i in 0 1 2 3 4 5; do
	python3 "$TESTS_DIR/tools/genpprof.py" "$T/s$i.pb.gz" --samples 300 \
	    --functions 60 --depth 8 --seed "$i" --time $((1700000000 + i * 60))
	"$PROFCTL" push "$T/s$i.pb.gz" --scope series >/dev/null
done
# A gauge series: three snapshots of one producer, averaged by default.
for v in 10 20 60; do
	printf 'main;serve;a %d\nmain;serve;b %d\nmain;gc %d\n' "$v" $((v / 10)) \
	    $((v / 5)) >"$T/gauge$v.folded"
	"$PROFCTL" push "$T/gauge$v.folded" --scope gauge \
	    --kind samples=gauge >/dev/null
done
# What the API answers for the gauge series: the page must show the same.
mkdir "$T/agg"
aq() { # NAME PATH: the API's reply to PATH into $T/agg/NAME.json
	local r
	r=$(api GET "$2")
	[ "$(status_of "$r")" = 200 ] || fail "GET $2: $r"
	body_of "$r" >"$T/agg/$1.json"
}
aq top '/v1/top?scope=gauge'
aq top-sum '/v1/top?scope=gauge&aggregate=sum'
aq tree-sum '/v1/tree?scope=gauge&aggregate=sum'
aq timeline-sum '/v1/timeline?scope=gauge&aggregate=sum'
aq diff-sum '/v1/diff?scope=gauge&base.scope=gauge&aggregate=sum&base.aggregate=sum&limit=500'
[ "$(json 'j["metric"]["aggregate"]' <"$T/agg/top.json")" = avg ] ||
	fail "the gauge series is not averaged: $(cat "$T/agg/top.json")"
python3 "$TESTS_DIR/tools/genpprof.py" "$T/live.pb.gz" --samples 300 \
    --functions 60 --depth 8 --seed 9 --time $((1700000000 + 600))
"$PROFCTL" top --scope fx --json >"$T/top.json"
"$PROFCTL" top --scope fx >"$T/top.txt"
"$PROFCTL" flamegraph --scope fx -o "$T/flame.svg"
"$PROFCTL" peek 'main\.(fib|hashBlock)' --scope fx --json >"$T/peek.json"
"$PROFCTL" traces --scope fx --json >"$T/traces.json"
"$PROFCTL" tags --scope fx --json >"$T/tags.json"
printf 'main;serve;parse 30\nmain;serve;write 12\nmain;gc 5\n' >"$T/picked.folded"
python3 - "$T/big.folded" <<'PY'
import random, sys
r, n = random.Random(1), 0
with open(sys.argv[1], "w") as f:
    while n <= 33 << 20:
        line = "main;serve;h%d;parse%d;leaf%d %d\n" % (
            r.randint(0, 50), r.randint(0, 50), r.randint(0, 50),
            r.randint(1, 9))
        f.write(line)
        n += len(line)
PY

"$PROFCTL" web >"$T/web.out" 2>"$T/web.err" &
WEB_PID=$!
wait_until "profctl web's URL" grep -q . "$T/web.out"

rm -rf "$SHOTS"
mkdir -p "$SHOTS"
PLAYWRIGHT_DIR="$NODE_DIR" CHROMIUM="$CHROMIUM" timeout 600 \
    node "$TOOL" "$(head -n 1 "$T/web.out")" "$SHOTS" "$T/top.json" \
    "$T/top.txt" "$T/flame.svg" "$FIXTURES/heap.pprof" "$T/picked.folded" \
    "$T/live.pb.gz" "$T/big.folded" "$T/peek.json" "$T/traces.json" \
    "$T/tags.json" "$T/agg" ||
    fail "in the browser"
"$PROFCTL" profiles --scope adhoc --json | json 'len(j["profiles"])' |
    has -x 1 || fail "the dropped file not stored once"
ok "screenshots in $SHOTS: $(cd "$SHOTS" && echo *.png)"
