#!/usr/bin/env python3
"""List the pairs of the daemon's source files that call each other both
ways (from the symbols of their object files in a build directory).

    twoway.py BUILD_DIR

A file's object defines symbols (nm: T, D, B, R) and uses others (U); a
file calls another if it uses a symbol the other defines.  Prints each
pair with a few of the symbols each side uses of the other, then the
number of pairs; exits 1 if there is any, 2 if no object was found.
"""
import collections
import glob
import os
import subprocess
import sys


def main():
    objs = glob.glob(os.path.join(sys.argv[1], "CMakeFiles", "profd_*.dir",
                                  "daemon", "*", "*.o"))
    if not objs:
        print("no object files of the daemon under %s" % sys.argv[1])
        sys.exit(2)
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        mod = os.path.relpath(o, os.path.dirname(os.path.dirname(o)))
        mod = mod.split(".")[0]
        out = subprocess.run(["nm", o], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBR":
                defs[f[2]] = mod
            elif len(f) == 2 and f[0] == "U":
                uses[mod].add(f[1])
    calls = collections.defaultdict(lambda: collections.defaultdict(set))
    for mod, syms in uses.items():
        for s in syms:
            if s in defs and defs[s] != mod:
                calls[mod][defs[s]].add(s)
    pairs = sorted({tuple(sorted((a, b))) for a in calls for b in calls[a]
                    if a in calls.get(b, {})})
    for a, b in pairs:
        print("%s <-> %s: %s -> %s; %s -> %s" % (
            a, b, a, ", ".join(sorted(calls[a][b])[:4]),
            b, ", ".join(sorted(calls[b][a])[:4])))
    print("%d pairs of files calling each other both ways" % len(pairs))
    sys.exit(1 if pairs else 0)


if __name__ == "__main__":
    main()
