#!/usr/bin/env bash
# A full disk: the store on a small tmpfs, filled up; pushes are answered
# 507 with the documented JSON naming the store file, nothing of them is
# stored, profd keeps serving, and once space is back the same push is
# stored; the counts are exact and the store is whole.
source "$TESTS_DIR/integration/lib.sh"

[ "$(id -u)" = 0 ] || { echo "skip: mounting a tmpfs needs root"; exit 77; }
FS="$T/fs"
mount_small_fs "$FS" 12m
DB="$FS/profd.db"

mkdir "$T/p"
python3 "$TESTS_DIR/tools/distinct_pprof.py" "$FIXTURES/cpu.pprof" "$T/p" 400
# push I: the status; the body in $T/body
push() {
	curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$SOCK" \
	    -X POST --data-binary "@$T/p/$1.pb" \
	    "http://localhost/v1/profiles?scope=full"
}
nprofiles() {
	api GET "/v1/profiles?scope=full" | sed '$d' | json 'len(j["profiles"])'
}

start_profd
stored=0
for i in 0 1 2 3 4; do
	[ "$(push $i)" = 201 ] || fail "push $i before the disk is full: $(cat "$T/body")"
	stored=$((stored + 1))
done

# Fill the file system; then push until the store runs out of room (its
# WAL and pages freed by checkpoints take some pushes first).
dd if=/dev/zero of="$FS/filler" bs=64k 2>/dev/null || true
[ "$(df --output=avail -B1 "$FS" | tail -n 1)" -lt 65536 ] ||
	fail "the tmpfs is not full: $(df -h "$FS")"
i=5
code=
while [ "$i" -lt 400 ]; do
	code=$(push $i)
	[ "$code" = 201 ] || break
	stored=$((stored + 1))
	i=$((i + 1))
done
[ "$code" = 507 ] || fail "push $i on a full disk: HTTP $code $(cat "$T/body")"
[ "$(json 'j["error"]' <"$T/body")" = "insufficient storage" ] ||
	fail "507 body: $(cat "$T/body")"
json 'j["detail"]' <"$T/body" | has -F "$DB" ||
	fail "the 507 does not name the store $DB: $(cat "$T/body")"
ok "push $i on a full disk: 507 naming the store ($(json 'j["detail"]' <"$T/body"))"

# Still serving: health, a query, and the failed push left nothing.
[ "$(status_of "$(api GET /v1/health)")" = 200 ] || fail "health on a full disk"
[ "$(status_of "$(api GET '/v1/top?scope=full&limit=3')")" = 200 ] ||
	fail "a query on a full disk"
[ "$(nprofiles)" = "$stored" ] ||
	fail "$(nprofiles) profiles after the 507, $stored were answered 201"
[ "$(push $i)" = 507 ] || fail "a second push on a full disk: $(cat "$T/body")"
ok "profd keeps serving on a full disk; $stored profiles, none half-stored"

# Space comes back: the same push is stored, and more after it.
rm -f "$FS/filler"
code=$(push $i)
[ "$code" = 201 ] || fail "push $i once space is back: HTTP $code $(cat "$T/body")"
[ "$(json 'j["duplicate"]' <"$T/body")" = False ] ||
	fail "the retried push was a duplicate: $(cat "$T/body")"
stored=$((stored + 1))
for j in 1 2 3; do
	[ "$(push $((i + j)))" = 201 ] || fail "push $((i + j)) after: $(cat "$T/body")"
	stored=$((stored + 1))
done
[ "$(nprofiles)" = "$stored" ] || fail "$(nprofiles) profiles, $stored stored"
one=$(api GET "/v1/top?scope=full&limit=1" | sed '$d' | json 'j["total"]')
stop_profd
if command -v sqlite3 >/dev/null; then
	[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] ||
		fail "integrity_check: $(sqlite3 "$DB" 'PRAGMA integrity_check')"
	[ -z "$(sqlite3 "$DB" 'PRAGMA foreign_key_check')" ] ||
		fail "foreign_key_check: $(sqlite3 "$DB" 'PRAGMA foreign_key_check')"
	[ "$(sqlite3 "$DB" 'SELECT count(*) FROM profile')" = "$stored" ] ||
		fail "profile rows: $(sqlite3 "$DB" 'SELECT count(*) FROM profile')"
	[ "$(sqlite3 "$DB" 'SELECT count(DISTINCT profile_id) FROM sample_block')" = "$stored" ] ||
		fail "profiles with sample blocks"
fi
start_profd
[ "$(api GET "/v1/top?scope=full&limit=1" | sed '$d' | json 'j["total"]')" = "$one" ] ||
	fail "the total changed across a restart"
ok "space back: push $i stored, $stored profiles in all, integrity_check ok"
