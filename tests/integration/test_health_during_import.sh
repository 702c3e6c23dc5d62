# GET /v1/health never waits for an import: the event loop does not block
# on the import thread.  An import is held in progress on purpose (the
# helper holds the store's write lock, so the import waits for it inside
# its transaction) and health is asked while it is known to run: every
# answer must come and report it, and the import is stored once the lock
# is released.  Nothing depends on how fast the machine imports or starts
# processes (the helper asks over the socket itself); latency figures
# belong in bench/.
. "$(dirname "$0")/lib.sh"
start_profd
# The first push makes the store's tables.
r=$(api POST "/v1/profiles?scope=first" --data-binary @"$FIXTURES/heap.pprof")
[ "$(status_of "$r")" = 201 ] || fail "first push: $r"

python3 "$TESTS_DIR/tools/held_import.py" health "$SOCK" "$DB" \
    "$FIXTURES/cpu.pprof" || fail "health during a held import"
r=$(api GET "/v1/profiles?scope=held")
[ "$(body_of "$r" | json 'len(j["profiles"])')" = 1 ] ||
    fail "the held import is not stored once: $r"
ok "the held import stored once"
