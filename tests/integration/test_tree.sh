# GET /v1/tree against the Go fixtures: the tree's totals equal top's, its
# folded form pushed back as folded gives the same top, and pruning with
# min_fraction keeps every total (the pruned weight in "other" nodes); a
# node's frame_line and inline mark are those of the frames merged into it,
# as go tool pprof -raw lists them (skipped, 77, without go).
. "$(dirname "$0")/lib.sh"
start_profd
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope fx >/dev/null
"$PROFCTL" push "$FIXTURES/heap.pprof" --scope fxh >/dev/null

check_tree() {	# scope metric
	body_of "$(api GET "/v1/tree?scope=$1&metric=$2")" >"$T/tree.json"
	"$PROFCTL" top --scope "$1" --metric "$2" --json >"$T/top.json"
	python3 - "$T/tree.json" "$T/top.json" <<'PY' || fail "tree of $1/$2"
import json, sys
tree, top = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert tree["total"] == top["total"], (tree["total"], top["total"])
flat, cum = {}, {}
def walk(n, path):
    s = sum(c["total"] for c in n["children"]) + n["self"]
    assert s == n["total"], ("node sum", n["name"], s, n["total"])
    names = [c["name"] for c in n["children"]]
    assert names == sorted(names), ("children not sorted", names)
    if n is not tree["root"]:
        flat[n["name"]] = flat.get(n["name"], 0) + n["self"]
    for c in n["children"]:
        walk(c, path + [c["name"]])
walk(tree["root"], [])
for r in top["rows"]:
    assert flat.get(r["function"], 0) == r["flat"], ("flat", r)
assert tree["root"]["total"] == sum(r["flat"] for r in top["rows"])
PY
}
check_tree fx cpu
check_tree fx samples
for m in alloc_space alloc_objects inuse_space inuse_objects; do
	check_tree fxh "$m"
done
ok "tree totals and every function's self equal top, for 6 sample types"

# Folded round trip: push the folded tree back, same top.
r=$(api GET "/v1/tree?scope=fx&metric=cpu&format=folded")
[ "$(status_of "$r")" = 200 ] || fail "folded tree: $r"
body_of "$r" >"$T/fx.folded"
"$PROFCTL" push "$T/fx.folded" --scope fx-back --metric cpu/nanoseconds >/dev/null
"$PROFCTL" top --scope fx --metric cpu --json >"$T/a.json"
"$PROFCTL" top --scope fx-back --metric cpu --json >"$T/b.json"
python3 - "$T/a.json" "$T/b.json" <<'PY' || fail "folded round trip changed top"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra = [(r["function"], r["flat"], r["cum"]) for r in a["rows"]]
rb = [(r["function"], r["flat"], r["cum"]) for r in b["rows"]]
assert a["total"] == b["total"] and ra == rb, (a["total"], b["total"])
PY
ok "folded output pushed back as folded gives the same top"

# Pruning keeps totals.
body_of "$(api GET "/v1/tree?scope=fx&metric=cpu&min_fraction=0.05")" >"$T/p.json"
python3 - "$T/p.json" <<'PY' || fail "pruned tree"
import json, sys
t = json.load(open(sys.argv[1]))
root, others, nodes = t["root"], 0, 0
cut = 0.05 * abs(root["total"])
def walk(n):
    global others, nodes
    nodes += 1
    assert sum(c["total"] for c in n["children"]) + n["self"] == n["total"]
    for c in n["children"]:
        if c.get("other"):
            others += 1
        else:
            assert abs(c["total"]) >= cut, c["name"]
        walk(c)
walk(root)
assert others > 0 and nodes < 100, (others, nodes)
PY
ok "min_fraction folds small nodes into \"other\", totals kept"

# source=false: the same tree without file, line and mapping.
body_of "$(api GET "/v1/tree?scope=fx&metric=cpu")" >"$T/src.json"
body_of "$(api GET "/v1/tree?scope=fx&metric=cpu&source=false")" >"$T/nosrc.json"
python3 - "$T/src.json" "$T/nosrc.json" <<'PY' || fail "source=false"
import json, sys
full, bare = (json.load(open(f)) for f in sys.argv[1:])
had = 0
def strip(n):
    global had
    for k in ("file", "line", "frame_line", "mapping"):
        had += n.pop(k, None) is not None
    for c in n["children"]:
        strip(c)
strip(full["root"])
assert had > 0, "the full tree names no source: the test proves nothing"
assert full == bare, "source=false changed more than the source fields"
PY
ok "source=false leaves out file, line, frame_line and mapping, and nothing else"

for q in "scope=fx&min_fraction=2" "scope=fx&format=xml" "scope=fx&metric=nosuch" \
    "scope=fx&source=maybe"; do
	[ "$(status_of "$(api GET "/v1/tree?$q")")" = 400 ] || fail "/v1/tree?$q is not 400"
done
[ "$(status_of "$(api GET "/v1/tree?scope=nosuch")")" = 404 ] || fail "unknown scope"
ok "bad parameters: 400, unknown scope: 404"

# Per node, the frames' own line (when they all agree) and the inline mark
# (when every one was inlined into its caller), against go tool pprof -raw:
# its locations list their lines leaf first, all but the last inlined.
# Without frame filters (the callsite tree) and with one that keeps every
# stack (stack by stack).
command -v go >/dev/null 2>&1 || { echo "SKIP: go not installed (frame lines)"; exit 77; }
TZ=UTC go tool pprof -raw "$FIXTURES/cpu.pprof" >"$T/raw.txt" 2>/dev/null ||
    fail "go tool pprof -raw"
for q in "" "&ignore=zz_no_such_frame"; do
	body_of "$(api GET "/v1/tree?scope=fx&metric=cpu&min_fraction=0$q")" >"$T/tree.json"
	python3 - "$T/raw.txt" "$T/tree.json" <<'PY' || fail "frame lines, inline marks ($q)"
import json, re, sys
raw, tree = open(sys.argv[1]).read().split("\n"), json.load(open(sys.argv[2]))
at = raw.index("Samples:")
col = raw[at + 1].split().index("cpu/nanoseconds")
samples, locs, cur, sec = [], {}, None, "s"
for l in raw[at + 2:]:
    if l.startswith("Locations"):
        sec = "l"
        continue
    if l.startswith("Mappings"):
        break
    if sec == "s":
        m = re.match(r"^\s*((?:-?\d+\s+)+)(-?\d+):((?:\s+\d+)*)\s*$", l)
        if m:
            vals = (m.group(1) + m.group(2)).split()
            samples.append((int(vals[col]), [int(x) for x in m.group(3).split()]))
        continue
    m = re.match(r"^\s+(?:(\d+): 0x[0-9a-f]+ (?:M=\d+ )?)?(\S+) (\S+):(\d+) s=\d+$", l)
    if m:
        if m.group(1):
            cur = locs[int(m.group(1))] = []
        cur.append((m.group(2), int(m.group(4))))
want = {}
for v, ids in samples:
    if v == 0:
        continue
    path = ()
    for loc in reversed(ids):
        lines = locs[loc]
        assert lines, ("a location without lines", loc)
        for k in range(len(lines) - 1, -1, -1):
            path += (lines[k][0],)
            w = want.setdefault(path, [set(), True])
            w[0].add(lines[k][1])
            w[1] = w[1] and k < len(lines) - 1
seen = lines_n = inl_n = 0
def walk(n, path):
    global seen, lines_n, inl_n
    for c in n["children"]:
        p = path + (c["name"],)
        ls, inl = want.pop(p)
        line = next(iter(ls)) if len(ls) == 1 else 0
        assert c.get("frame_line", 0) == line, (p, c.get("frame_line"), ls)
        assert c.get("inline", False) == inl, (p, c.get("inline"), inl)
        seen += 1
        lines_n += line != 0
        inl_n += inl
        walk(c, p)
walk(tree["root"], ())
assert not want, ("nodes pprof has and the tree not", list(want)[:3])
assert lines_n > 0 and inl_n > 0 and lines_n < seen, (seen, lines_n, inl_n)
print("%d nodes: %d with one line, %d inlined" % (seen, lines_n, inl_n))
PY
done
ok "frame_line and inline per node as go tool pprof -raw gives them, with and without frame filters"
