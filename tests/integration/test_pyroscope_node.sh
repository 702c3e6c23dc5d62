# The Pyroscope Node.js client from npm (@pyroscope/nodejs) profiling a
# node process that burns CPU in two named functions, 2:1, pushing to
# profd's --listen-tcp with a bearer token: the scope is its app name,
# its tags are labels, both functions are there in about that ratio, the
# CPU time stored is within the CPU time the process used in the
# profiles it sent, and the wall time within the profiles' durations and
# above the CPU time of the burning.  The burning is CPU time, not wall
# time (tests/tools/pyroscope_node.js), and profiles the client dropped
# on a loaded machine are left out of what the CPU time is held to: the
# same numbers, loaded or not.
. "$(dirname "$0")/lib.sh"
need_pyroscope_node
start_profd --listen-tcp 127.0.0.1:0 --tcp-auth-token node-secret
PORT=$(tcp_port)

node "$TESTS_DIR/tools/pyroscope_node.js" "$PYRO_NODE_DIR" \
    "http://127.0.0.1:$PORT" nodeburn node-secret 4 >"$T/run.json" ||
    fail "the node program failed"
# node exits once none of its pushes is in flight, and profd answers a
# push once it is stored: every push answered 200 is a profile here.
json 'len(j["pushes"]) >= 2 and set(j["pushes"]) == {200}' <"$T/run.json" |
    has -x True || fail "the pushes: $(cat "$T/run.json")"
api GET "/v1/profiles?scope=nodeburn" | sed '$d' >"$T/profiles.json"
n=$(json 'len(j["pushes"])' <"$T/run.json")
[ "$(json 'len(j["profiles"])' <"$T/profiles.json")" = "$n" ] ||
    fail "$n pushes, $(json 'len(j["profiles"])' <"$T/profiles.json") profiles"
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
print("in the profiles sent: the process used %.0f ms (%d rounds dropped)"
      % (run["sent_cpu_ms"], run["dropped_rounds"]))
sent = run["sent_cpu_ms"] * 1e6
assert cpu["total"] <= sent * 1.1 + 50e6, "more CPU than the process used"
assert a + b >= 0.3 * sent, "the burning is not most of it"
durations = sum(p["duration_ns"] for p in walls)
print("wall total %.0f ms, profiles' durations %.0f ms, run %d ms"
      % (wall["total"] / 1e6, durations / 1e6, run["wall_ms"]))
assert wall["total"] <= durations * 1.1 + 100e6, "wall beyond the durations"
# A thread's wall time is at least its CPU time (not the run's wall time:
# a loaded machine lends the sampler fewer ticks).
assert wall["total"] >= 0.5 * (a + b), "less wall time than the burning's CPU"
PY
    fail "the Node client's numbers"
ok "@pyroscope/nodejs over --listen-tcp: scope, tags, burnAlpha:burnBeta, CPU and wall within bounds"
