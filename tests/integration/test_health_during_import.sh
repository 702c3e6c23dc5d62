# GET /v1/health never waits for an import: the event loop does not block
# on the import thread.  An import is held in progress on purpose (another
# process holds the store's write lock, so the import waits for it inside
# its transaction) and health is asked while it is known to run: every
# answer must come and report it.  Nothing depends on how fast the
# machine imports; latency figures belong in bench/.
. "$(dirname "$0")/lib.sh"
start_profd
# The store exists once profd answers; the first push makes its tables.
r=$(api POST "/v1/profiles?scope=first" --data-binary @"$FIXTURES/heap.pprof")
[ "$(status_of "$r")" = 201 ] || fail "first push: $r"

hold_store_lock

health() {
	# --max-time: a bound against a hang, not a speed check.
	curl -s --max-time 60 -o "$T/h.json" -w '%{http_code}' \
	    --unix-socket "$SOCK" http://localhost/v1/health >"$T/h.code" ||
	    fail "health did not answer"
	[ "$(cat "$T/h.code")" = 200 ] || fail "health: $(cat "$T/h.code")"
	json '(j["status"], j["importing"], j["queue_depth"] >= 1)' \
	    <"$T/h.json"
}

# The import waits for the lock within SQLite's busy timeout (5 s); were
# that to run out before health has been asked (a machine far slower than
# any CI), the push gets 503 and the round is tried again.
held=0
for round in 1 2 3 4 5; do
	api POST "/v1/profiles?scope=held" \
	    --data-binary @"$FIXTURES/cpu.pprof" >"$T/push.out" &
	push_pid=$!
	seen=0
	while kill -0 "$push_pid" 2>/dev/null; do
		if [ "$(health)" = "('ok', True, True)" ]; then
			seen=1
			break
		fi
		sleep 0.05
	done
	if [ "$seen" = 1 ]; then
		: >"$T/answers"
		for _ in 1 2 3 4 5; do
			health >>"$T/answers"
		done
		# Still importing after the last answer: it ran throughout.
		if [ "$(health)" = "('ok', True, True)" ]; then
			held=1
			break
		fi
	fi
	wait "$push_pid" || true
	echo "round $round: the import ended before health was asked" \
	    "($(tail -n 1 "$T/push.out")); again"
done
[ "$held" = 1 ] || fail "no import was seen in progress in 5 rounds"
[ "$(sort -u "$T/answers")" = "('ok', True, True)" ] ||
    fail "health during the held import: $(cat "$T/answers")"
ok "health answered 5 times while an import was held, each reporting it"

release_store_lock
wait "$push_pid" || fail "push: $(cat "$T/push.out")"
[ "$(status_of "$(cat "$T/push.out")")" = 201 ] ||
    fail "the held push once the lock is released: $(cat "$T/push.out")"
[ "$(health)" = "('ok', False, False)" ] || fail "health after: $(cat "$T/h.json")"
ok "the held import stored once the lock is released; health idle again"
