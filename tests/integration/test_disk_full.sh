# A full disk under the store: a push answers 507 naming the store and
# stores nothing; a spool file is kept where it is (not refused into
# failed/) and tried again after a growing wait; a chunked upload is kept
# (a chunk that finds no room: 507, and the upload as it was); once there
# is space again the spool imports resume by themselves and the upload
# imports.  The store and the uploads live on a small tmpfs filled up by
# a file; the test needs root to mount it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spool-lib.sh"
SMALL="$T/small"
SP="$T/spool"
mkdir -p "$SP/full"
mount_small_fs "$SMALL" 128m
DB="$SMALL/profd.db"

# Folded stacks of unique names: several MB of store, more than the WAL
# the first push leaves.
gen_folded() {
	python3 -c '
import sys
tag = sys.argv[1]
for i in range(10000):
    print("main;%s_a%d;%s_b%d;%s_c%d %d" % (tag, i, tag, i, tag, i, i + 1))
' "$1"
}
gen_folded spool >"$T/spool.folded"
gen_folded push >"$T/push.folded"
gen_folded upload >"$T/upload.folded"
touch -d '-1 min' "$T/spool.folded"

start_profd --spool "$SP"
r=$(api POST "/v1/profiles?scope=warm" --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 201 ] || fail "push before the disk is full: $r"
# The upload, complete while there is room.
r=$(api POST /v1/uploads)
[ "$(status_of "$r")" = 201 ] || fail "POST /v1/uploads: $r"
up=$(body_of "$r" | json 'j["upload_id"]')
size=$(stat -c %s "$T/upload.folded")
r=$(api PUT "/v1/uploads?id=$up&offset=0" --data-binary @"$T/upload.folded")
[ "$(status_of "$r")" = 200 ] || fail "PUT: $r"

# Fill the disk.
dd if=/dev/zero of="$SMALL/fill" bs=64k >/dev/null 2>&1 || true
[ "$(df --output=avail -k "$SMALL" | tail -n 1 | tr -d ' ')" -lt 64 ] ||
    fail "the tmpfs is not full: $(df -k "$SMALL")"

r=$(api POST "/v1/profiles?scope=pushed&format=folded" \
    --data-binary @"$T/push.folded")
[ "$(status_of "$r")" = 507 ] || fail "push on a full disk: $r"
body_of "$r" | json 'j["error"]' | has 'insufficient storage' ||
    fail "push on a full disk: $r"
body_of "$r" | json 'j["detail"]' | has '^store: ' ||
    fail "507 does not name the store: $r"
[ "$(nprofiles pushed)" = 0 ] || fail "the 507 push stored something"
ok "a push on a full disk: 507 naming the store, nothing stored"

r=$(api PUT "/v1/uploads?id=$up&offset=$size" --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 507 ] || fail "PUT on a full disk: $r"
r=$(api POST "/v1/profiles?scope=uploaded&upload=$up")
[ "$(status_of "$r")" = 507 ] || fail "import of the upload on a full disk: $r"
body_of "$r" | json 'j["detail"]' | has "upload $up is kept" ||
    fail "507 on the upload does not say it is kept: $r"
ok "an upload on a full disk: a chunk and its import get 507, the upload is kept"

cp -p "$T/spool.folded" "$SP/full/big.folded"
# Each wait's bound (WAIT_S) is against a hang, not a speed check.
WAIT_S=300 wait_until "the spool's disk-full message" \
    has "big.folded: store: .*kept in the spool" "$T/profd.log"
# Tried again while the disk stays full (the second try is 1 s later).
tried_twice() {
	[ "$(status_field 'j["spool"]["retried"]')" -ge 2 ]
}
WAIT_S=300 wait_until "a second try" tried_twice
[ -f "$SP/full/big.folded" ] || fail "the spool file was not kept"
[ -z "$(find "$SP/failed" -mindepth 1)" ] ||
    fail "a file went to failed/: $(find "$SP/failed")"
[ "$(grep -c 'kept in the spool' "$T/profd.log")" = 1 ] ||
    fail "the disk-full message is not said once"
ok "a spool file on a full disk is kept and tried again"

rm "$SMALL/fill"
WAIT_S=300 wait_until "the spool import after the disk has room" \
    has_profiles full 1
WAIT_S=300 wait_until "an idle spool" spool_idle "$SP"
has "spool: imports resume" "$T/profd.log" || fail "no resume in the log"
[ -z "$(find "$SP/failed" -mindepth 1)" ] || fail "a file went to failed/"
r=$(api POST "/v1/profiles?scope=uploaded&upload=$up")
[ "$(status_of "$r")" = 201 ] || fail "the kept upload after the disk has room: $r"
r=$(api POST "/v1/profiles?scope=pushed&format=folded" \
    --data-binary @"$T/push.folded")
[ "$(status_of "$r")" = 201 ] || fail "push after the disk has room: $r"
r=$(api POST "/v1/profiles?scope=uploaded&upload=$up")
[ "$(status_of "$r")" = 404 ] || fail "the upload was not removed once stored: $r"
ok "space again: the spool import resumes by itself, the kept upload imports"
