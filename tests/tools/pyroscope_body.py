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
"""
import os
import sys


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


def main():
    if len(sys.argv) < 4 or sys.argv[1] != "multipart":
        sys.exit(__doc__)
    multipart(sys.argv[2:])


if __name__ == "__main__":
    main()
