#!/usr/bin/env python3
"""Request bodies that inflate far past their size, for test_body_bombs.sh.

    bomb.py KIND OUT MIB [--ratio R]
        Writes to OUT a body of KIND whose inflated content is MIB MiB
        and, gzipped, about R (default 400) times smaller: near what
        gzip does with a repeated pattern, and under profd's
        max-inflate-ratio (1000), so that no ratio check stops it early.
        Prints the Content-Type to send it with.  Kinds:

        json-values  Connect JSON: one series of ever more labels
                     ({"name", "value"}: 5 values each), gzipped
        json-text    Connect JSON: one sample whose rawProfile is MIB MiB
                     of base64, gzipped
        proto        Connect protobuf: one series, one sample whose
                     raw_profile is MIB MiB of zeros and noise, gzipped
        pprof        a pprof (a sample_type, then zeros and noise),
                     gzipped
        folded       folded lines of one stack with varying counts, the
                     last line without a count, gzipped
        multipart    pyroscope-go's form: the profile part is the pprof
                     bomb, sample_type_config a real one
        stc          pyroscope-go's form: a small pprof (its path in
                     $PPROF), sample_type_config MIB MiB of JSON (not
                     compressed: a form is sent as it is)

Deterministic (a fixed seed): the same arguments write the same bytes.
"""
import gzip
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import fb  # noqa: E402
from pyroscope_body import part  # noqa: E402

MIB = 1 << 20
B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def units(size, p, plain, noisy, seed=25):
    """size bytes of the unit plain, each one noisy(rng) instead with
    probability p."""
    rng = random.Random(seed)
    out, n = [], 0
    while n < size:
        u = noisy(rng) if rng.random() < p else plain
        out.append(u)
        n += len(u)
    return b"".join(out)[:size]


def gz(data):
    return gzip.compress(data, 6, mtime=0)


def tuned(size, ratio, plain, noisy, end=None):
    """The filler of size bytes whose gzip is about ratio times smaller:
    the noise is found on 1 MiB, and that MiB (cut after its last end,
    if given) repeated: gzip's window is 32 KiB, so repeating it
    compresses no better."""
    lo, hi = 0.0, 1.0
    for _ in range(12):
        p = (lo + hi) / 2
        r = MIB / len(gz(units(MIB, p, plain, noisy)))
        if r > ratio:
            lo = p
        else:
            hi = p
    block = units(MIB, (lo + hi) / 2, plain, noisy)
    if end is not None:
        block = block[:block.rfind(end) + len(end)]
    fill = block * (size // len(block) + 1)
    if end is not None:
        return fill[:fill.rfind(end, 0, size) + len(end)]
    return fill[:size]


def rand_bytes(k):
    return lambda rng: rng.randbytes(k)


def rand_b64(k):
    return lambda rng: bytes(B64[b & 63] for b in rng.randbytes(k))


def json_values(size, ratio):
    head = b'{"series":[{"labels":['
    tail = b'{"name":"a","value":"b"}],"samples":[]}]}'
    fill = tuned(size - len(head) - len(tail), ratio,
                 b'{"name":"a","value":"b"},',
                 lambda rng: b'{"name":"a","value":"%06d"},' %
                 rng.randrange(10 ** 6), end=b"},")
    return gz(head + fill + tail), "application/json"


def json_text(size, ratio):
    head = (b'{"series":[{"labels":[{"name":"service_name","value":"bomb"}],'
            b'"samples":[{"ID":"1","rawProfile":"')
    tail = b'"}]}]}'
    fill = tuned(size - len(head) - len(tail), ratio, b"AAAAAAAA",
                 rand_b64(8))
    return gz(head + fill + tail), "application/json"


def proto(size, ratio):
    raw = tuned(size - 64, ratio, bytes(8), rand_bytes(8))
    series = fb(1, fb(1, "service_name") + fb(2, "bomb"))
    series += fb(2, fb(1, raw) + fb(2, "1"))
    return gz(fb(1, series)), "application/proto"


def pprof_bytes(size, ratio):
    # sample_type {type: 1, unit: 2}: read as a pprof, then not one.
    head = bytes([0x0A, 0x04, 0x08, 0x01, 0x10, 0x02])
    return gz(head + tuned(size - len(head), ratio, bytes(8),
                           rand_bytes(8)))


def pprof(size, ratio):
    return pprof_bytes(size, ratio), "application/octet-stream"


def folded(size, ratio):
    tail = b"this line has no count\n"
    fill = tuned(size - len(tail), ratio, b"main;serve;parse 1\n",
                 lambda rng: b"main;serve;parse %d\n" % rng.randrange(10 ** 6),
                 end=b"\n")
    return gz(fill + tail), "text/plain"


def form(profile, config):
    boundary = b"b0mb" * 15
    body = part(boundary, True, "profile", "profile.pprof", profile)
    body += part(boundary, False, "sample_type_config",
                 "sample_type_config.json", config)
    body += b"\r\n--" + boundary + b"--\r\n"
    return body, "multipart/form-data; boundary=" + boundary.decode()


# What pyroscope-go sends (its upstream/remote uploadProfile).
STC = (b'{"alloc_objects":{"units":"objects"},"alloc_space":{"units":"bytes"},'
       b'"inuse_space":{"units":"bytes","aggregation":"average"},'
       b'"inuse_objects":{"units":"objects","aggregation":"average"}}')


def multipart(size, ratio):
    return form(pprof_bytes(size, ratio), STC)


def stc(size, ratio):
    unit = b'"%07d":{"units":"objects","aggregation":"average"},'
    n = size // len(unit % 0)
    config = b"{" + b"".join(unit % i for i in range(n - 1))
    config += b'"last":{"units":"bytes"}}'
    return form(open(os.environ["PPROF"], "rb").read(), config)


def main():
    args = sys.argv[1:]
    ratio = 400.0
    if "--ratio" in args:
        i = args.index("--ratio")
        ratio = float(args[i + 1])
        del args[i:i + 2]
    kinds = {"json-values": json_values, "json-text": json_text,
             "proto": proto, "pprof": pprof, "folded": folded,
             "multipart": multipart, "stc": stc}
    if len(args) != 3 or args[0] not in kinds:
        sys.exit(__doc__)
    body, ctype = kinds[args[0]](int(float(args[2]) * MIB), ratio)
    open(args[1], "wb").write(body)
    print(ctype)


if __name__ == "__main__":
    main()
