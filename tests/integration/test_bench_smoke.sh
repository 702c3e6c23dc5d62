# bench/run --smoke keeps working: on tiny inputs, with the binaries of
# this build, it runs every case and its table has every row with figures.
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
        "growth.top", "growth.tree", "concurrent.health", "concurrent.top",
        "memory.idle", "memory.heap", "memory.trace", "storage.series"]
rows = {r["key"]: r for r in j["rows"]}
assert j["smoke"], "not a smoke run"
assert not j["errors"], "cases failed: %s" % j["errors"]
missing = [k for k in want if k not in rows]
assert not missing, "rows missing: %s" % missing
for k in want:
    p = rows[k]["profd"]
    assert isinstance(p, dict) and p["median"] > 0, "%s: profd %r" % (k, p)
for k in ("import.large", "query.top", "query.tree", "throughput.large"):
    p = rows[k]["pprof"]
    assert isinstance(p, dict) and p["median"] > 0, "%s: pprof %r" % (k, p)
print("ok: %d rows with figures" % len(want))
EOF

# The markdown table has the same rows, with the result column.
rows=$(grep -c '^| .* | (smoke) |$' "$T/results.md") || true
[ "$rows" -eq 14 ] || fail "$rows rows with a target in results.md"
grep -q '^| CPUs (nproc) | [0-9]' "$T/results.md" || fail "no machine"
echo "ok: bench/run --smoke"
