# push, duplicates, listing, restart, concurrent clients, bad input and the
# messages profctl prints when something is wrong.
. "$(dirname "$0")/lib.sh"
GEN="$TESTS_DIR/tools/genpprof.py"

# profctl with no daemon: exit 2 and the socket it tried.
set +e
msg=$("$PROFCTL" scopes 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] || fail "profctl without daemon exited $rc, want 2"
case "$msg" in *"$SOCK"*) ;; *) fail "no socket path in: $msg" ;; esac
ok "no daemon: exit 2, names $SOCK"

start_profd

# A stale socket file is removed, a live one refused.
set +e
"$PROFD" --foreground --no-config --spool none --socket "$SOCK" \
    --db "$T/other.db" >"$T/second.log" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a second profd started on a live socket"
grep -q "already listening" "$T/second.log" || fail "second profd: $(cat "$T/second.log")"
ok "second profd on a live socket refused"

out=$("$PROFCTL" push "$FIXTURES/cpu.pprof" --scope svc-a --label env=test --label host=h1)
case "$out" in *"stored as profile 1 "*) ;; *) fail "first push: $out" ;; esac
out=$("$PROFCTL" push "$FIXTURES/cpu.pprof" --scope svc-a)
case "$out" in *"already stored as profile 1"*) ;; *) fail "duplicate push: $out" ;; esac
r=$(api POST "/v1/profiles?scope=svc-a" --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 200 ] || fail "duplicate push status $(status_of "$r")"
[ "$(body_of "$r" | json 'j["duplicate"]')" = True ] || fail "duplicate flag"
[ "$(body_of "$r" | json 'j["profile_id"]')" = 1 ] || fail "duplicate id"
# The same bytes in another scope are a new profile.
r=$(api POST "/v1/profiles?scope=svc-b&name=x.pprof" --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 201 ] || fail "push to svc-b: $r"
[ "$(body_of "$r" | json 'j["metrics"][1]["type"]')" = cpu ] || fail "metrics: $r"
ok "duplicate push answers 200 with the first id; other scope stores again"

r=$(api GET "/v1/profiles?scope=svc-a")
[ "$(body_of "$r" | json 'len(j["profiles"])')" = 1 ] || fail "profiles: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["labels"]["env"]')" = test ] || fail "labels: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["period"]')" = 10000000 ] || fail "period: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["default_metric"]["type"]')" = cpu ] || fail "default: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["duration_ns"] > 0')" = True ] || fail "duration: $r"
"$PROFCTL" profiles --scope svc-a | has "env=test" || fail "profctl profiles"
"$PROFCTL" scopes | has "^svc-b " || fail "profctl scopes: $("$PROFCTL" scopes)"
ok "profiles and scopes list what was pushed"

# Unknown scope: 404, profctl exits 1 and says so.
set +e
msg=$("$PROFCTL" top --scope nosuch 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] || fail "top of unknown scope exited $rc"
case "$msg" in *'unknown scope "nosuch"'*) ;; *) fail "message: $msg" ;; esac
r=$(api GET "/v1/top?scope=svc-a&metric=nosuch")
[ "$(status_of "$r")" = 400 ] || fail "unknown metric: $r"
r=$(api GET "/v1/top?scope=svc-a&sort=sideways")
[ "$(status_of "$r")" = 400 ] || fail "bad sort: $r"
r=$(api GET "/v1/top?scope=bad%2Fname")
[ "$(status_of "$r")" = 400 ] || fail "bad scope: $r"
r=$(api DELETE "/v1/top")
[ "$(status_of "$r")" = 405 ] || fail "wrong method: $r"
r=$(api GET "/v1/nothing")
[ "$(status_of "$r")" = 404 ] || fail "unknown path: $r"
ok "bad parameters answered 400/404/405 with a detail"

# Bad blobs: 400 naming what is wrong, nothing stored, daemon serving.
count_profiles() {
	body_of "$(api GET /v1/scopes)" | json 'sum(s["profiles"] for s in j["scopes"])'
}
before=$(count_profiles)
head -c 300 "$FIXTURES/cpu.pprof" >"$T/truncated.gz"
gzip -dc "$FIXTURES/cpu.pprof" | head -c 500 >"$T/truncated.pb"
printf 'this is not a profile\n' >"$T/text"
for f in truncated.gz truncated.pb text; do
	r=$(api POST "/v1/profiles?scope=svc-bad" --data-binary @"$T/$f")
	[ "$(status_of "$r")" = 400 ] || fail "$f: status $(status_of "$r")"
	d=$(body_of "$r" | json 'j["detail"]')
	echo "   $f -> $d"
done
r=$(api POST "/v1/profiles?scope=svc-bad&format=pprof" --data-binary @"$T/truncated.pb")
case "$(body_of "$r" | json 'j["detail"]')" in *byte*) ;; *) fail "no byte offset: $r" ;; esac
after=$(count_profiles)
[ "$before" = "$after" ] || fail "a bad blob was stored ($before -> $after profiles)"
r=$(api GET "/v1/profiles?scope=svc-bad")
[ "$(status_of "$r")" = 404 ] || fail "scope of a refused blob exists: $r"
set +e
"$PROFCTL" push "$T/text" --scope svc-bad >"$T/out" 2>&1; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "profctl push of a bad file exited $rc: $(cat "$T/out")"
r=$(api POST "/v1/profiles?scope=svc-bad&format=folded-nope" --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 400 ] || fail "unknown format: $r"
ok "bad blobs refused with 400, nothing stored"

# Limits: a body over --max-body is 413.
stop_profd
start_profd --max-body 1000
r=$(api POST "/v1/profiles?scope=svc-big" --data-binary @"$FIXTURES/heap.pprof")
[ "$(status_of "$r")" = 413 ] || fail "over max-body: $(status_of "$r")"
stop_profd
start_profd --max-inflated 2000
r=$(api POST "/v1/profiles?scope=svc-big" --data-binary @"$FIXTURES/cpu.pprof")
[ "$(status_of "$r")" = 413 ] || fail "over max-inflated: $r"
ok "limits answered 413"

# Restart: everything is still there, top unchanged.
stop_profd
start_profd
"$PROFCTL" top --scope svc-a --json >"$T/top1.json"
stop_profd
[ -S "$SOCK" ] && fail "socket left behind after SIGTERM"
start_profd
"$PROFCTL" top --scope svc-a --json >"$T/top2.json"
cmp -s "$T/top1.json" "$T/top2.json" || fail "top changed across restart"
[ "$(json 'len(j["rows"])' <"$T/top2.json")" -gt 10 ] || fail "top after restart is empty"
ok "data survives a restart"

# A stale socket (profd killed hard) is removed at start.
kill -KILL "$PROFD_PID"; wait "$PROFD_PID" 2>/dev/null || true; PROFD_PID=
[ -S "$SOCK" ] || fail "no stale socket to test with"
start_profd
grep -q "removing stale socket" "$T/profd.log" || fail "stale socket not reported"
ok "stale socket removed"

# Concurrent pushes from several clients: all stored, each once.
for i in 1 2 3 4 5 6 7 8; do
	python3 "$GEN" "$T/p$i.pb.gz" --samples 300 --seed "$i"
done
pids=
for i in 1 2 3 4 5 6 7 8; do
	"$PROFCTL" push "$T/p$i.pb.gz" --scope conc >"$T/push$i.out" 2>&1 &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "a concurrent push failed"; done
ids=$(cat "$T"/push*.out | grep -o 'stored as profile [0-9]*' | awk '{print $4}' | sort -u | wc -l)
[ "$ids" = 8 ] || fail "8 concurrent pushes gave $ids distinct ids: $(cat "$T"/push*.out)"
r=$(api GET "/v1/top?scope=conc&metric=samples")
[ "$(body_of "$r" | json 'j["total"]')" = 2400 ] || fail "concurrent total: $r"
[ "$(body_of "$r" | json 'j["profiles"]')" = 8 ] || fail "concurrent profiles: $r"
ok "8 concurrent pushes stored once each (total 2400 samples)"

# Imports run without foreign key checks (store_begin_import); what they
# wrote must still satisfy every key, and the writer must have them back
# on afterwards: a delete right after a push cascades to profile_metric.
[ -z "$(sqlite3 "$DB" 'PRAGMA foreign_key_check')" ] ||
    fail "foreign_key_check after the imports: $(sqlite3 "$DB" 'PRAGMA foreign_key_check' | head -5)"
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] ||
    fail "integrity_check after the imports"
out=$("$PROFCTL" push "$FIXTURES/heap.pprof" --scope fk) || fail "push for fk: $out"
id=$(printf '%s\n' "$out" | grep -o 'stored as profile [0-9]*' | awk '{print $4}')
[ "$(sqlite3 "$DB" "SELECT count(*) FROM profile_metric WHERE profile_id = $id")" -gt 0 ] ||
    fail "no profile_metric rows for profile $id"
r=$(api DELETE "/v1/profiles?scope=fk&id=$id")
[ "$(status_of "$r")" = 200 ] || fail "delete $id: $r"
n=$(sqlite3 "$DB" "SELECT count(*) FROM profile_metric WHERE profile_id = $id")
[ "$n" = 0 ] || fail "$n profile_metric rows outlived profile $id: foreign keys left off"
ok "imports keep every foreign key; the delete after one cascades"
