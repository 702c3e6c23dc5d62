#!/usr/bin/env python3
"""Compare profd's top (JSON from profctl top --json) with expected
flat/cum per function: compare_top.py EXPECTED.json METRIC TOP.json

EXPECTED.json maps metric type to {"total", "rows": {function: [flat, cum]}}
(written by genperfetto.py or a test).  Every function must match exactly,
and rows must be in pprof's order (|flat| descending, then name)."""
import json
import sys

exp = json.load(open(sys.argv[1]))[sys.argv[2]]
got = json.load(open(sys.argv[3]))
bad = []
if got["total"] != exp["total"]:
    bad.append("total: got %d, want %d" % (got["total"], exp["total"]))
want = {k: tuple(v) for k, v in exp["rows"].items() if v != [0, 0]}
have = {r["function"]: (r["flat"], r["cum"]) for r in got["rows"]}
for name in sorted(set(want) | set(have)):
    if want.get(name) != have.get(name):
        bad.append("%s: got %s, want %s" % (name, have.get(name), want.get(name)))
keys = [(-abs(r["flat"]), r["function"]) for r in got["rows"]]
if keys != sorted(keys):
    bad.append("rows are not in pprof's order")
for line in bad:
    print(line)
sys.exit(1 if bad else 0)
