# Perfetto traces through the socket: every packet kind, two sequences that
# reuse iids, a state reset, follower counters, gzip; flat and cum of every
# function for every metric equal what the generator computed on its own.
# Then lost state counted (never guessed), labels and time buckets, a
# wrapped ring buffer kept in part with its losses counted by reason, and
# traces with broken framing refused with nothing stored.
. "$(dirname "$0")/lib.sh"
GEN="$TESTS_DIR/tools/genperfetto.py"
CMP="$TESTS_DIR/tools/compare_top.py"
start_profd

for kind in stack perf streaming mixed; do
	for gz in "" --gzip; do
		scope="pf-$kind${gz:+-gz}"
		python3 "$GEN" "$T/$scope.trace" "$T/$scope.json" --kind "$kind" \
		    --samples 1200 --seed 5 $gz
		"$PROFCTL" push "$T/$scope.trace" --scope "$scope" >"$T/push.out" ||
		    fail "push $scope: $(cat "$T/push.out")"
		for metric in $(json '" ".join(j)' <"$T/$scope.json"); do
			"$PROFCTL" top --scope "$scope" --metric "$metric" --json \
			    >"$T/top.json" || fail "top $scope $metric"
			python3 "$CMP" "$T/$scope.json" "$metric" "$T/top.json" ||
			    fail "$scope $metric differs from the generator's numbers"
		done
	done
done
r=$(api GET "/v1/profiles?scope=pf-stack")
[ "$(body_of "$r" | json 'j["profiles"][0]["format"]')" = perfetto ] || fail "format: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["duration_ns"]')" = 1199000000 ] ||
    fail "duration from first and last sample: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["default_metric"]["type"]')" = wall_time ] ||
    fail "default metric: $r"
ok "stack_sample, perf_sample, streaming_profile_packet (raw and gzipped): every function of every metric"

# Process and thread names, pid and tid are labels of the samples.
python3 - "$DB" <<'PY' || fail "labels of the samples"
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
rows = set(db.execute("""SELECT k.s, coalesce(v.s, l.num) FROM label l
    JOIN string k ON k.id = l.key_id LEFT JOIN string v ON v.id = l.str_id"""))
want = {(b"process", b"server"), (b"thread", b"worker"), (b"pid", 42), (b"tid", 43)}
missing = want - rows
if missing:
    print("missing labels:", missing, "have:", sorted(rows)[:20]); sys.exit(1)
PY
ok "pid, tid, process and thread names stored as labels"

# Time buckets: 1 ms apart over 1.2 s → 2 one-second buckets, 1 ten-second.
python3 "$GEN" "$T/b.trace" "$T/b.json" --samples 1200 --seed 9
"$PROFCTL" push "$T/b.trace" --scope bucket1 >/dev/null
"$PROFCTL" push "$T/b.trace" --scope bucket10 --bucket 10s >/dev/null
buckets() {
	local r
	r=$(api POST /v1/query --data-binary "SELECT DISTINCT time_ns / 1000000000 FROM samples WHERE scope = '$1' ORDER BY 1")
	[ "$(status_of "$r")" = 200 ] || fail "query: $r"
	body_of "$r" | json 'j["rows"]'
}
b1=$(buckets bucket1)
b10=$(buckets bucket10)
[ "$b1" = "[[1700000000], [1700000001]]" ] && [ "$b10" = "[[1700000000]]" ] ||
    fail "time buckets: $b1 $b10"
ok "samples keep their time at the bucket size of the push"

# Lost state: samples after previous_packet_dropped and before the next
# clear are counted in the reply, not stored.
python3 - "$T/lost.trace" <<'PY'
import sys
sys.path.insert(0, sys.argv[0] and __import__("os").environ["TESTS_DIR"] + "/tools")
from genperfetto import fv, fb, packet, varint
out = bytearray()
interned = (fb(5, fv(1, 1) + fb(2, "main")) + fb(5, fv(1, 2) + fb(2, "work")) +
            fb(6, fv(1, 1) + fv(2, 1)) + fb(6, fv(1, 2) + fv(2, 2)) +
            fb(7, fv(1, 1) + fb(2, varint(1) + varint(2))))
def sample(ts):
    return packet(fv(8, ts) + fv(10, 1) + fv(13, 2) + fb(66, fv(4, 1) + fv(2, 7)))
out += packet(fv(10, 1) + fv(13, 1) + fb(12, interned))
for i in range(5):
    out += sample(10**18 + i)
out += packet(fv(10, 1) + fv(42, 1))          # previous_packet_dropped
for i in range(3):
    out += sample(10**18 + 10 + i)             # unresolvable
out += packet(fv(10, 1) + fv(13, 1) + fb(12, interned))
for i in range(2):
    out += sample(10**18 + 20 + i)
open(sys.argv[1], "wb").write(out)
PY
r=$(api POST "/v1/profiles?scope=lost" --data-binary @"$T/lost.trace")
[ "$(status_of "$r")" = 201 ] || fail "lost-state trace: $r"
[ "$(body_of "$r" | json 'j["dropped_samples"]')" = 3 ] || fail "dropped: $r"
[ "$(body_of "$r" | json 'j["dropped"].get("unresolved_no_state")')" = 3 ] || fail "reason: $r"
[ "$(body_of "$r" | json 'j["dropped"].get("packets_skipped_no_state")')" = 3 ] || fail "packets: $r"
[ "$(body_of "$r" | json 'j["samples"]')" = 10 ] || fail "samples read: $r"
r=$(api GET "/v1/top?scope=lost&metric=samples")
[ "$(body_of "$r" | json 'j["total"]')" = 7 ] || fail "stored samples: $r"
ok "samples without interned state counted (3) and reported, the rest stored"

# A ring buffer that wrapped: the interning that opened each sequence is
# lost.  What can be resolved is stored (top equals the generator's numbers
# for exactly those samples); the rest is counted by reason in the push
# reply, profctl push's line, the profile's record and the profiles view.
python3 "$GEN" "$T/wrap.trace" "$T/wrap.json" --kind mixed --samples 1500 \
    --seed 11 --wrap 0.3 --counts "$T/wrap.counts"
r=$(api POST "/v1/profiles?scope=wrap" --data-binary @"$T/wrap.trace")
[ "$(status_of "$r")" = 201 ] || fail "wrapped trace: $r"
body_of "$r" >"$T/wrap.reply"
python3 - "$T/wrap.counts" "$T/wrap.reply" <<'PY' || fail "push reply counts: $r"
import json, sys
want = json.load(open(sys.argv[1])); got = json.load(open(sys.argv[2]))
assert want["dropped"]["unknown_callstack_iid"] > 0 and want["stored"] > 0, want
assert want["dropped"]["packets_skipped_no_state"] > 0, want
assert got["samples"] == want["samples"], (got, want)
assert got["dropped_samples"] == want["dropped_samples"], (got, want)
assert got["dropped"] == want["dropped"], (got["dropped"], want["dropped"])
PY
for metric in $(json '" ".join(j)' <"$T/wrap.json"); do
	"$PROFCTL" top --scope wrap --metric "$metric" --json >"$T/top.json" ||
	    fail "top wrap $metric"
	python3 "$CMP" "$T/wrap.json" "$metric" "$T/top.json" ||
	    fail "wrap: $metric differs from the resolvable samples' numbers"
done
stored=$(json 'j["stored"]' <"$T/wrap.counts")
r=$(api GET "/v1/top?scope=wrap&metric=samples")
[ "$(body_of "$r" | json 'j["total"]')" = "$stored" ] ||
    fail "top total is not the $stored resolvable samples: $r"
r=$(api GET "/v1/profiles?scope=wrap")
body_of "$r" | json 'j["profiles"][0]' >"$T/wrap.record"
python3 - "$T/wrap.counts" "$T/wrap.record" <<'PY' || fail "profile record: $r"
import json, sys
want = json.load(open(sys.argv[1])); got = json.load(open(sys.argv[2]))
assert got["samples"] == want["samples"], got
assert got["dropped_samples"] == want["dropped_samples"], got
assert got["dropped"] == want["dropped"], got
PY
r=$(api POST /v1/query --data-binary "SELECT dropped_samples, dropped FROM profiles WHERE scope = 'wrap'")
[ "$(status_of "$r")" = 200 ] || fail "profiles view: $r"
python3 - "$T/wrap.counts" "$(body_of "$r")" <<'PY' || fail "profiles view: $r"
import json, sys
want = json.load(open(sys.argv[1])); rows = json.loads(sys.argv[2])["rows"]
assert len(rows) == 1 and rows[0][0] == want["dropped_samples"], rows
assert json.loads(rows[0][1]) == want["dropped"], rows
PY
r=$(api POST /v1/query --data-binary "SELECT c.reason, c.count FROM profile_counts c JOIN profiles p USING (profile_id) WHERE p.scope = 'wrap' ORDER BY 1")
[ "$(body_of "$r" | json 'json.dumps(dict(j["rows"]), sort_keys=True)')" = \
    "$(json 'json.dumps(j["dropped"], sort_keys=True)' <"$T/wrap.counts")" ] ||
    fail "profile_counts view: $r"
# The same trace again: a duplicate, with the first push's counts.
r=$(api POST "/v1/profiles?scope=wrap" --data-binary @"$T/wrap.trace")
[ "$(status_of "$r")" = 200 ] || fail "duplicate: $r"
[ "$(body_of "$r" | json 'json.dumps(j["dropped"], sort_keys=True)')" = \
    "$(json 'json.dumps(j["dropped"], sort_keys=True)' <"$T/wrap.counts")" ] ||
    fail "duplicate reply counts: $r"
out=$("$PROFCTL" push "$T/wrap.trace" --scope wrap2) || fail "profctl push: $out"
echo "   $out"
want=$(json '"%d samples, %d dropped;" % (j["samples"], j["dropped_samples"])' <"$T/wrap.counts")
case "$out" in *"stored as profile"*"($want"*) ;; *) fail "profctl push line: $out (want $want)" ;; esac
for kv in $(json '" ".join("%s=%d" % kv for kv in j["dropped"].items())' <"$T/wrap.counts"); do
	case "$out" in *" $kv"*) ;; *) fail "profctl push line lacks $kv: $out" ;; esac
done
r=$(api DELETE "/v1/profiles?scope=wrap2")
[ "$(status_of "$r")" = 200 ] || fail "delete wrap2: $r"
python3 - "$DB" <<'PY' || fail "counts of a deleted profile left behind"
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
n = db.execute("SELECT count(*) FROM profile_count WHERE profile_id NOT IN (SELECT id FROM profile)").fetchone()[0]
assert n == 0, n
assert db.execute("SELECT count(*) FROM profile_count").fetchone()[0] > 0
PY
ok "wrapped ring-buffer trace: resolvable samples stored, the rest counted by reason (reply, profctl, record, views)"

# Through the spool, the log line of the import names the same counts.
. "$(dirname "$0")/spool-lib.sh"
stop_profd
mkdir -p "$T/spool/wrap3"
start_profd --spool "$T/spool"
cp "$T/wrap.trace" "$T/spool/wrap3/wrap.trace.tmp"
mv "$T/spool/wrap3/wrap.trace.tmp" "$T/spool/wrap3/wrap.trace"
wait_until "the spooled trace" has_profiles wrap3 1
want=$(json '"%d samples, %d dropped;" % (j["samples"], j["dropped_samples"])' <"$T/wrap.counts")
wait_until "the spool's log line" grep -q "wrap3/wrap.trace: stored as profile.*$want" "$T/profd.log"
line=$(grep "wrap3/wrap.trace: stored as profile" "$T/profd.log")
for kv in $(json '" ".join("%s=%d" % kv for kv in j["dropped"].items())' <"$T/wrap.counts"); do
	case "$line" in *" $kv"*) ;; *) fail "spool log line lacks $kv: $line" ;; esac
done
ok "the spool's log line reports the counts too"

# Malformed traces: 400 naming the byte, nothing stored.
python3 - "$T" <<'PY'
import os, sys
sys.path.insert(0, os.environ["TESTS_DIR"] + "/tools")
from genperfetto import fv, fb, packet, varint
t = sys.argv[1]
good = open(t + "/b.trace", "rb").read()
open(t + "/m-truncated", "wb").write(good[:len(good) - 7])
interned = fb(5, fv(1, 1) + fb(2, "main")) + fb(6, fv(1, 1) + fv(2, 1)) + fb(7, fv(1, 1) + fb(2, varint(1)))
first = packet(fv(10, 9) + fv(13, 1) + fb(12, interned))
body = fv(10, 9) + fv(8, 5)
open(t + "/m-pastend", "wb").write(first + varint(1 << 3 | 2) + varint(len(body) + 50) + body)
open(t + "/m-wiretype", "wb").write(first + fv(1, 7))
# Inside a packet: timestamp (8) must be a varint, here length-delimited.
open(t + "/m-wiretype2", "wb").write(first + packet(fb(8, "x") + fv(10, 9)))
PY
before=$(body_of "$(api GET /v1/scopes)" | json 'sum(s["profiles"] for s in j["scopes"])')
for f in m-truncated m-pastend m-wiretype m-wiretype2; do
	r=$(api POST "/v1/profiles?scope=bad&format=perfetto" --data-binary @"$T/$f")
	[ "$(status_of "$r")" = 400 ] || fail "$f: $r"
	d=$(body_of "$r" | json 'j["detail"]')
	case "$d" in *byte*) ;; *) fail "$f: no byte offset in: $d" ;; esac
	echo "   $f -> $d"
done
after=$(body_of "$(api GET /v1/scopes)" | json 'sum(s["profiles"] for s in j["scopes"])')
[ "$before" = "$after" ] || fail "a malformed trace was stored"
[ "$(status_of "$(api GET /v1/health)")" = 200 ] || fail "profd stopped serving"
ok "truncated packet, length past the end, wrong wire type: 400, nothing stored"
