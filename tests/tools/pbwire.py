"""Protobuf wire-format helpers shared by the test generators.

    varint(v)          a base-128 varint (v taken mod 2**64)
    fv(num, v)         a varint field
    fb(num, data)      a length-delimited field (str is UTF-8 encoded)
    packed(num, vals)  a packed repeated varint field
"""


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | 0x80 if v else b)
        if not v:
            return bytes(out)


def fv(num, v):
    return varint(num << 3) + varint(v)


def fb(num, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(num << 3 | 2) + varint(len(data)) + data


def packed(num, values):
    return fb(num, b"".join(varint(v) for v in values))
