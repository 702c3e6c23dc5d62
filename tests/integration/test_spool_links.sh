# The spool never reads a file through a name its dropper could plant: a
# hard link (to a file the dropper may not read, /etc/shadow as root), a
# symbolic link and a FIFO are refused into failed/ without their content
# being read; and no error, in failed/*.error or in the log, quotes what a
# refused file holds: it names the file and the offset, not the bytes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spool-lib.sh"
SP="$T/spool"
mkdir -p "$SP/sec/folded"

# Not folded text (no count), so a decoder that read it would refuse it
# and, quoting, leak it.
SECRET='root:$6$S3CRETsalt$hash:19000:0:99999:7:::'
printf '%s\n' "$SECRET" >"$T/shadow"
chmod 600 "$T/shadow"
# Old enough for the first listing to take them at once: a hard link makes
# no close event, the listing finds it.
touch -d '-1 min' "$T/shadow"
no_secret() {
	! grep -rF 'S3CRET' "$@" >/dev/null
}

ln "$T/shadow" "$SP/sec/hard.folded"
ln "$T/shadow" "$SP/sec/folded/hard2"
ln -s "$T/shadow" "$SP/sec/soft.folded"
mkfifo "$SP/sec/fifo.folded"
# The same bytes in a file of its own: read, refused by the decoder.
cp -p "$T/shadow" "$SP/sec/own.folded"
start_profd --spool "$SP"
wait_until "the refused entries" test -f "$SP/failed/sec/own.folded.error" \
    -a -f "$SP/failed/sec/hard.folded.error" \
    -a -f "$SP/failed/sec/hard2.error" \
    -a -f "$SP/failed/sec/soft.folded.error" \
    -a -f "$SP/failed/sec/fifo.folded.error"
wait_until "an idle spool" spool_idle "$SP"

has 'hard link ([0-9]* names)' "$SP/failed/sec/hard.folded.error" ||
    fail "hard.folded.error: $(cat "$SP/failed/sec/hard.folded.error")"
has 'hard link' "$SP/failed/sec/hard2.error" ||
    fail "hard2.error: $(cat "$SP/failed/sec/hard2.error")"
has 'symbolic link' "$SP/failed/sec/soft.folded.error" ||
    fail "soft.folded.error: $(cat "$SP/failed/sec/soft.folded.error")"
[ -L "$SP/failed/sec/soft.folded" ] || fail "the link was not moved as is"
has 'FIFO' "$SP/failed/sec/fifo.folded.error" ||
    fail "fifo.folded.error: $(cat "$SP/failed/sec/fifo.folded.error")"
[ -p "$SP/failed/sec/fifo.folded" ] || fail "the FIFO was not moved as is"
has '^folded: line 1, byte [0-9]*: no count' "$SP/failed/sec/own.folded.error" ||
    fail "own.folded.error: $(cat "$SP/failed/sec/own.folded.error")"
has "^file: $SP/sec/own.folded" "$SP/failed/sec/own.folded.error" ||
    fail "own.folded.error names no file"
ok "hard links, a symbolic link and a FIFO refused; the file's own error names line and byte"

no_secret --include='*.error' "$SP/failed" ||
    fail "a .error quotes the file: $(grep -rF --include='*.error' S3CRET "$SP/failed")"
no_secret "$T/profd.log" || fail "the log quotes the file: $(grep -F S3CRET "$T/profd.log")"
status_field 'j["errors"]' >"$T/errors.json"
no_secret "$T/errors.json" || fail "GET /v1/status quotes the file"
[ "$(cat "$T/shadow")" = "$SECRET" ] || fail "the linked file changed"
[ "$(nprofiles sec)" = 0 ] || fail "a refused entry changed the store"
ok "no error in failed/, the log or GET /v1/status quotes the content"

# A push of the same bytes is the sender's own: its error may quote them.
r=$(api POST "/v1/profiles?scope=sec&format=folded" --data-binary @"$T/shadow")
[ "$(status_of "$r")" = 400 ] || fail "push: $r"
body_of "$r" | has 'S3CRET' || fail "push error without the quote: $r"
ok "a push's error still quotes the sender's own bytes"
