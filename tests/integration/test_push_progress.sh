# Progress on long work (issue 31, items 1 and 2), as a user sees it:
# profd started detached (no --foreground, as the README's demo starts it)
# and stopped with SIGTERM; a pprof of more than 25 MB (720,000 samples)
# pushed by profctl on a pseudo-terminal (script(1), as a person types
# it) redraws one live line, the upload's bytes and then the import's
# samples, at least three distinct updates before the result line, which
# is the one profctl prints without a terminal.  Without a terminal, or
# with --no-progress, the output is exactly the result line (scripts parse
# it); --progress draws the line on a stderr that is no terminal.
# /v1/status's importing is read while such an import is held open and
# then runs (tests/tools/held_import.py): bytes_done and samples_done only
# grow, to the inflated size and the sample count, and `profctl status`
# says a percentage and a rate.  That part locks the store from another
# process, beside a detached profd started again on the same store: the
# lock must hold its import back (a detached profd once carried its
# store's connections across daemon(3)'s fork without their locks).
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null ||
	{ echo "skip: no script(1) (Debian: bsdutils)"; exit 77; }
start_profd_detached
BIG=$(big_profile)
[ "$(stat -c %s "$BIG")" -ge 25000000 ] || fail "the large profile is small"
SAMPLES=720000
INFLATED=$(gzip -dc "$BIG" | wc -c)

# 1. On a terminal (the live line names the file by its base name).
#    script(1) gives profctl a pseudo-terminal for its stdout and stderr
#    alike, as a shell in a terminal does; the log is what the terminal
#    was sent.  profctl asks the status every 250 ms while the import
#    runs: whether one of those falls in the import's samples phase is
#    the machine's speed, so another push (another scope) until one has
#    drawn them; the other checks hold for every push.
id=0
for ((try = 1; ; try++)); do
	id=$((id + 1))
	script -qefc "$(printf '%q ' "$PROFCTL" push "$BIG" --scope "tty$try")" \
	    "$T/tty.log" >/dev/null </dev/null ||
		fail "push on a terminal: $(cat "$T/tty.log")"
	rc=0
	python3 - "$T/tty.log" "$BIG" "$SAMPLES" "$id" <<'EOF' || rc=$?
import os, re, sys
log, path, samples, pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4])
text = open(log, errors="replace", newline="").read()
# Each redraw is "\r\033[K" and the line; the result line ends them.
result = "%s: stored as profile %d (%d samples)" % (path, pid, samples)
head, sep, _ = text.partition("\r\033[K" + result)
if not sep:
    sys.exit("no result line after the live line: %r" % text[-300:])
updates = [u for u in head.split("\r\033[K")[1:] if u]
for u in updates:
    if not u.startswith(os.path.basename(path) + ": "):
        sys.exit("a live line not of the file: %r" % u)
up = [u for u in updates if ": uploading " in u]
imp = [u for u in updates if re.search(r": importing \S+( [kM])? of 720\.0 k "
                                       r"samples \(\d+%\)", u)]
print("%d updates: %d of the upload, %d of the import's samples"
      % (len(updates), len(up), len(imp)))
if len(set(updates)) != len(updates):
    sys.exit("an update drawn twice: %r" % updates)
if not imp:
    print("no update said the import's samples; again")
    sys.exit(2)
if len(set(updates)) < 3:
    sys.exit("fewer than 3 distinct updates: %r" % updates)
print("first: %s" % updates[0])
print("one of the import: %s" % imp[len(imp) // 2])
EOF
	[ "$rc" = 0 ] && break
	[ "$rc" = 2 ] && [ "$try" -lt 5 ] || fail "the live line"
done
ok "on a terminal: the live line moved at least 3 times, then the result"

# 2. Not on a terminal: the result line and nothing else.
"$PROFCTL" push "$BIG" --scope plain >"$T/plain.out" 2>"$T/plain.err" ||
	fail "push without a terminal: $(cat "$T/plain.err")"
id=$((id + 1))
[ "$(cat "$T/plain.out")" = "$BIG: stored as profile $id ($SAMPLES samples)" ] ||
	fail "push without a terminal said: $(cat "$T/plain.out")"
[ ! -s "$T/plain.err" ] ||
	fail "push without a terminal wrote to stderr: $(head -c 300 "$T/plain.err")"
ok "without a terminal: the result line only"

# 3. --no-progress on a terminal: the result line only.
script -qefc "$(printf '%q ' "$PROFCTL" push "$BIG" --scope quiet --no-progress)" \
    "$T/quiet.log" >/dev/null </dev/null || fail "push --no-progress"
id=$((id + 1))
tr -d '\r' <"$T/quiet.log" | has -x "$BIG: stored as profile $id ($SAMPLES samples)" ||
	fail "--no-progress said: $(cat -v "$T/quiet.log")"
! has -F $'\033' "$T/quiet.log" ||
	fail "--no-progress drew a live line: $(cat -v "$T/quiet.log" | head -c 300)"
ok "--no-progress on a terminal: the result line only"

# 4. --progress without a terminal: the live line on stderr all the same,
#    stdout as always.  The heap fixture is small: one upload update.
"$PROFCTL" push "$FIXTURES/heap.pprof" --scope forced --progress \
    >"$T/forced.out" 2>"$T/forced.err" || fail "push --progress"
id=$((id + 1))
[ "$(cat "$T/forced.out")" = "$FIXTURES/heap.pprof: stored as profile $id (1664 samples)" ] ||
	fail "push --progress said on stdout: $(cat "$T/forced.out")"
has -F "heap.pprof: uploading " "$T/forced.err" ||
	fail "--progress drew no line: $(cat -v "$T/forced.err")"
ok "--progress without a terminal: the live line on stderr"

stop_profd
ok "the detached profd stopped on SIGTERM"

# 5. /v1/status while an import is held, then runs: on a detached profd
#    again (see above), the same store.
start_profd_detached
python3 "$TESTS_DIR/tools/held_import.py" progress "$SOCK" "$DB" "$BIG" \
    "$PROFCTL" "$SAMPLES" "$INFLATED" || fail "status during the import"
