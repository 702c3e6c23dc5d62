#!/usr/bin/env python3
"""Compare profctl traces text with go tool pprof -traces text:
compare_traces.py PPROF.txt PROFCTL.txt

Both bodies (from the first separator line on) are cut into one block per
trace at the separator lines.  pprof prints samples in the profile's order,
which the store does not keep (it merges equal stacks and label sets), so
the blocks are compared as multisets: each block's lines must be pprof's
line for line, and there must be as many of each.  The last line of both
must be the separator."""
import collections
import sys

SEP = "-----------+-------------------------------------------------------"


def blocks(path):
    lines = open(path).read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    try:
        start = lines.index(SEP)
    except ValueError:
        sys.exit("%s: no separator line" % path)
    body = lines[start:]
    if body[-1] != SEP:
        sys.exit("%s: does not end with the separator" % path)
    out, cur = [], None
    for line in body:
        if line == SEP:
            if cur is not None:
                out.append("\n".join(cur))
            cur = []
        else:
            cur.append(line)
    return collections.Counter(out)


want, got = blocks(sys.argv[1]), blocks(sys.argv[2])
bad = 0
for b in sorted(set(want) | set(got)):
    if want[b] != got[b]:
        bad += 1
        if bad <= 5:
            print("pprof has %d, profctl %d of:\n%s\n" % (want[b], got[b], b))
if bad:
    print("%d blocks differ (of %d in pprof)" % (bad, sum(want.values())))
sys.exit(1 if bad else 0)
