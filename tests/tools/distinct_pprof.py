#!/usr/bin/env python3
"""Write N distinct blobs of one real profile: the raw (gunzipped) protobuf
with an unknown field (1000, skipped by decoders) holding a counter, so
that each blob is a new push (another SHA-256) with the same samples.
With --values, each also has one more sample (at location 1, the value
i + 1 of each of its NTYPES sample types), so that the values differ too:
the store keeps a block's data once however many profiles have it
(schema 13), and a test of what profiles take on disk needs each its own.

    distinct_pprof.py [--values NTYPES] PROFILE.pprof OUTDIR N
    (writes OUTDIR/0.pb ...)
"""
import gzip
import sys

from pbwire import fb, fv, packed


def main():
    args = sys.argv[1:]
    ntypes = 0
    if args[:1] == ["--values"]:
        ntypes = int(args[1])
        args = args[2:]
    src, out, n = args[0], args[1], int(args[2])
    with open(src, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    for i in range(n):
        extra = b""
        if ntypes:
            extra = fb(2, packed(1, [1]) + packed(2, [i + 1] * ntypes))
        with open("%s/%d.pb" % (out, i), "wb") as f:
            f.write(raw + extra + fv(1000, i + 1))


if __name__ == "__main__":
    main()
