#!/usr/bin/env python3
"""Write copies of a real profile at other times: the raw (gunzipped)
protobuf with its time_nanos (field 9) replaced, so that each copy is a
new push (another SHA-256) of the same samples at the time given.

    retime_pprof.py PROFILE.pprof OUT.pb TIME_NS
"""
import gzip
import sys

from pbwire import fv


def read_varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def without_field(raw, num):
    """The top-level fields of raw but those numbered num."""
    out, i = bytearray(), 0
    while i < len(raw):
        start = i
        key, i = read_varint(raw, i)
        wt = key & 7
        if wt == 0:
            _, i = read_varint(raw, i)
        elif wt == 1:
            i += 8
        elif wt == 2:
            n, i = read_varint(raw, i)
            i += n
        elif wt == 5:
            i += 4
        else:
            sys.exit("retime_pprof: wire type %d at byte %d" % (wt, start))
        if key >> 3 != num:
            out += raw[start:i]
    return bytes(out)


def main():
    src, out, t = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(src, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    with open(out, "wb") as f:
        f.write(without_field(raw, 9) + fv(9, t))


if __name__ == "__main__":
    main()
