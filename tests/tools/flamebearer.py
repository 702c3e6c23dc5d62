#!/usr/bin/env python3
"""Check a flamebearer reply of /pyroscope/render or /render-diff against
profctl's JSON for the same selection (tests/integration/test_render.sh).

    flamebearer.py single RENDER TOP TREE [MAXNODES]
        numTicks is top's total; every function's self (summed over its
        nodes) is top's flat; every node's total is its self plus the
        nodes over its span one level down; names[0] is "total";
        unpruned, maxSelf is the tree's largest self and the levels hold
        every node of the tree; pruned to MAXNODES, they hold the nodes
        of the MAXNODES largest totals (those tied with the last too).
    flamebearer.py timeline RENDER TIMELINE
        the timeline's samples add up to numTicks and, at its step, are
        profctl timeline's points.
    flamebearer.py diff RENDER DIFF [MAXNODES]
        leftTicks and rightTicks are the diff's base and current totals,
        each function's left and right self its base and current flat;
        pruned to MAXNODES, the levels hold the nodes (the root counted)
        of the MAXNODES largest max(base, current) totals and ties.

Prints what differs and exits 1; prints a summary line otherwise.
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def fail(msg):
    print("flamebearer.py: " + msg, file=sys.stderr)
    sys.exit(1)


def nodes(fb, width):
    """The levels as lists of (x, total, self, name) with absolute x, one
    list per side (two for a diff)."""
    names = fb["names"]
    sides = [[] for _ in range(1 if width == 4 else 2)]
    for level in fb["levels"]:
        if len(level) % width:
            fail("a level of %d numbers, not %d a node" % (len(level), width))
        for s, side in enumerate(sides):
            row, end = [], 0
            for i in range(0, len(level), width):
                x = end + level[i + 3 * s]
                total, self = level[i + 3 * s + 1], level[i + 3 * s + 2]
                row.append((x, total, self, names[level[i + width - 1]]))
                end = x + total
            side.append(row)
    return sides


def check_spans(levels):
    """Every node's total is its self plus the nodes over its span one
    level down."""
    for d in range(len(levels) - 1):
        for x, total, self, name in levels[d]:
            under = sum(t for cx, t, _, _ in levels[d + 1]
                        if t != 0 and x <= cx < x + total)
            if total != self + under:
                fail("level %d %s: total %d, self %d + children %d" %
                     (d, name, total, self, under))


def selves(levels):
    out = {}
    for row in levels[1:]:
        for _, _, self, name in row:
            out[name] = out.get(name, 0) + self
    return out


def tree_nodes(node, out):
    for c in node.get("children", []):
        out.append(c)
        tree_nodes(c, out)
    return out


def single(render, top, tree, maxnodes=None):
    fb = render["flamebearer"]
    if fb["names"][0] != "total":
        fail("names[0] is %r" % fb["names"][0])
    if fb["numTicks"] != top["total"]:
        fail("numTicks %d, profctl top total %d" %
             (fb["numTicks"], top["total"]))
    (levels,) = nodes(fb, 4)
    if levels[0][0][1] != fb["numTicks"]:
        fail("the root's total %d is not numTicks" % levels[0][0][1])
    check_spans(levels)
    got = selves(levels)
    tn = tree_nodes(tree["root"], [])
    kept = sum(1 for row in levels[1:] for n in row if n[3] != "other")
    if maxnodes is None:
        for r in top["rows"]:
            if got.get(r["function"], 0) != r["flat"]:
                fail("%s: self %d, profctl top flat %d" %
                     (r["function"], got.get(r["function"], 0), r["flat"]))
        want = max([0] + [n["self"] for n in tn])
        if fb["maxSelf"] != want:
            fail("maxSelf %d, the tree's largest self %d" %
                 (fb["maxSelf"], want))
        if kept != len(tn):
            fail("%d nodes in the levels, %d in the tree" % (kept, len(tn)))
        print("single: numTicks %d, %d functions' self, maxSelf %d, %d "
              "nodes" % (fb["numTicks"], len(top["rows"]), fb["maxSelf"],
                         kept))
        return
    totals = sorted((n["total"] for n in tn), reverse=True)
    if len(totals) <= maxnodes:
        fail("the tree has %d nodes, not more than %d" %
             (len(totals), maxnodes))
    cut = totals[maxnodes - 1]
    want = sum(1 for t in totals if t >= cut)
    if kept != want:
        fail("pruned to %d: %d nodes kept, want %d (totals >= %d)" %
             (maxnodes, kept, want, cut))
    if "other" not in got:
        fail("pruned to %d: no \"other\" node" % maxnodes)
    if sum(got.values()) != fb["numTicks"]:
        fail("pruned: the selves add up to %d, not numTicks %d" %
             (sum(got.values()), fb["numTicks"]))
    print("pruned to %d: %d nodes of totals >= %d, \"other\" %d, sums "
          "exact" % (maxnodes, kept, cut, got["other"]))


def timeline(render, tl):
    t = render["timeline"]
    fb = render["flamebearer"]
    step, start, samples = t["durationDelta"], t["startTime"], t["samples"]
    if sum(samples) != fb["numTicks"]:
        fail("timeline samples add up to %d, numTicks %d" %
             (sum(samples), fb["numTicks"]))
    if tl["step_s"] != step:
        fail("step %d, profctl timeline's %d" % (step, tl["step_s"]))
    want = {}
    for p in tl["points"]:
        if p["value"]:
            want[p["time_ns"] // 10**9] = p["value"]
    got = {start + i * step: v for i, v in enumerate(samples) if v}
    if got != want:
        fail("timeline %s, profctl timeline %s" % (got, want))
    print("timeline: %d points at %d s adding up to %d, profctl "
          "timeline's" % (len(got), step, sum(samples)))


def diff_nodes(node, out):
    out.append(max(abs(node["base"]), abs(node["current"])))
    for c in node.get("children", []):
        diff_nodes(c, out)
    return out


def diff(render, d, maxnodes=None):
    fb = render["flamebearer"]
    if render["metadata"]["format"] != "double":
        fail("format %r" % render["metadata"]["format"])
    if render["leftTicks"] != d["base"]["total"] or \
            render["rightTicks"] != d["current"]["total"]:
        fail("ticks %d / %d, profctl diff %d / %d" %
             (render["leftTicks"], render["rightTicks"],
              d["base"]["total"], d["current"]["total"]))
    if fb["numTicks"] != render["leftTicks"] + render["rightTicks"]:
        fail("numTicks %d is not left + right" % fb["numTicks"])
    left, right = nodes(fb, 7)
    check_spans(left)
    check_spans(right)
    ls, rs = selves(left), selves(right)
    if maxnodes is not None:
        m = sorted(diff_nodes(d["root"], []), reverse=True)
        cut = m[maxnodes - 1]
        want = sum(1 for v in m if v >= cut)
        kept = sum(1 for row in left for n in row if n[3] != "other")
        if kept != want or "other" not in ls:
            fail("pruned to %d: %d nodes kept, want %d (>= %d)" %
                 (maxnodes, kept, want, cut))
        if sum(ls.values()) != render["leftTicks"] or \
                sum(rs.values()) != render["rightTicks"]:
            fail("pruned: the selves do not add up to the ticks")
        print("diff pruned to %d: %d nodes of totals >= %d, sums exact" %
              (maxnodes, kept, cut))
        return
    for r in d["rows"]:
        f = r["function"]
        if ls.get(f, 0) != r["base_flat"] or rs.get(f, 0) != r["current_flat"]:
            fail("%s: self %d / %d, profctl diff flat %d / %d" %
                 (f, ls.get(f, 0), rs.get(f, 0), r["base_flat"],
                  r["current_flat"]))
    print("diff: ticks %d / %d, %d functions' left and right self" %
          (render["leftTicks"], render["rightTicks"], len(d["rows"])))


def main():
    what, args = sys.argv[1], [int(a) if a.isdigit() else load(a)
                               for a in sys.argv[2:]]
    {"single": single, "timeline": timeline, "diff": diff}[what](*args)


if __name__ == "__main__":
    main()
