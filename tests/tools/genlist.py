#!/usr/bin/env python3
"""Write a small pprof profile whose functions have start lines (Go 1.19's
profiles have none), and the source file its frames name, for comparing
profctl list with go tool pprof -list where pprof starts a listing at the
function's start line:

    genlist.py OUT.pb.gz SRCDIR    (writes SRCDIR/app/main.go)

Functions main.run (start 10), main.work (start 20, inlined into run at
one call site) and main.leaf (start 40); stacks through all three, with
two sample types."""
import gzip
import os
import sys

from pbwire import fb, fv, packed


def main():
    out, src = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(src, "app"), exist_ok=True)
    with open(os.path.join(src, "app", "main.go"), "w") as f:
        for i in range(1, 61):
            f.write("// line %d of app/main.go\n" % i)
    strings = [""]

    def s(text):
        if text not in strings:
            strings.append(text)
        return strings.index(text)

    body = bytearray()
    body += fb(1, fv(1, s("samples")) + fv(2, s("count")))
    body += fb(1, fv(1, s("cpu")) + fv(2, s("nanoseconds")))
    body += fb(3, fv(1, 1) + fv(2, 0x400000) + fv(3, 0x500000) +
               fv(5, s("/usr/bin/app")))
    for fid, name, start in ((1, "main.run", 10), (2, "main.work", 20),
                             (3, "main.leaf", 40)):
        body += fb(5, fv(1, fid) + fv(2, s(name)) + fv(3, s(name)) +
                   fv(4, s("app/main.go")) + fv(5, start))
    # location id: [(function, line)], innermost first
    locs = {1: [(1, 12)], 2: [(2, 23), (1, 14)], 3: [(3, 42)],
            4: [(2, 25)], 5: [(1, 16)], 6: [(3, 45)]}
    for lid, lines in locs.items():
        body += fb(4, fv(1, lid) + fv(2, 1) + fv(3, 0x401000 + lid * 16) +
                   b"".join(fb(4, fv(1, fn) + fv(2, ln)) for fn, ln in lines))
    stacks = [([3, 2, 1], 7), ([6, 4, 5], 3), ([2, 1], 5), ([1], 2),
              ([6, 3, 2, 1], 4), ([4, 5], 1)]
    for st, n in stacks:
        body += fb(2, packed(1, st) + packed(2, [n, n * 10000000]))
    for text in strings:
        body += fb(6, text.encode())
    body += fv(9, 1700000000 * 10**9)
    body += fv(10, 10 * 10**9)
    body += fb(11, fv(1, s("cpu")) + fv(2, s("nanoseconds")))
    body += fv(12, 10000000)
    with open(out, "wb") as f:
        f.write(gzip.compress(bytes(body), 6))


if __name__ == "__main__":
    main()
