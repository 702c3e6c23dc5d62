# The Pyroscope Node.js client from npm (@pyroscope/nodejs) profiling a
# node process that burns CPU in two named functions, about 2:1, pushing
# to profd's --listen-tcp with a bearer token: the scope is its app name,
# its tags are labels, both functions are there in about that ratio, and
# the CPU time stored is within the CPU time the process used and the wall
# time within the profiles' durations.
. "$(dirname "$0")/lib.sh"
need_pyroscope_node
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start_profd --listen-tcp "127.0.0.1:$PORT" --tcp-auth-token node-secret

node "$TESTS_DIR/tools/pyroscope_node.js" "$PYRO_NODE_DIR" \
    "http://127.0.0.1:$PORT" nodeburn node-secret 4 >"$T/run.json" ||
    fail "the node program failed"
wait_until "the last profile" sh -c "curl -s --unix-socket '$SOCK' \
    'http://localhost/v1/profiles?scope=nodeburn' | grep -q wall"
sleep 1	# the last flush
api GET "/v1/profiles?scope=nodeburn" | sed '$d' >"$T/profiles.json"
"$PROFCTL" top --scope nodeburn --metric cpu --cum --json >"$T/cpu.json" ||
    fail "profctl top cpu"
"$PROFCTL" top --scope nodeburn --metric wall --json >"$T/wall.json" ||
    fail "profctl top wall"
python3 - "$T/run.json" "$T/profiles.json" "$T/cpu.json" "$T/wall.json" <<'PY' ||
import json, sys
run, profs, cpu, wall = (json.load(open(f)) for f in sys.argv[1:5])
ps = profs["profiles"]
walls = [p for p in ps if any(m["type"] == "wall" and m["unit"] == "nanoseconds"
                                for m in p["metrics"])]
assert len(walls) >= 2, "wall profiles: %d" % len(walls)
for p in ps:
    l = p["labels"]
    assert l.get("region") == "test-eu", l
    assert l.get("process.runtime.name") == "nodejs", l
    assert l.get("pyroscope_spy") == "nodespy", l
def cum(top, name):
    return sum(r["cum"] for r in top["rows"] if r["function"].split(":")[-2:-1] == [name])
a, b = cum(cpu, "burnAlpha"), cum(cpu, "burnBeta")
print("cpu total %.0f ms (process used %.0f ms), burnAlpha %.0f ms, burnBeta %.0f ms"
      % (cpu["total"] / 1e6, run["cpu_ms"], a / 1e6, b / 1e6))
assert a > 0 and b > 0, "burnAlpha %d burnBeta %d" % (a, b)
assert 1.2 < a / b < 3.5, "burnAlpha / burnBeta = %.2f, not about 2" % (a / b)
assert cpu["total"] <= run["cpu_ms"] * 1e6 * 1.1 + 50e6, "more CPU than the process used"
assert a + b >= 0.3 * run["cpu_ms"] * 1e6, "the burning is not most of it"
durations = sum(p["duration_ns"] for p in walls)
print("wall total %.0f ms, profiles' durations %.0f ms, run %d ms"
      % (wall["total"] / 1e6, durations / 1e6, run["wall_ms"]))
assert wall["total"] <= durations * 1.1 + 100e6, "wall beyond the durations"
assert wall["total"] >= 0.5 * run["wall_ms"] * 1e6, "too little wall time"
PY
    fail "the Node client's numbers"
ok "@pyroscope/nodejs over --listen-tcp: scope, tags, burnAlpha:burnBeta, CPU and wall within bounds"
