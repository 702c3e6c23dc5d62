# bench/run --smoke keeps working: on tiny inputs, with the binaries of
# this build, it runs every case and its table has every row with figures;
# the load and fault cases (bench/faults.py), small and short, are correct:
# no failed request, every accepted push found once after kill -9, the
# store intact.  Their timings are never asserted here.
# Skipped (77) without go: the generator and go tool pprof need it.
set -euo pipefail

: "${PROFD:?}" "${PROFCTL:?}" "${TESTS_DIR:?}" "${BUILD_DIR:?}"
if ! command -v go >/dev/null 2>&1; then
	echo "SKIP: go not installed"
	exit 77
fi

top=$(cd "$TESTS_DIR/.." && pwd)
# Inputs are kept between runs in the build directory; the rest is ours.
work=$BUILD_DIR/bench-smoke
T=$(mktemp -d "${TMPDIR:-/tmp}/profd-bench-smoke.XXXXXX")
trap 'rm -rf "$T"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

BENCH_BUILD=$work GEN_TRACE=$BUILD_DIR/gen-trace \
    "$top/bench/run" --smoke --results "$T/results.md" >"$T/out" 2>&1 ||
    { cat "$T/out"; fail "bench/run --smoke exited non-zero"; }
cat "$T/results.md"

# Every case has its rows, each with a number for profd; none failed.
python3 - "$work/results.json" <<'EOF' || fail "results.json"
import json, re, sys
j = json.load(open(sys.argv[1]))
want = ["import.large", "import.fixture-cpu", "import.fixture-heap",
        "import.fixture-mutex", "import.fixture-block", "throughput.large",
        "throughput.heap", "throughput.large-warm", "throughput.trace", "query.top", "query.tree",
        "views.peek", "views.traces", "growth.top", "growth.tree", "concurrent.health", "concurrent.top",
        "memory.idle", "memory.heap", "memory.trace", "storage.series",
        "week-real.top", "month-real.top",
        "load.pushes", "load.queries", "load.rss", "trickle.health",
        "crash.accepted"]
rows = {r["key"]: r for r in j["rows"]}
assert j["smoke"], "not a smoke run"
assert not j["errors"], "cases failed: %s" % j["errors"]
missing = [k for k in want if k not in rows]
assert not missing, "rows missing: %s" % missing
# A growth in pages in use may be 0 with the smoke's few stacks (the
# callsite chunks of 9 new stacks can fit the pages the store has).
for k in want:
    p = rows[k]["profd"]
    least = 0 if k == "storage.series" else 1e-12
    assert isinstance(p, dict) and p["median"] >= least, "%s: profd %r" % (k, p)
for k in ("import.large", "query.top", "query.tree", "views.peek",
          "views.traces", "throughput.large"):
    p = rows[k]["pprof"]
    assert isinstance(p, dict) and p["median"] > 0, "%s: pprof %r" % (k, p)
print("ok: %d rows with figures" % len(want))

def n(k):
    return rows[k]["profd"]["median"]
def failed(row):  # the prober's failures, in the row's note
    return re.search(r"\b\d+ failed:", row["note"])
assert rows["load.failed"]["profd"] == {
    "median": 0, "min": 0, "max": 0, "runs": 1, "unit": "requests"}, \
    "load: failed requests %r (%s)" % (rows["load.failed"]["profd"],
                                       rows["load.failed"]["note"])
assert n("load.health") > 0 and not failed(rows["load.health"]), \
    "load: health %s" % rows["load.health"]["note"]
assert not failed(rows["trickle.health"]), \
    "trickle: health %s" % rows["trickle.health"]["note"]
assert n("crash.found") == n("crash.accepted"), "crash: %d found of %d" % (
    n("crash.found"), n("crash.accepted"))
assert n("crash.lost") == 0 and n("crash.duplicates") == 0, \
    "crash: %d lost, %d duplicates" % (n("crash.lost"), n("crash.duplicates"))
assert rows["crash.integrity"]["profd"] == "ok", \
    "crash: integrity %r" % rows["crash.integrity"]["profd"]
print("ok: load, trickle, crash: %d pushes found once of %d accepted" % (
    n("crash.found"), n("crash.accepted")))
EOF

# The markdown table has the same rows, with the result column.
rows=$(grep -c '^| .* | (smoke) |$' "$T/results.md") || true
[ "$rows" -eq 24 ] || fail "$rows rows with a target in results.md"
grep -q '^| CPUs (nproc) | [0-9]' "$T/results.md" || fail "no machine"
echo "ok: bench/run --smoke"
