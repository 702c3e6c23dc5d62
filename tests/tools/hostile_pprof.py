#!/usr/bin/env python3
"""Write a gzipped pprof whose strings would act on a terminal that shows
them raw: what a writer's token can push for a reader's profctl to print.

    hostile_pprof.py OUT [--scale N]

Function names, file names, the sample type and unit, label keys and
values, a numeric label's unit and the comments hold, one kind each:
ESC [2J (clear the screen), OSC 52 (set the clipboard) ended by BEL, a CR
that overwrites its line, BEL, the C1 controls U+009B (CSI) and U+009D
(OSC) as UTF-8, DEL, a newline and a tab, and bytes that are not UTF-8 (a
lone 0xff, an overlong '/'); beside them a valid multibyte name, SAFE
below, which must come out whole. Every function has a line, for list.
--scale multiplies the values (a second profile to diff against).
Deterministic: no randomness.
"""
import argparse
import gzip
import sys

from pbwire import fb, fv, packed

# The valid name every view must print intact.
SAFE = "main.日本語_関数🔥"

HOSTILE = [
    b"\x1b[2J\x1b[Hcleared",
    b"\x1b]52;c;cHduZWQ=\x07clip",
    b"good\rEVIL",
    b"bell\x07",
    b"csi\xc2\x9b" b"2Jc1",
    b"osc\xc2\x9d" b"52;c;eA==\xc2\x9cc1",
    b"del\x7f",
    b"new\nline\ttab",
    b"bad\xffutf8",
    b"over\xc0\xaflong",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--scale", type=int, default=1)
    a = ap.parse_args()

    strings = [b""]
    index = {}

    def s(text):
        if isinstance(text, str):
            text = text.encode()
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    body = bytearray()
    # The one sample type, hostile in its type and unit both.
    body += fb(1, fv(1, s(b"samples\x1b[2J")) + fv(2, s(b"count\xc2\x9b")))
    names = [SAFE.encode()] + [b"fn." + h for h in HOSTILE]
    files = [b"/src/safe.go"] + [b"/src/" + h + b".go" for h in HOSTILE]
    for i, (name, path) in enumerate(zip(names, files), start=1):
        body += fb(5, fv(1, i) + fv(2, s(name)) + fv(3, s(name)) +
                   fv(4, s(path)) + fv(5, 10 * i))
        body += fb(4, fv(1, i) + fv(3, 0x1000 * i) +
                   fb(4, fv(1, i) + fv(2, 10 * i + 2)))
    n = len(names)
    for i in range(1, n + 1):
        # A stack of its own under the safe function (1): every hostile
        # name is a leaf with flat, and a caller, in some view.
        locs = [i, 1] if i != 1 else [1]
        h = HOSTILE[(i - 1) % len(HOSTILE)]
        labels = (fb(3, fv(1, s(b"key" + h)) + fv(2, s(b"val" + h))) +
                  fb(3, fv(1, s(b"bytes" + h)) + fv(3, 1024 * i) +
                     fv(4, s(b"unit" + h))))
        body += fb(2, packed(1, locs) + packed(2, [i * 100 * a.scale]) +
                   labels)
    comments = [s(b"comment" + h) for h in HOSTILE]
    for text in strings:
        body += fb(6, text)
    body += fv(9, 1700000000 * 10**9)
    body += fv(10, 10 * 10**9)
    for c in comments:
        body += fv(13, c)
    with open(a.out, "wb") as f:
        f.write(gzip.compress(bytes(body), 6, mtime=0))


if __name__ == "__main__":
    sys.exit(main())
