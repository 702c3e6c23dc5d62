#!/usr/bin/env python3
"""otlp_request.py: an OTLP profiles request (ExportProfilesServiceRequest
of opentelemetry-proto v1.11.0) made of a real pprof by the protobuf
library (Debian's python3-protobuf) over the .proto files vendored in
tests/tools/proto, compiled by protoc into GENDIR first:

  otlp_request.py GENDIR PPROF OUT [--json] [--service NAME]
      [--resource KEY=VALUE]... [--timestamps T0] [--bad-profile N]
      [--bad-dictionary] [--link] [--payload-only] [--only TYPE]
  otlp_request.py GENDIR --v190 OUT      a request of v1.9.0's wire format

Each sample type of the pprof is a Profile of its own (pprof's samples,
their labels as attributes, its functions, locations and mappings in the
dictionary); its resource carries service.name (unless --service is
empty) and the --resource attributes.  --json writes OTLP's JSON (proto3's
mapping, lowerCamelCase; traceId and spanId in hex, as OTLP says).
--timestamps T0: sample k of each Profile is at T0 + (k % 5) seconds (a
timestamp per value), and the sums per second of each Profile are
printed as JSON {"TYPE": {"SECOND": SUM}}.  --bad-profile N: Profile N's
first sample names a stack past the table (that Profile is refused, the
others stored).  --bad-dictionary: a Line names a function past the
table.  --link: every sample is linked to a span.  --only TYPE: the
Profile of that sample type alone.  --payload-only: one Profile holds
the pprof as original_payload and no samples."""
import argparse
import base64
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pbwire  # noqa: E402


def load(gendir):
    sys.path.insert(0, gendir)
    from google.v1 import profile_pb2
    from opentelemetry.proto.collector.profiles.v1development import \
        profiles_service_pb2 as svc
    from opentelemetry.proto.profiles.v1development import \
        profiles_pb2 as prof
    return profile_pb2, svc, prof


class Dict:
    """The request's dictionary: every table starts with its zero
    value, entries are interned."""

    def __init__(self, d):
        self.d = d
        self.strings = {}
        self.stacks = {}
        self.attrs = {}
        for t in (d.mapping_table, d.location_table, d.function_table,
                  d.link_table, d.attribute_table, d.stack_table):
            t.add()
        self.s("")

    def s(self, text):
        if text not in self.strings:
            self.strings[text] = len(self.d.string_table)
            self.d.string_table.append(text)
        return self.strings[text]

    def stack(self, locs):
        key = tuple(locs)
        if key not in self.stacks:
            self.stacks[key] = len(self.d.stack_table)
            self.d.stack_table.add().location_indices.extend(key)
        return self.stacks[key]

    def attr(self, key, value, unit):
        k = (key, value, unit)
        if k not in self.attrs:
            self.attrs[k] = len(self.d.attribute_table)
            a = self.d.attribute_table.add()
            a.key_strindex = self.s(key)
            if isinstance(value, int):
                a.value.int_value = value
            else:
                a.value.string_value = value
            a.unit_strindex = self.s(unit)
        return self.attrs[k]


def convert(args, pb, svc, prof):
    raw = open(args.pprof, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    p = pb.Profile()
    p.ParseFromString(raw)
    st = p.string_table
    req = svc.ExportProfilesServiceRequest()
    dc = Dict(req.dictionary)
    maps = {}
    for m in p.mapping:
        maps[m.id] = len(dc.d.mapping_table)
        om = dc.d.mapping_table.add()
        om.memory_start, om.memory_limit = m.memory_start, m.memory_limit
        om.file_offset = m.file_offset
        om.filename_strindex = dc.s(st[m.filename])
    funcs = {}
    for f in p.function:
        funcs[f.id] = len(dc.d.function_table)
        of = dc.d.function_table.add()
        of.name_strindex = dc.s(st[f.name])
        of.system_name_strindex = dc.s(st[f.system_name])
        of.filename_strindex = dc.s(st[f.filename])
        of.start_line = f.start_line
    locs = {}
    for loc in p.location:
        locs[loc.id] = len(dc.d.location_table)
        ol = dc.d.location_table.add()
        ol.mapping_index = maps.get(loc.mapping_id, 0)
        ol.address = loc.address
        for ln in loc.line:
            o = ol.lines.add()
            o.function_index = funcs[ln.function_id]
            o.line = ln.line
    if args.bad_dictionary:
        for ol in dc.d.location_table:
            if len(ol.lines):
                ol.lines[0].function_index = len(dc.d.function_table) + 7
                break
    if args.link:
        lk = dc.d.link_table.add()
        lk.trace_id = bytes(range(1, 17))
        lk.span_id = bytes(range(0xa0, 0xa8))
    rp = req.resource_profiles.add()
    if args.service:
        kv = rp.resource.attributes.add()
        kv.key = "service.name"
        kv.value.string_value = args.service
    for spec in args.resource:
        k, v = spec.split("=", 1)
        kv = rp.resource.attributes.add()
        kv.key = k
        kv.value.string_value = v
    sp = rp.scope_profiles.add()
    sp.scope.name = "profd-test/otlp_request.py"
    sums = {}
    for i, vt in enumerate(p.sample_type):
        if args.only and st[vt.type] != args.only:
            continue
        op = sp.profiles.add()
        op.sample_type.type_strindex = dc.s(st[vt.type])
        op.sample_type.unit_strindex = dc.s(st[vt.unit])
        op.time_unix_nano = args.timestamps or p.time_nanos
        op.duration_nano = 5 * 10**9 if args.timestamps else p.duration_nanos
        op.period_type.type_strindex = dc.s(st[p.period_type.type])
        op.period_type.unit_strindex = dc.s(st[p.period_type.unit])
        op.period = p.period
        if args.payload_only:
            op.original_payload_format = "pprof"
            op.original_payload = raw
            break
        per = sums.setdefault(st[vt.type], {})
        for k, s in enumerate(p.sample):
            os_ = op.samples.add()
            os_.stack_index = dc.stack(locs[x] for x in s.location_id)
            for lb in s.label:
                if lb.str:
                    a = dc.attr(st[lb.key], st[lb.str], "")
                else:
                    a = dc.attr(st[lb.key], lb.num, st[lb.num_unit])
                os_.attribute_indices.append(a)
            if args.link:
                os_.link_index = 1
            os_.values.append(s.value[i])
            if args.timestamps:
                t = args.timestamps + (k % 5) * 10**9
                os_.timestamps_unix_nano.append(t)
                sec = str(t // 10**9)
                per[sec] = per.get(sec, 0) + s.value[i]
        if args.bad_profile == i:
            op.samples[0].stack_index = len(dc.d.stack_table) + 3
    return req, sums


def hex_ids(obj):
    """OTLP's JSON: traceId and spanId in hex, not base64."""
    for lk in obj.get("dictionary", {}).get("linkTable", []):
        for k in ("traceId", "spanId"):
            if k in lk:
                lk[k] = base64.b64decode(lk[k]).hex()


def v190(out):
    """A request of opentelemetry-proto v1.9.0's wire format: its Sample
    had values at 2, attribute_indices at 3 (packed: length-delimited)
    and link_index at 4, where v1.11.0 has attribute_indices at 2,
    link_index at 3 (a varint) and values at 4."""
    f, b, pk = pbwire.fv, pbwire.fb, pbwire.packed
    strings = ["", "cpu", "nanoseconds", "main", "thread.name", "worker"]
    dictionary = (b"".join(b(5, s) for s in strings)
                  + b(3, b"") + b(3, f(1, 3))
                  + b(2, b"") + b(2, b(3, f(1, 1)))
                  + b(7, b"") + b(7, pk(1, [1]))
                  + b(6, b"") + b(6, f(1, 4) + b(2, b(1, "worker"))))
    sample = f(1, 1) + pk(2, [1000]) + pk(3, [1])
    profile = b(1, f(1, 1) + f(2, 2)) + b(2, sample)
    resource = b(1, b(1, "service.name") + b(2, b(1, "old")))
    req = b(1, b(1, resource) + b(2, b(2, profile))) + b(2, dictionary)
    open(out, "wb").write(req)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gendir")
    ap.add_argument("pprof", nargs="?")
    ap.add_argument("out")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--service", default="otlp-test")
    ap.add_argument("--resource", action="append", default=[])
    ap.add_argument("--timestamps", type=int, default=0)
    ap.add_argument("--bad-profile", type=int, default=-1)
    ap.add_argument("--bad-dictionary", action="store_true")
    ap.add_argument("--link", action="store_true")
    ap.add_argument("--payload-only", action="store_true")
    ap.add_argument("--v190", action="store_true")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    if args.v190:
        v190(args.out)
        return
    pb, svc, prof = load(args.gendir)
    req, sums = convert(args, pb, svc, prof)
    if args.json:
        from google.protobuf import json_format
        obj = json_format.MessageToDict(req)
        hex_ids(obj)
        open(args.out, "w").write(json.dumps(obj))
    else:
        open(args.out, "wb").write(req.SerializeToString())
    if args.timestamps:
        print(json.dumps(sums))


if __name__ == "__main__":
    main()
