# profctl on a terminal (issue 40, finding 5): a pprof pushed with only a
# writer's token must not act on the reader's terminal.  Its function
# names, file names, sample type and unit, label keys and values, a
# numeric label's unit and its comments hold ESC [2J, OSC 52 (the
# clipboard), CR, BEL, the C1 controls U+009B (CSI) and U+009D (OSC) as
# UTF-8, DEL, a newline and a tab, and bytes that are not UTF-8
# (tests/tools/hostile_pprof.py); the local files pushed are named with
# ESC, CR and C1 (legal on Linux) and with bytes that are not UTF-8; a
# source file that list reads holds them too.  Every command that prints
# runs on a pseudo-terminal in raw mode (tests/tools/ptyrun.py: the bytes
# read from its master are the command's): push's result and live line,
# top, tree (text, --folded), peek, traces, tags, list, diff, profiles,
# scopes, status, timeline, query (table, CSV), export's messages,
# flamegraph's SVG, delete, profd's error lines, a usage error, and every
# --json form.  What the terminal got must be valid UTF-8 without a C0
# control but newline and tab, DEL or a C1 control; the hostile strings
# must show as the escapes docs/profctl.1 names ("Text from profd and from
# profiles"), the valid multibyte name main.日本語_関数🔥 whole.  --json
# stays JSON of the same values: U+009B comes out as \u009b and reads
# back as U+009B.  One Python runs every command (an interpreter's start
# is most of a command's time on a loaded machine).
. "$(dirname "$0")/lib.sh"
start_profd

rc=0
python3 - "$PROFCTL" "$T" "$TESTS_DIR/tools" <<'EOF' || rc=$?
import json, os, subprocess, sys
profctl, tmp, tools = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
sys.path.insert(0, tools)
import ptyrun
from hostile_pprof import SAFE

try:
    for fd in os.openpty():
        os.close(fd)
except OSError as e:
    print("skip: no pseudo-terminal to run profctl on: %s" % e)
    sys.exit(77)

def path(name):
    return os.path.join(tmp, name)

for scale, name in ((1, "one.pb.gz"), (2, "two.pb.gz")):
    subprocess.run([sys.executable, os.path.join(tools, "hostile_pprof.py"),
                    path(name.encode()), "--scale", str(scale)], check=True)
one = open(path(b"one.pb.gz"), "rb").read()
NAME = b"\x1b[2J\rEVIL\xc2\x9b-one.pb.gz"
SHOWN = r"\u001b[2J\rEVIL\u009b-one.pb.gz"
NOTUTF8 = b"bad\xff\xc0\xaf.pb.gz"
GARBAGE = b"junk\x1b]52;c;eA==\x07.pb"
for name, data in ((NAME, one), (NOTUTF8, one), (GARBAGE, b"no profile")):
    open(path(name), "wb").write(data)
# The safe function's file: its line 12 has what must not act either.
os.mkdir(path(b"src"))
with open(path(b"src/safe.go"), "wb") as f:
    for i in range(1, 21):
        f.write(b'\tx := "\x1b[2J\xc2\x9b\x7f" // a\rb\n' if i == 12 else
                b"line %d\n" % i)

def on_tty(*args, **kw):
    """profctl args on a terminal; fails the test unless it is safe."""
    try:
        return ptyrun.check([profctl.encode()] + [
            a if isinstance(a, bytes) else a.encode() for a in args], **kw)
    except ptyrun.Unsafe as e:
        sys.exit("on a terminal: %s" % e)

def ok(what):
    print("ok: " + what)

# 1. push: the live line (on, on a terminal) and the result line name the
#    file as escapes.
on_tty("push", path(NAME), "--scope", "one", allow_redraw=True,
       want=[SHOWN + ": stored as profile 1 ("])
subprocess.run([profctl, "push", path(b"two.pb.gz"), "--scope", "two"],
               check=True, stdout=subprocess.DEVNULL)
on_tty("push", "--no-progress", path(NOTUTF8), "--scope", "three",
       want=[r"\xff\xc0\xaf.pb.gz: stored as profile 3 ("])
on_tty("push", path(GARBAGE), "--scope", "four", rc=1, allow_redraw=True,
       want=[r"junk\u001b]52;c;eA==\u0007.pb: bad request"])
ok("push: the file's name shown as escapes, live line and result")

# 2. The views as text.
FN_ESC = r"fn.\u001b[2J\u001b[Hcleared"
CSI = r"fn.csi\u009b2Jc1"
on_tty("top", "--scope", "one", want=[
    SAFE, FN_ESC, r"fn.good\rEVIL", CSI, r"fn.new\nline\ttab",
    r"fn.del\u007f", r"fn.bell\u0007", r"fn.osc\u009d52;c;eA==\u009cc1"])
on_tty("tree", "--scope", "one", want=[SAFE, CSI])
on_tty("tree", "--scope", "one", "--folded", want=[SAFE, CSI])
on_tty("peek", "日本語", "--scope", "one", want=[SAFE, CSI])
on_tty("traces", "--scope", "one",
       want=[SAFE, r"key\u001b]52;c;cHduZWQ=\u0007clip"])
on_tty("tags", "--scope", "one", want=[
    r"bytes\u001b[2J\u001b[Hcleared: Total", r"valcsi\u009b2Jc1"])
# list reads the source where the user is: the profile names the file.
on_tty("list", r"fn\.|日本語", "--scope", "one", "--source-path",
       path(b"src"), "--trim-path", "/src", want=[
           SAFE, "\tx := \"\\u001b[2J\\u009b\\u007f\" // a\\rb",
           r"in \u001b[2J\u001b[Hcleared.go"])
on_tty("diff", "--scope", "two", "--base-scope", "one", want=[SAFE, CSI])
on_tty("profiles", "--scope", "one", want=[SHOWN])
on_tty("scopes", want=[r"samples\u001b[2J"])
on_tty("status", want=[r"junk\u001b]52;c;eA==\u0007.pb: unknown format"])
on_tty("timeline", "--scope", "one", want=["2023-11-14T22:13:20Z .."])
SQL = "SELECT function, file FROM callsites ORDER BY callsite_id"
on_tty("query", SQL, want=[SAFE, FN_ESC])
on_tty("query", "--csv", SQL, allow_crlf=True, want=[SAFE, FN_ESC])
on_tty("flamegraph", "--scope", "one", "-o", "-", "--title",
       "\x1b]0;title\x07", want=[SAFE, CSI, r"\u001b]0;title\u0007"])
ok("top, tree, peek, traces, tags, list, diff, profiles, scopes, status, "
   "timeline, query, flamegraph: nothing a terminal obeys, %s whole" % SAFE)

# 3. --json: the same values, C0 escaped by JSON, DEL and C1 as \u
#    escapes (U+009B written \u009b reads back as U+009B).
def strings(v):
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
    elif isinstance(v, str):
        yield v

CSI_VALUE = "fn.csi\u009b2Jc1"
for args, wants in (
        (["top", "--scope", "one"], [CSI_VALUE, SAFE]),
        (["tree", "--scope", "one"], [CSI_VALUE, SAFE]),
        (["peek", "日本語", "--scope", "one"], [CSI_VALUE, SAFE]),
        (["traces", "--scope", "one"], [CSI_VALUE, SAFE]),
        (["tags", "--scope", "one"], ["valcsi\u009b2Jc1"]),
        (["list", r"fn\.csi", "--scope", "one"], [CSI_VALUE]),
        (["diff", "--scope", "two", "--base-scope", "one"],
         [CSI_VALUE, SAFE]),
        (["profiles", "--scope", "one"], ["\x1b[2J\rEVIL\u009b-one.pb.gz"]),
        (["scopes"], ["samples\x1b[2J"]),
        (["status"], ["junk\x1b]52;c;eA==\x07.pb"]),
        (["timeline", "--scope", "one"], ["count\u009b"]),
        (["query", SQL], [CSI_VALUE, SAFE])):
    text = on_tty(*args, "--json").decode()
    try:
        every = set(strings(json.loads(text)))
    except ValueError as e:
        sys.exit("%s --json: not JSON: %s" % (args, e))
    for want in wants:
        if want not in every:
            sys.exit("%s --json: no string %r in %s" % (args, want, text))
        if "\u009b" in want and "\\u009b" not in text:
            sys.exit("%s --json: U+009B not written \\u009b" % args)
ok("--json of every view: valid JSON, the same values, nothing obeyed")

# 4. Messages: profd's error lines, export's, a usage error; delete.
on_tty("top", "--scope", "one", "--metric", "\x1b[2J\u009b", rc=1,
       want=[r"\u001b[2J"])
on_tty("export", "--scope", "one", "-o", "-", rc=2,
       want=["not writing a gzipped profile to a terminal"])
on_tty("export", "--scope", "one", "-o", path(b"nodir/" + NAME), rc=2,
       want=["/nodir/%s: No such file or directory" % SHOWN])
on_tty("top", "--scope", "one", NAME, rc=2,
       want=[r'unexpected argument "\u001b[2J\rEVIL\u009b'])
on_tty("delete", "--scope", "three", want=["three: deleted 1 profile(s)"])
ok("profd's error lines, export's, a usage error and delete: shown safe")
EOF
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || fail "see above"
