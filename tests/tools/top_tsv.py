#!/usr/bin/env python3
"""top_tsv.py EXPECTED.tsv TOP.json: profd's /v1/top JSON (profctl top
--json) against go tool pprof -top's rows in exact integers
(tests/fixtures/expected/*.tsv, see tests/fixtures/README.md): the total
and every row (function, flat, cum), in order.  Exit 1 naming the first
differences."""
import json
import sys


def main():
    want_rows, want_total = [], None
    for line in open(sys.argv[1]):
        line = line.rstrip("\n")
        if line.startswith("#total\t"):
            want_total = int(line.split("\t")[1])
            continue
        name, flat, cum = line.rsplit("\t", 2)
        want_rows.append((name, int(flat), int(cum)))
    got = json.load(open(sys.argv[2]))
    got_rows = [(r["function"], r["flat"], r["cum"]) for r in got["rows"]]
    bad = 0
    if got["total"] != want_total:
        print("total: got %d, pprof %d" % (got["total"], want_total))
        bad = 1
    if len(got_rows) != len(want_rows):
        print("rows: got %d, pprof %d" % (len(got_rows), len(want_rows)))
        bad = 1
    for i, (g, w) in enumerate(zip(got_rows, want_rows)):
        if g != w:
            print("row %d: got %r, pprof %r" % (i, g, w))
            bad = 1
    sys.exit(bad)


if __name__ == "__main__":
    main()
