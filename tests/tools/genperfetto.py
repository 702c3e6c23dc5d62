#!/usr/bin/env python3
"""Write a Perfetto trace of stack samples and the flat/cum per function it
should give, computed here independently of profd.

    genperfetto.py OUT.pftrace EXPECTED.json [--kind stack|perf|streaming|mixed]
                   [--samples N] [--seed S] [--gzip]
                   [--wrap FRACTION [--counts COUNTS.json]]

The trace uses two packet sequences that intern the same iids for
different frames, resets its state mid-way (SEQ_INCREMENTAL_STATE_CLEARED),
and for kind=stack has a follower counter.  EXPECTED.json maps metric type
to {"unit", "total", "rows": {function: [flat, cum]}}.

--wrap FRACTION makes the trace a ring buffer that wrapped: the oldest
FRACTION of its packets are lost, the interning that opened every sequence
among them.  A third sequence (4) then stands for an old producer that
does not flag its samples SEQ_NEEDS_INCREMENTAL_STATE.  EXPECTED.json holds
only what can still be resolved (what trace_processor keeps): sequence 1
never gets its state back, so its samples are skipped; sequence 2 does at
its mid-way reset; sequence 4's samples name callstacks nothing defines.
COUNTS.json gets {"samples", "dropped_samples", "dropped": {reason: n},
"stored"} as profd should report them.
"""
import argparse
import gzip
import json
import random

# (test_perfetto.sh imports fv, fb, packet and varint from here.)
from pbwire import fb, fv, varint

SEQ_CLEARED = 1
SEQ_NEEDS = 2


def packet(body):
    return fb(1, body)


class Expect:
    def __init__(self):
        self.metrics = {}

    def add(self, metric, unit, stack_root_first, value):
        m = self.metrics.setdefault(metric, {"unit": unit, "total": 0, "rows": {}})
        m["total"] += abs(value)
        if not stack_root_first or value == 0:
            return
        rows = m["rows"]
        leaf = stack_root_first[-1]
        rows.setdefault(leaf, [0, 0])[0] += value
        for name in set(stack_root_first):
            rows.setdefault(name, [0, 0])[1] += value


def interned(names, stacks, seq_tag):
    """InternedData for function names, frames (one per name) and stacks."""
    body = bytearray()
    for i, n in enumerate(names, 1):
        body += fb(5, fv(1, i) + fb(2, "%s%s" % (n, seq_tag)))
    for i in range(1, len(names) + 1):
        body += fb(6, fv(1, i) + fv(2, i) + fv(4, 0x1000 + i))
    for i, st in enumerate(stacks, 1):
        frames = b"".join(varint(f) for f in st)
        body += fb(7, fv(1, i) + fb(2, frames))
    return bytes(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("expected")
    ap.add_argument("--kind", default="stack",
                    choices=["stack", "perf", "streaming", "mixed"])
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--wrap", type=float, default=0.0)
    ap.add_argument("--counts")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    exp = Expect()
    t0 = 1_700_000_000 * 10**9
    # Every packet with its sequence, whether it clears that sequence's
    # state, and for samples: flagged as needing state, and the values
    # (metric, unit, stack, value) it adds when it can be resolved.
    pkts = []

    class Out:
        def extend(self, b, seq=None, clear=False, needs=False, adds=None):
            pkts.append((bytes(b), seq, clear, needs, adds))
    out = Out()

    base = ["main", "serve", "parse", "lex", "eval", "alloc", "hash", "io wait"]
    stacks = []
    for _ in range(12):
        depth = rnd.randint(1, 6)
        stacks.append([1] + [rnd.randint(2, len(base)) for _ in range(depth)])

    # Two sequences: same iids, names differ by a suffix.
    seqs = {1: "", 2: "@b"}
    if a.wrap:
        seqs[4] = "@old"
    state = {}

    def define(seq, tag, clear=True):
        flags = SEQ_CLEARED if clear else 0
        out.extend(packet(fv(10, seq) + fv(13, flags) +
                          fb(12, interned(base, stacks, tag))), seq, clear)
        state[seq] = tag

    for seq, tag in seqs.items():
        define(seq, tag)
    # A process tree gives names to pids and threads.
    # ProcessTree: Process {pid=1, cmdline=3}, Thread {tid=1, name=2, tgid=3}.
    proc = fb(1, fv(1, 42) + fb(3, "server")) + fb(2, fv(1, 43) + fb(2, "worker") + fv(3, 42))
    out.extend(packet(fv(10, 3) + fb(2, proc)))

    desc = fb(9, fv(1, 0) + fb(2, "wall_time") + fv(3, 1))
    follower = fb(12, fb(2, "cpu_cycles") + fv(3, 2))
    kinds = ["stack", "perf", "streaming"] if a.kind == "mixed" else [a.kind]
    for i in range(a.samples):
        if i == a.samples // 2:
            # Reset sequence 2 mid-trace with other names for the same iids.
            define(2, "@c")
        if a.wrap:
            r = rnd.random()
            seq = 1 if r < 0.4 else 2 if r < 0.8 else 4
        else:
            seq = 1 if rnd.random() < 0.6 else 2
        sid = rnd.randint(1, len(stacks))
        names = [base[f - 1] + state[seq] for f in stacks[sid - 1]]
        ts = t0 + i * 1_000_000
        kind = kinds[i % len(kinds)]
        needs = seq != 4
        flags = fv(13, SEQ_NEEDS) if needs else b""
        if kind == "stack":
            w = rnd.randint(1, 5) * 1000
            cyc = rnd.randint(1, 9)
            ss = (fb(1, fv(2, 42) + fv(3, 43)) + fv(6, sid) + desc +
                  fv(11, w) + follower + fb(14, varint(cyc)))
            out.extend(packet(fv(8, ts) + fv(10, seq) + flags + fb(135, ss)),
                       seq, False, needs,
                       [("samples", "count", names, 1),
                        ("wall_time", "nanoseconds", names, w),
                        ("cpu_cycles", "cycles", names, cyc)])
        elif kind == "perf":
            ps = fv(1, 0) + fv(2, 42) + fv(3, 43) + fv(4, sid) + fv(6, 1)
            out.extend(packet(fv(8, ts) + fv(10, seq) + flags + fb(66, ps)),
                       seq, False, needs, [("samples", "count", names, 1)])
        else:
            sp = fb(1, varint(sid)) + fb(2, varint(0))
            out.extend(packet(fv(8, ts) + fv(10, seq) + flags + fb(54, sp)),
                       seq, False, needs, [("samples", "count", names, 1)])

    # The ring buffer keeps the newest packets.
    kept = pkts[int(len(pkts) * a.wrap):]
    valid = set()
    counts = {}
    nsamples = stored = 0

    def count(reason):
        counts[reason] = counts.get(reason, 0) + 1

    for b, seq, clear, needs, adds in kept:
        if clear:
            valid.add(seq)
        if adds is None:
            continue
        nsamples += 1
        if needs and seq not in valid:
            count("packets_skipped_no_state")
            count("unresolved_no_state")
        elif seq not in valid:
            count("unknown_callstack_iid")
        else:
            stored += 1
            for metric, unit, names, v in adds:
                exp.add(metric, unit, names, v)
    data = b"".join(p[0] for p in kept)
    if a.gzip:
        data = gzip.compress(data)
    with open(a.out, "wb") as f:
        f.write(data)
    with open(a.expected, "w") as f:
        json.dump(exp.metrics, f, indent=1, sort_keys=True)
    if a.counts:
        dropped = sum(n for r, n in counts.items()
                      if r != "packets_skipped_no_state")
        with open(a.counts, "w") as f:
            json.dump({"samples": nsamples, "dropped_samples": dropped,
                       "dropped": counts, "stored": stored}, f, indent=1,
                      sort_keys=True)


if __name__ == "__main__":
    main()
