# The spool directory: files waiting at start and files dropped later are
# imported and removed; the format is forced by a format directory (which
# wins over the extension) or by the extension; names being written are
# left alone until renamed; corrupt files, links, FIFOs and stray entries
# go to failed/ beside a .error and leave the store as it was; a scope
# directory made after the start is watched; --spool-keep keeps imported
# files in done/; a spool that cannot be used stops the start; the daemon
# serves throughout, and GET /v1/status and profctl status tell all this.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spool-lib.sh"
SP="$T/spool"
FOLDED=$'main;work;leaf 7\nmain;work 3\nmain 1\n'

# A spool that is not a directory: exit 1 with a message saying so.
touch "$T/afile"
set +e
"$PROFD" --foreground --no-config --socket "$T/x.sock" --db "$T/x.db" \
    --spool "$T/afile" >"$T/bad.log" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "profd with a file as spool exited $rc, want 1"
has "$T/afile is not a directory" "$T/bad.log" ||
    fail "no clear message: $(cat "$T/bad.log")"
ok "a spool that is not a directory stops the start (exit 1)"

# Waiting at start: auto-detected, in a format directory, by extension.
mkdir -p "$SP/early/pprof"
cp "$FIXTURES/cpu.pprof" "$SP/early/cpu"
cp "$FIXTURES/heap.pprof" "$SP/early/pprof/heap"
cp "$FIXTURES/mutex.pprof" "$SP/early/mutex.pb.gz"
touch -d '-1 min' "$SP/early/cpu" "$SP/early/pprof/heap" \
    "$SP/early/mutex.pb.gz"
# Written just before the start: no close event reaches a daemon that was
# not running, so it is taken once it has not changed for a while.
cp "$FIXTURES/block.pprof" "$SP/early/block"
start_profd --spool "$SP"
wait_until "the files waiting at start" has_profiles early 4
wait_until "an idle spool" spool_idle "$SP"
[ -d "$SP/failed" ] || fail "no failed/ made"
r=$(api GET "/v1/profiles?scope=early")
body_of "$r" | json '" ".join(sorted(p["name"] for p in j["profiles"]))' \
    >"$T/names"
[ "$(cat "$T/names")" = "block cpu heap mutex.pb.gz" ] ||
    fail "names at start: $(cat "$T/names")"
ok "files waiting at start imported and removed"

# Format forcing.
mkdir -p "$SP/fmt/folded" "$SP/fmt/pprof"
printf '%s' "$FOLDED" >"$SP/fmt/folded/stacks.pprof"  # the directory wins
printf '%s' "$FOLDED" | sed 's/leaf/leaf2/' >"$SP/fmt/more.folded"
cp "$FIXTURES/cpu.pprof" "$SP/fmt/cpu-auto"
cp "$FIXTURES/cpu.pprof" "$SP/fmt/cpu.folded"       # pprof bytes as folded
printf '%s' "$FOLDED" >"$SP/fmt/pprof/text"         # folded text as pprof
wait_until "the format files" spool_idle "$SP"
r=$(api GET "/v1/profiles?scope=fmt")
body_of "$r" | json '" ".join("%s=%s" % (p["name"], p["format"]) for p in sorted(j["profiles"], key=lambda p: p["name"]))' >"$T/fmts"
[ "$(cat "$T/fmts")" = "cpu-auto=pprof more.folded=folded stacks.pprof=folded" ] ||
    fail "formats: $(cat "$T/fmts")"
[ -f "$SP/failed/fmt/cpu.folded" ] || fail "cpu.folded not in failed/"
has '^folded: ' "$SP/failed/fmt/cpu.folded.error" ||
    fail "cpu.folded.error: $(cat "$SP/failed/fmt/cpu.folded.error")"
has '^format: folded (from the extension)' "$SP/failed/fmt/cpu.folded.error" ||
    fail "cpu.folded.error: $(cat "$SP/failed/fmt/cpu.folded.error")"
[ -f "$SP/failed/fmt/text" ] || fail "pprof/text not in failed/fmt/"
has '^pprof: ' "$SP/failed/fmt/text.error" ||
    fail "text.error: $(cat "$SP/failed/fmt/text.error")"
ok "format by directory (over the extension), by extension, detected"

# Names being written are left alone until renamed.
n=$(nprofiles fmt)
cp "$FIXTURES/heap.pprof" "$SP/fmt/.heap.pprof"
cp "$FIXTURES/heap.pprof" "$SP/fmt/heap-copy.pprof.tmp"
printf 'a;b 1\n' >"$SP/fmt/marker.folded"
wait_until "the marker" has_profiles fmt $((n + 1))
wait_until "an idle spool" spool_idle "$SP"
[ -f "$SP/fmt/.heap.pprof" ] || fail "a dot-file was taken"
[ -f "$SP/fmt/heap-copy.pprof.tmp" ] || fail "a .tmp file was taken"
[ "$(nprofiles fmt)" = $((n + 1)) ] || fail "an in-progress file was imported"
mv "$SP/fmt/.heap.pprof" "$SP/fmt/heap.pprof"
wait_until "the renamed dot-file" has_profiles fmt $((n + 2))
# The same bytes under another name: a duplicate, removed all the same.
mv "$SP/fmt/heap-copy.pprof.tmp" "$SP/fmt/heap-copy.pprof"
wait_until "the renamed .tmp file" spool_idle "$SP"
[ "$(nprofiles fmt)" = $((n + 2)) ] || fail "a duplicate was stored again"
has "heap-copy.pprof: already stored as profile" "$T/profd.log" ||
    fail "the duplicate is not in the log"
ok "dot-files and *.tmp left alone until renamed; a duplicate only removed"

# A corrupt file: failed/ with the decoder's message and byte offset; the
# store unchanged.
before=$(status_field 'j["imports"]["spool"]["done"]')
head -c 2000 "$FIXTURES/cpu.pprof" >"$SP/fmt/broken.pprof"
wait_until "the corrupt file" test -f "$SP/failed/fmt/broken.pprof.error"
wait_until "an idle spool" spool_idle "$SP"
has 'at byte [0-9]' "$SP/failed/fmt/broken.pprof.error" ||
    fail "broken.pprof.error: $(cat "$SP/failed/fmt/broken.pprof.error")"
cmp -s <(head -c 2000 "$FIXTURES/cpu.pprof") "$SP/failed/fmt/broken.pprof" ||
    fail "failed/fmt/broken.pprof is not the file dropped"
[ "$(nprofiles fmt)" = $((n + 2)) ] || fail "the corrupt file changed the store"
[ "$(status_field 'j["imports"]["spool"]["done"]')" = "$before" ] ||
    fail "the corrupt file counted as done"
# A second file of that name goes beside the first.
head -c 1000 "$FIXTURES/cpu.pprof" >"$SP/fmt/broken.pprof"
wait_until "the second corrupt file" test -f "$SP/failed/fmt/broken.pprof.1.error"
ok "corrupt file into failed/ with a .error naming the byte; store unchanged"

# Links and FIFOs are refused without following or opening them; an entry
# at the top that is not a scope directory too.
ln -s "$FIXTURES/cpu.pprof" "$SP/fmt/link.pprof"
mkfifo "$SP/fmt/fifo"
mkdir "$SP/fmt/subdir"
echo stray >"$SP/stray"
wait_until "the refused entries" test -f "$SP/failed/stray.error"
wait_until "an idle spool" spool_idle "$SP"
[ -L "$SP/failed/fmt/link.pprof" ] || fail "the link was not moved as a link"
[ -f "$FIXTURES/cpu.pprof" ] || fail "the link's target is gone"
has 'symbolic link' "$SP/failed/fmt/link.pprof.error" || fail "link.pprof.error"
[ -p "$SP/failed/fmt/fifo" ] || fail "the FIFO was not moved"
has 'FIFO' "$SP/failed/fmt/fifo.error" || fail "fifo.error"
[ -d "$SP/failed/fmt/subdir" ] || fail "the directory was not moved"
has 'outside any scope' "$SP/failed/stray.error" || fail "stray.error"
[ "$(nprofiles fmt)" = $((n + 2)) ] || fail "a refused entry changed the store"
ok "symlink, FIFO, directory and a stray file refused into failed/"

# A scope directory made after the start, and a format directory in it.
mkdir "$SP/late"
cp "$FIXTURES/block.pprof" "$SP/late/block.pprof"
wait_until "the new scope directory" has_profiles late 1
mkdir "$SP/late/folded"
printf '%s' "$FOLDED" >"$SP/late/folded/stacks"
wait_until "the new format directory" has_profiles late 2
ok "new scope and format directories are watched"

# The daemon kept serving: a push, and the status of all of it.
out=$("$PROFCTL" push "$FIXTURES/cpu.pprof" --scope pushed) ||
    fail "push: $out"
case "$out" in *"stored as profile"*) ;; *) fail "push: $out" ;; esac
[ "$(status_field 'j["imports"]["push"]["done"]')" = 1 ] || fail "push count"
[ "$(status_field 'j["spool"]["dir"]')" = "$SP" ] || fail "status: spool dir"
[ "$(status_field 'j["spool"]["refused"]')" = 8 ] ||
    fail "status: refused $(status_field 'j["spool"]')"
[ "$(status_field 'j["imports"]["spool"]["failed"]')" = 8 ] ||
    fail "status: spool failed"
status_field '[e["what"] for e in j["errors"]]' >"$T/errs"
has "$SP/stray" "$T/errs" || fail "errors: $(cat "$T/errs")"
"$PROFCTL" status >"$T/status.txt" || fail "profctl status"
has "^spool: $SP" "$T/status.txt" || fail "profctl status: $(cat "$T/status.txt")"
has '^  spool .* done .* 8 failed' "$T/status.txt" ||
    fail "profctl status: $(cat "$T/status.txt")"
has "broken.pprof: .*at byte" "$T/status.txt" ||
    fail "profctl status: $(cat "$T/status.txt")"
"$PROFCTL" status --json | json 'j["spool"]["waiting_files"]' >"$T/w"
[ "$(cat "$T/w")" = 0 ] || fail "profctl status --json"
ok "pushes served, GET /v1/status and profctl status tell the spool's work"

# --spool-keep: imported files kept in done/<scope>/, never overwritten.
stop_profd
start_profd --spool "$SP" --spool-keep
cp "$FIXTURES/mutex.pprof" "$SP/late/m.pprof"
wait_until "the kept file" test -f "$SP/done/late/m.pprof"
cp "$FIXTURES/mutex.pprof" "$SP/late/m.pprof"
wait_until "the kept duplicate" test -f "$SP/done/late/m.pprof.1"
wait_until "an idle spool" spool_idle "$SP"
[ "$(nprofiles late)" = 3 ] || fail "late: $(nprofiles late) profiles"
cmp -s "$FIXTURES/mutex.pprof" "$SP/done/late/m.pprof" || fail "done/ copy"
ok "--spool-keep moves imported files to done/<scope>/"

# A full import queue: while a push imports and another waits (an import
# queue of one), the spool's files find no room; they wait in the spool
# and are all imported once there is, none lost.  The first push is held
# in its import by the helper holding the store's write lock, so the queue
# is known to stay full however fast the machine imports.
stop_profd
start_profd --spool "$SP" --import-queue 1 --log-level debug
python3 "$TESTS_DIR/tools/held_import.py" queue-full "$SOCK" "$DB" \
    "$FIXTURES/cpu.pprof" "$FIXTURES/heap.pprof" "$T/profd.log" \
    "$SP/many" 12 || fail "a full import queue"
wait_until "the twelve files" spool_idle "$SP"
[ "$(nprofiles many)" = 12 ] || fail "many: $(nprofiles many) profiles"
[ -z "$(find "$SP/failed/many" -mindepth 1 2>/dev/null)" ] ||
    fail "many: files in failed/"
ok "a full import queue delays spool files, loses none"

# A spool that does not exist yet is made, with its failed/.
stop_profd
start_profd --spool "$T/fresh/spool"
[ -d "$T/fresh/spool/failed" ] || fail "the spool was not made"
[ "$(status_field 'j["spool"]["dir"]')" = "$T/fresh/spool" ] ||
    fail "status of the new spool"
ok "a missing spool directory is made"
