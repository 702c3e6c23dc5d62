#!/usr/bin/env python3
"""Write N distinct blobs of one real profile: the raw (gunzipped) protobuf
with an unknown field (1000, skipped by decoders) holding a counter, so
that each blob is a new push (another SHA-256) with the same samples.

    distinct_pprof.py PROFILE.pprof OUTDIR N     (writes OUTDIR/0.pb ...)
"""
import gzip
import sys

from pbwire import fv


def main():
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(src, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    for i in range(n):
        with open("%s/%d.pb" % (out, i), "wb") as f:
            f.write(raw + fv(1000, i + 1))


if __name__ == "__main__":
    main()
