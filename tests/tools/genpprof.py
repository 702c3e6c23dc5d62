#!/usr/bin/env python3
"""Write a synthetic but valid pprof profile (gzipped) of a chosen size.

Used where a test needs a large profile (a slow import) rather than a
realistic one: random stacks over a pool of functions, two sample types
(samples/count, cpu/nanoseconds), a label per sample.

    genpprof.py OUT --samples N [--functions F] [--depth D] [--seed S]
"""
import argparse
import gzip
import random


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data


def packed(num, values):
    return field_bytes(num, b"".join(varint(v) for v in values))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, required=True)
    ap.add_argument("--functions", type=int, default=2000)
    ap.add_argument("--depth", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
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
    body += field_bytes(1, field_varint(1, s("samples")) + field_varint(2, s("count")))
    body += field_bytes(1, field_varint(1, s("cpu")) + field_varint(2, s("nanoseconds")))
    for f in range(1, a.functions + 1):
        name = "pkg%d.func%d" % (f % 50, f)
        body += field_bytes(5, field_varint(1, f) + field_varint(2, s(name)) +
                            field_varint(3, s(name)) +
                            field_varint(4, s("/src/pkg%d/file.go" % (f % 50))) +
                            field_varint(5, f))
        body += field_bytes(4, field_varint(1, f) + field_varint(3, 0x400000 + f * 16) +
                            field_bytes(4, field_varint(1, f) + field_varint(2, f + 10)))
    key = s("worker")
    vals = [s("w%d" % i) for i in range(8)]
    for _ in range(a.samples):
        depth = rnd.randint(2, a.depth)
        locs = [rnd.randint(1, a.functions) for _ in range(depth)]
        body += field_bytes(2, packed(1, locs) + packed(2, [1, 10000000]) +
                            field_bytes(3, field_varint(1, key) +
                                        field_varint(2, rnd.choice(vals))))
    for text in strings:
        body += field_bytes(6, text.encode())
    body += field_varint(9, 1700000000 * 10**9)
    body += field_varint(10, 10 * 10**9)
    body += field_bytes(11, field_varint(1, s("cpu")) + field_varint(2, s("nanoseconds")))
    # period_type strings must already be in the table: re-emit the table
    # entries added just now, if any.
    body += field_varint(12, 10000000)
    with open(a.out, "wb") as f:
        f.write(gzip.compress(bytes(body), 6))


if __name__ == "__main__":
    main()
