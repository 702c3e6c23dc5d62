#!/usr/bin/env python3
"""Request bodies built as Pyroscope's clients build them, for the tests.

    pyroscope_body.py multipart OUT PROFILE [PREV_PROFILE] [--config JSON]
        Writes the body pyroscope-go's upstream/remote/remote.go
        (uploadProfile) sends to /ingest and prints its Content-Type.
        Field by field, from that source and Go's mime/multipart:
        - the boundary is Writer.randomBoundary: 30 random bytes in
          lower-case hex (60 characters);
        - CreateFormFile("profile", "profile.pprof"): the part's headers
          are Content-Disposition: form-data; name="profile";
          filename="profile.pprof" and Content-Type:
          application/octet-stream, in that (sorted) order;
        - the first part opens with "--BOUNDARY\\r\\n", every later one
          with "\\r\\n--BOUNDARY\\r\\n"; Close writes
          "\\r\\n--BOUNDARY--\\r\\n";
        - prev_profile (cumulative profiles of older versions) is a
          second form file named "prev_profile", filename
          "profile.pprof";
        - sample_type_config is what Pyroscope's own RawProfile.Bytes
          (pkg/og/convert/pprof/profile.go) adds: a form file
          "sample_type_config", filename "sample_type_config.json",
          holding a JSON object.
        The query string (name, from, until, spyName, sampleRate, units,
        aggregationType) is the test's: see test_pyroscope_ingest.sh.

    pyroscope_body.py push OUT [--json] [--label NAME=VALUE]...
                           [--duration NS] PPROF...
        Writes the push.v1.PushRequest Grafana Alloy's pyroscope.write
        sends (internal/component/pyroscope/write/write.go: one
        RawProfileSeries per labels set, its Labels the target's labels
        sorted by name as Prometheus' labels.Labels keeps them,
        __name__ = the profile type, e.g. process_cpu, and service_name
        among them; one RawSample per profile with RawProfile = the pprof
        as scraped, gzipped, and ID a UUID), one series holding every
        PPROF.  Field numbers from grafana/pyroscope api/push/v1/push.proto
        (PushRequest.series = 1; RawProfileSeries.labels = 1, samples = 2;
        RawSample.raw_profile = 1, ID = 2) and api/types/v1/types.proto
        (LabelPair.name = 1, value = 2).  --json writes Connect's JSON
        form (protojson: lowerCamelCase names, bytes in base64), which a
        connect-go client sends with connect.WithProtoJSON().
        --duration gives each PPROF that duration_nanos (appended to
        its gunzipped bytes, where the last value of a field wins, and
        gzipped again), as Alloy's delta appender gives the difference
        of two fetches the time between them
        (internal/component/pyroscope/scrape/internal/fastdelta/fd.go).
"""
import base64
import gzip
import json
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import fb, fv  # noqa: E402


def part(boundary, first, name, filename, data):
    head = b"" if first else b"\r\n"
    head += b"--" + boundary + b"\r\n"
    head += (b'Content-Disposition: form-data; name="%s"; filename="%s"\r\n'
             % (name.encode(), filename.encode()))
    head += b"Content-Type: application/octet-stream\r\n\r\n"
    return head + data


def multipart(args):
    out, prof = args[0], args[1]
    config = None
    rest = args[2:]
    if "--config" in rest:
        i = rest.index("--config")
        config = rest[i + 1].encode()
        rest = rest[:i] + rest[i + 2:]
    boundary = os.urandom(30).hex().encode()
    body = part(boundary, True, "profile", "profile.pprof",
                open(prof, "rb").read())
    if rest:
        body += part(boundary, False, "prev_profile", "profile.pprof",
                     open(rest[0], "rb").read())
    if config is not None:
        body += part(boundary, False, "sample_type_config",
                     "sample_type_config.json", config)
    body += b"\r\n--" + boundary + b"--\r\n"
    open(out, "wb").write(body)
    print("multipart/form-data; boundary=" + boundary.decode())


def push(args):
    out, rest = args[0], args[1:]
    as_json, labels, profiles, duration = False, [], [], None
    while rest:
        a = rest.pop(0)
        if a == "--json":
            as_json = True
        elif a == "--label":
            name, _, value = rest.pop(0).partition("=")
            labels.append((name, value))
        elif a == "--duration":
            duration = int(rest.pop(0))
        else:
            profiles.append(open(a, "rb").read())
    if duration is not None:
        # Profile.duration_nanos is field 10.
        profiles = [gzip.compress((gzip.decompress(raw)
                                   if raw[:2] == b"\x1f\x8b" else raw) +
                                  fv(10, duration)) for raw in profiles]
    labels.sort()
    samples = [(raw, str(uuid.uuid4())) for raw in profiles]
    if as_json:
        body = json.dumps({"series": [{
            "labels": [{"name": n, "value": v} for n, v in labels],
            "samples": [{"rawProfile": base64.b64encode(raw).decode(),
                         "ID": i} for raw, i in samples]}]}).encode()
    else:
        series = b"".join(fb(1, fb(1, n) + fb(2, v)) for n, v in labels)
        series += b"".join(fb(2, fb(1, raw) + fb(2, i)) for raw, i in samples)
        body = fb(1, series)
    open(out, "wb").write(body)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("multipart", "push"):
        sys.exit(__doc__)
    if sys.argv[1] == "push":
        push(sys.argv[2:])
    else:
        multipart(sys.argv[2:])


if __name__ == "__main__":
    main()
