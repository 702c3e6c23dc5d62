#!/usr/bin/env python3
"""Write a synthetic but valid pprof profile (gzipped) of a chosen size.

Used where a test needs a large profile (a slow import) rather than a
realistic one: random stacks over a pool of functions, two sample types
(samples/count, cpu/nanoseconds), a label per sample.

    genpprof.py OUT --samples N [--functions F] [--depth D] [--seed S]
                [--stacks K] [--comment TEXT]... [--time SECONDS]
                [--label-values V [--label-key KEY]]

--stacks K draws the samples from K distinct stacks (each with its label)
instead of a new random stack each: a large file whose call tree stays
small (a view of it draws quickly), and quick to write.

--label-values V gives sample i a second label, KEY (--label-key, default
"path") = "/p/<i mod V>": a label of many values (a group_by on it makes
a series of each) in a small file.
"""
import argparse
import gzip
import random

from pbwire import fb, fv, packed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, required=True)
    ap.add_argument("--functions", type=int, default=2000)
    ap.add_argument("--depth", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stacks", type=int, default=0,
                    help="draw samples from this many distinct stacks")
    ap.add_argument("--time", type=int, default=1700000000,
                    help="the profile's time, seconds since the epoch")
    ap.add_argument("--comment", action="append", default=[],
                    help="a Profile.comment (repeatable)")
    ap.add_argument("--label-values", type=int, default=0,
                    help="sample i gets KEY=/p/<i mod this> too")
    ap.add_argument("--label-key", default="path")
    a = ap.parse_args()
    rnd = random.Random(a.seed)

    strings = [""]
    index = {}

    def s(text):
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    body = bytearray()
    body += fb(1, fv(1, s("samples")) + fv(2, s("count")))
    body += fb(1, fv(1, s("cpu")) + fv(2, s("nanoseconds")))
    for f in range(1, a.functions + 1):
        name = "pkg%d.func%d" % (f % 50, f)
        body += fb(5, fv(1, f) + fv(2, s(name)) +
                            fv(3, s(name)) +
                            fv(4, s("/src/pkg%d/file.go" % (f % 50))) +
                            fv(5, f))
        body += fb(4, fv(1, f) + fv(3, 0x400000 + f * 16) +
                            fb(4, fv(1, f) + fv(2, f + 10)))
    key = s("worker")
    vals = [s("w%d" % i) for i in range(8)]
    def fields():
        depth = rnd.randint(2, a.depth)
        locs = [rnd.randint(1, a.functions) for _ in range(depth)]
        return (packed(1, locs) + packed(2, [1, 10000000]) +
                fb(3, fv(1, key) + fv(2, rnd.choice(vals))))

    def sample():
        return fb(2, fields())

    if a.label_values > 0:
        many = s(a.label_key)
        pool = [fields() for _ in range(a.stacks)]
        for i in range(a.samples):
            one = rnd.choice(pool) if pool else fields()
            body += fb(2, one + fb(3, fv(1, many) + fv(
                2, s("/p/%d" % (i % a.label_values)))))
    elif a.stacks > 0:
        pool = [sample() for _ in range(a.stacks)]
        body += b"".join(rnd.choice(pool) for _ in range(a.samples))
    else:
        for _ in range(a.samples):
            body += sample()
    comments = [s(text) for text in a.comment]
    for text in strings:
        body += fb(6, text.encode())
    for c in comments:
        body += fv(13, c)
    body += fv(9, a.time * 10**9)
    body += fv(10, 10 * 10**9)
    body += fb(11, fv(1, s("cpu")) + fv(2, s("nanoseconds")))
    # period_type strings must already be in the table: re-emit the table
    # entries added just now, if any.
    body += fv(12, 10000000)
    with open(a.out, "wb") as f:
        f.write(gzip.compress(bytes(body), 6))


if __name__ == "__main__":
    main()
