#!/usr/bin/env python3
"""Compare go tool pprof -top output with profd's /v1/top JSON:

    pprof_top.py PPROF_TOP.txt TOP.json UNIT [--no-total]

PPROF_TOP.txt is `go tool pprof -top -nodefraction=0 -nodecount=100000
-unit=UNIT ...`; every row (name, flat, cum, (inline)/(partial-inline)
mark, in order) must equal TOP.json's rows, and pprof's total its "total"
unless --no-total is given (when pprof's total is not profd's: a
filtered export has dropped what its selection's frame filters dropped)."""
import json
import re
import sys


def parse(path, unit):
    """(total, [(name, flat, cum, inline)]) of pprof -top output."""
    rows, total = [], None
    num = lambda s: int(s.removesuffix(unit)) if s != "0" else 0
    for line in open(path):
        m = re.search(r"of (\S+) total", line)
        if m:
            total = int(m.group(1).removesuffix(unit) or 0)
        m = re.match(r"^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.*)$", line)
        if not m or line.lstrip().startswith("flat"):
            continue
        name, inl = m.group(3), "no"
        for mark in ("inline", "partial-inline"):
            if name.endswith(" (%s)" % mark):
                name, inl = name[: -len(mark) - 3], mark
        rows.append((name, num(m.group(1)), num(m.group(2)), inl))
    return total, rows


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    check_total = "--no-total" not in sys.argv
    total, want = parse(args[0], args[2])
    got = json.load(open(args[1]))
    rows = [(r["function"], r["flat"], r["cum"], r["inline"])
            for r in got["rows"]]
    bad = 0
    if check_total and got["total"] != total:
        print("total", got["total"], "pprof", total)
        bad = 1
    if rows != want:
        bad = 1
        for i in range(max(len(rows), len(want))):
            g = rows[i] if i < len(rows) else None
            w = want[i] if i < len(want) else None
            if g != w:
                print("row", i, "got", g, "pprof", w)
    sys.exit(bad)


if __name__ == "__main__":
    main()
