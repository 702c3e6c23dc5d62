#!/usr/bin/env python3
"""Checks of querier.v1's replies (querier_connect.js's output, one JSON
line per call, by name) against what profctl says of the same selection.

    querier_check.py same A.jsonl B.jsonl [NAME...]
        every call answered alike in both files (the two encodings), but
        the NAMEs (answered in one only)
    querier_check.py flame R.jsonl NAME TOP.json
        the flame graph's total is profctl top's, and every function's
        self (summed) and total (each stack once) are its flat and cum
    querier_check.py pruned R.jsonl FULL PRUNED MAX
        PRUNED is FULL pruned to MAX nodes by Pyroscope's rule: the nodes
        kept are those of FULL whose total reaches the MAX-th largest,
        every node's total is its self plus its children's, the root's
        is FULL's
    querier_check.py series R.jsonl NAME TIMELINE.json
        the one series' points are profctl timeline's, time and value
    querier_check.py get R.jsonl NAME EXPR
        print EXPR over the call's answer (r: its reply, e: its error)
"""
import json
import sys


def load(path):
    calls = {}
    with open(path) as f:
        for line in f:
            c = json.loads(line)
            calls[c["name"]] = c
    return calls


def fail(msg):
    sys.exit("querier_check: " + msg)


def nodes_of(fg):
    """The flame graph's nodes as (level, x, total, self, name, parent)."""
    names = fg["names"]
    out, prev = [], []
    for depth, level in enumerate(fg.get("levels", [])):
        v = [int(x) for x in level.get("values", [])]
        if len(v) % 4 != 0:
            fail("level %d: %d numbers, not 4 per node" % (depth, len(v)))
        cur, x = [], 0
        for i in range(0, len(v), 4):
            x += v[i]
            total, self_, name = v[i + 1], v[i + 2], names[v[i + 3]]
            parent = None
            for p in prev:
                n = out[p]
                if n[1] <= x and x + total <= n[1] + n[2]:
                    parent = p
            if depth > 0 and parent is None:
                fail("level %d: node %s at x %d under no node" %
                     (depth, name, x))
            out.append((depth, x, total, self_, name, parent))
            cur.append(len(out) - 1)
            x += total
        prev = cur
    return out


def per_function(nodes):
    """Self summed per name; total per name, each stack once (a node
    under another of its name is not counted again, as pprof's cum)."""
    flat, cum = {}, {}
    for i, n in enumerate(nodes):
        if n[0] == 0:
            continue
        name = n[4]
        flat[name] = flat.get(name, 0) + n[3]
        p, seen = n[5], False
        while p is not None:
            if nodes[p][4] == name and nodes[p][0] > 0:
                seen = True
            p = nodes[p][5]
        if not seen:
            cum[name] = cum.get(name, 0) + n[2]
    return flat, cum


def cmd_same(a, b, skip):
    x, y = load(a), load(b)
    if sorted(x) != sorted(y):
        fail("not the same calls: %s, %s" % (sorted(x), sorted(y)))
    for name in x:
        if name in skip:
            continue
        rx, ry = x[name].get("reply"), y[name].get("reply")
        ex, ey = x[name].get("error"), y[name].get("error")
        if rx != ry or (ex or {}).get("code") != (ey or {}).get("code"):
            fail("%s: the encodings answer differently:\n%s\n%s" %
                 (name, json.dumps(x[name])[:600], json.dumps(y[name])[:600]))


def flamegraph(path, name):
    c = load(path)[name]
    if "reply" not in c:
        fail("%s: %s" % (name, c.get("error")))
    return c["reply"]["flamegraph"]


def cmd_flame(path, name, top_path):
    fg = flamegraph(path, name)
    with open(top_path) as f:
        top = json.load(f)
    if int(fg["total"]) != top["total"]:
        fail("%s: total %s, profctl top's %d" % (name, fg["total"],
                                                 top["total"]))
    nodes = nodes_of(fg)
    flat, cum = per_function(nodes)
    rows = {r["function"]: r for r in top["rows"]}
    if top["rows_total"] != len(top["rows"]):
        fail("profctl top listed %d of %d rows" % (len(top["rows"]),
                                                   top["rows_total"]))
    for fn in set(flat) | set(rows):
        if fn == "other":
            fail("%s: an \"other\" node in an unpruned graph" % name)
        r = rows.get(fn, {"flat": 0, "cum": 0})
        if flat.get(fn, 0) != r["flat"] or cum.get(fn, 0) != r["cum"]:
            fail("%s: %s: self %d total %d, profctl top: flat %d cum %d" %
                 (name, fn, flat.get(fn, 0), cum.get(fn, 0), r["flat"],
                  r["cum"]))
    print("%d functions, total %d" % (len(rows), top["total"]))


def cmd_pruned(path, full_name, pruned_name, max_nodes):
    full = nodes_of(flamegraph(path, full_name))
    pruned = nodes_of(flamegraph(path, pruned_name))
    totals = sorted((n[2] for n in full if n[0] > 0), reverse=True)
    threshold = totals[max_nodes - 1] if len(totals) > max_nodes else 0
    want = sum(1 for n in full if n[0] > 0 and n[2] >= threshold)
    kept = [n for n in pruned if n[0] > 0 and n[4] != "other"]
    if len(kept) != want:
        fail("%s: %d nodes kept, %d have a total of at least the %d-th "
             "largest (%d)" % (pruned_name, len(kept), want, max_nodes,
                                threshold))
    if pruned[0][2] != full[0][2]:
        fail("%s: root total %d, not %d" % (pruned_name, pruned[0][2],
                                            full[0][2]))
    for i, n in enumerate(pruned):
        below = sum(c[2] for c in pruned if c[5] == i)
        if n[3] + below != n[2]:
            fail("%s: %s: self %d + children %d != total %d" %
                 (pruned_name, n[4], n[3], below, n[2]))
    print("%d of %d nodes kept" % (len(kept), len(totals)))


def cmd_series(path, name, tl_path):
    c = load(path)[name]
    if "reply" not in c:
        fail("%s: %s" % (name, c.get("error")))
    series = c["reply"].get("series", [])
    if len(series) != 1:
        fail("%s: %d series, not 1" % (name, len(series)))
    got = [(int(p.get("timestamp", 0)), float(p.get("value", 0)))
           for p in series[0].get("points", [])]
    with open(tl_path) as f:
        tl = json.load(f)
    want = [(p["time_ns"] // 1000000, float(p["value"]))
            for p in tl["points"]]
    if got != want:
        fail("%s: points %s, profctl timeline's %s" % (name, got[:8],
                                                       want[:8]))
    print("%d points, sum %d" % (len(got), sum(v for _, v in got)))


def cmd_get(path, name, expr):
    c = load(path)[name]
    r, e = c.get("reply"), c.get("error")
    v = eval(expr, {"r": r, "e": e})
    print(v if not isinstance(v, (dict, list)) else json.dumps(v))


def main():
    a = sys.argv[1:]
    if a and a[0] == "same" and len(a) >= 3:
        cmd_same(a[1], a[2], set(a[3:]))
    elif a and a[0] == "flame" and len(a) == 4:
        cmd_flame(a[1], a[2], a[3])
    elif a and a[0] == "pruned" and len(a) == 5:
        cmd_pruned(a[1], a[2], a[3], int(a[4]))
    elif a and a[0] == "series" and len(a) == 4:
        cmd_series(a[1], a[2], a[3])
    elif a and a[0] == "get" and len(a) == 4:
        cmd_get(a[1], a[2], a[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
