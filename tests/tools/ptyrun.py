#!/usr/bin/env python3
"""Run a command on a pseudo-terminal, as a person's shell runs it, and
check that what it sent the terminal cannot act on it.

    ptyrun.py [--rc N] [--want TEXT]... [--allow-crlf] [--allow-redraw]
              [--out FILE] -- COMMAND [ARG]...

or, from Python (a test of many commands in one interpreter):
check(argv, rc=0, want=(), allow_crlf=False, allow_redraw=False) returns
the bytes, or raises Unsafe saying what is wrong.

The command's stdin, stdout and stderr are the terminal's (so isatty()
holds for all three), which is put in raw mode first: no line discipline
rewrites what it writes (a "\\n" is not made "\\r\\n"), and the bytes read
from the terminal's master side are exactly the command's. Its window is
120 columns.

The bytes must be valid UTF-8 and hold no C0 control but newline and tab,
no DEL and no C1 control (U+0080..U+009F). Two of profctl's own uses are
let through where asked: --allow-crlf for CSV's line ends ("\\r\\n",
RFC 4180), --allow-redraw for the live line's "\\r\\033[K" (profctl push
on a terminal). Each --want TEXT must be in the output; --rc N is the
exit status wanted (default 0). --out keeps the bytes. Exit 0 if all
holds, else 1 saying what did not.
"""
import argparse
import fcntl
import os
import pty
import select
import struct
import sys
import termios
import tty

# A bound against a hang, not a time the command must keep.
HANG_S = 300


def run(argv):
    pid, fd = pty.fork()
    if pid == 0:
        try:
            tty.setraw(0)
            fcntl.ioctl(0, termios.TIOCSWINSZ,
                        struct.pack("HHHH", 40, 120, 0, 0))
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    out = bytearray()
    while True:
        r, _, _ = select.select([fd], [], [], HANG_S)
        if not r:
            os.kill(pid, 9)
            sys.exit("%s: no output and no end in %d s" % (argv, HANG_S))
        try:
            chunk = os.read(fd, 65536)
        except OSError:		# EIO: the terminal's last holder is gone
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return bytes(out), os.waitstatus_to_exitcode(status)


def bad_bytes(data):
    """What in data a terminal would act on, as a list of (offset, what)."""
    found = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return [(e.start, "not UTF-8: %r" % data[e.start:e.start + 4])]
    for i, ch in enumerate(text):
        c = ord(ch)
        if (c < 0x20 and ch not in "\n\t") or 0x7f <= c <= 0x9f:
            found.append((i, "U+%04X" % c))
    return found


class Unsafe(Exception):
    pass


def check(argv, rc=0, want=(), allow_crlf=False, allow_redraw=False):
    """The bytes argv sent the terminal, checked as the module says."""
    data, got = run(argv)
    seen = data
    if allow_redraw:
        seen = seen.replace(b"\r\x1b[K", b"")
    if allow_crlf:
        seen = seen.replace(b"\r\n", b"\n")
    why = []
    if got != rc:
        why.append("exit status %d, not %d" % (got, rc))
    bad = bad_bytes(seen)
    if bad:
        why.append("%d byte(s) a terminal would obey, first %s at %d" %
                   (len(bad), bad[0][1], bad[0][0]))
    text = seen.decode("utf-8", errors="replace")
    for w in want:
        if w not in text:
            why.append("no %r in it" % w)
    if why:
        raise Unsafe("%r: %s\n--- what the terminal got ---\n%r" %
                     (argv[1:], "; ".join(why), data[:3000]))
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rc", type=int, default=0)
    ap.add_argument("--want", action="append", default=[])
    ap.add_argument("--allow-crlf", action="store_true")
    ap.add_argument("--allow-redraw", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("argv", nargs="+")
    a = ap.parse_args()
    try:
        data = check(a.argv, a.rc, a.want, a.allow_crlf, a.allow_redraw)
    except Unsafe as e:
        print(e)
        return 1
    if a.out:
        with open(a.out, "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
