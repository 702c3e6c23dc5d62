# GET /v1/diff: the current selection against base.* parameters.  Checks
# that the merged tree carries both trees' values node by node, the rows
# are each side's top, normalisation scales the base to the current total,
# and a selection compared with itself shows no change.
. "$(dirname "$0")/lib.sh"
start_profd
GEN="$TESTS_DIR/tools/genpprof.py"
python3 "$GEN" "$T/a.pb.gz" --samples 3000 --functions 40 --depth 6 --seed 1
python3 "$GEN" "$T/b.pb.gz" --samples 6000 --functions 40 --depth 6 --seed 2
"$PROFCTL" push "$T/a.pb.gz" --scope before >/dev/null
"$PROFCTL" push "$T/b.pb.gz" --scope after >/dev/null

body_of "$(api GET "/v1/diff?scope=after&base.scope=before&metric=cpu")" >"$T/d.json"
body_of "$(api GET "/v1/tree?scope=before&metric=cpu")" >"$T/tb.json"
body_of "$(api GET "/v1/tree?scope=after&metric=cpu")" >"$T/ta.json"
body_of "$(api GET "/v1/top?scope=before&metric=cpu")" >"$T/pb.json"
body_of "$(api GET "/v1/top?scope=after&metric=cpu")" >"$T/pa.json"
python3 - "$T" <<'PY' || fail "diff does not match the two trees and tops"
import json, sys
t = sys.argv[1]
d, tb, ta, pb, pa = (json.load(open("%s/%s.json" % (t, n))) for n in ("d", "tb", "ta", "pb", "pa"))
def paths(node, prefix, out, key):
    for c in node["children"]:
        p = prefix + (c["name"],)
        out[p] = out.get(p, 0) + c[key]
        paths(c, p, out, key)
    return out
want_b, want_c = paths(tb["root"], (), {}, "total"), paths(ta["root"], (), {}, "total")
got_b, got_c = paths(d["root"], (), {}, "base"), paths(d["root"], (), {}, "current")
assert set(got_b) == set(want_b) | set(want_c)
for p in got_b:
    assert got_b[p] == want_b.get(p, 0) and got_c[p] == want_c.get(p, 0), p
assert d["root"]["base"] == tb["root"]["total"] and d["root"]["current"] == ta["root"]["total"]
fb = {r["function"]: r["flat"] for r in pb["rows"]}
fa = {r["function"]: r["flat"] for r in pa["rows"]}
for r in d["rows"]:
    assert r["base_flat"] == fb.get(r["function"], 0), r
    assert r["current_flat"] == fa.get(r["function"], 0), r
    assert r["delta_flat"] == r["current_flat"] - r["base_flat"]
deltas = [abs(r["delta_flat"]) for r in d["rows"]]
assert deltas == sorted(deltas, reverse=True)
assert len(d["rows"]) == len(set(fb) | set(fa))
PY
ok "diff tree and rows equal each side's tree and top"

body_of "$(api GET "/v1/diff?scope=after&base.scope=before&metric=cpu&normalize=true")" >"$T/n.json"
python3 - "$T/n.json" <<'PY' || fail "normalised diff"
import json, sys
d = json.load(open(sys.argv[1]))
assert abs(d["root"]["base"] - d["root"]["current"]) <= 1, (d["root"]["base"], d["root"]["current"])
assert abs(d["scale"] - d["current"]["total"] / d["base"]["total"]) < 1e-9
PY
ok "normalize=true scales the base to the current total"

body_of "$(api GET "/v1/diff?scope=after&base.scope=after&metric=cpu")" >"$T/s.json"
[ "$(json 'max(abs(r["delta_flat"]) + abs(r["delta_cum"]) for r in j["rows"])' <"$T/s.json")" = 0 ] ||
    fail "a selection against itself shows changes"
ok "a selection against itself: no change"

for q in "scope=after" "scope=after&base.scope=before&base.since=x" \
    "scope=after&base.scope=before&normalize=maybe" \
    "scope=after&base.scope=before&base.metric=samples&metric=cpu"; do
	[ "$(status_of "$(api GET "/v1/diff?$q")")" = 400 ] || fail "/v1/diff?$q is not 400"
done
ok "bad diffs: 400"
