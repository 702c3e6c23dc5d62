# Linux perf's `perf script` text against perf itself: a C program with
# three hot functions (6:3:1) recorded by a real `perf record -g`, pushed
# without naming its format; each function's share in profctl top is perf
# report --no-children's, the total is perf's event count and the sample
# count perf's; --label comm=... selects one process as perf script
# --comms does; the spool takes the text too; a cut or garbled text is a
# 400 naming the line, nothing stored; profctl record -- ./prog end to end
# and its messages when perf is missing or not permitted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spool-lib.sh"

command -v perf >/dev/null ||
    { echo "skip: perf is not installed (contrib/setup.sh installs linux-perf)"; exit 77; }
command -v cc >/dev/null || fail "no cc to build the profiled program"

# alpha, beta and gamma_ burn CPU in their own loops, 6:3:1.
cat >"$T/hot.c" <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
void alpha(unsigned long n) { for (unsigned long i = 0; i < 6 * n; i++) sink += i; }
void beta(unsigned long n) { for (unsigned long i = 0; i < 3 * n; i++) sink += i; }
void gamma_(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	for (int i = 0; i < rounds; i++) {
		alpha(2000000);
		beta(2000000);
		gamma_(2000000);
	}
	return 0;
}
C
cc -O0 -g -fno-omit-frame-pointer -o "$T/hot" "$T/hot.c" || fail "cc hot.c"
cp "$T/hot" "$T/cold"

# The kernel may refuse perf here (a container, a VM without perf events,
# perf_event_paranoid for a user): the one reason to skip.
if ! perf record -g -F 999 -o "$T/hot.data" -- \
    sh -c '"$1" 8 & "$2" 4; wait' sh "$T/hot" "$T/cold" \
    >"$T/record.out" 2>&1; then
	if has -i -e 'paranoid' -e 'permission' -e 'not supported' \
	    -e 'No such device' -e 'perf_event_open' "$T/record.out"; then
		echo "skip: the kernel refuses perf record: $(tail -n 3 "$T/record.out")"
		exit 77
	fi
	fail "perf record: $(cat "$T/record.out")"
fi
perf script -i "$T/hot.data" --header >"$T/hot.txt" 2>"$T/script.err" ||
    fail "perf script: $(cat "$T/script.err")"

# perf report's view: the sample count, the event count, each symbol's
# share of it.
perf report -i "$T/hot.data" --no-children --stdio -g none -F overhead,sym \
    >"$T/report.txt" 2>/dev/null || fail "perf report"
read -r samples events < <(python3 - "$T/report.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
print(re.search(r"^# Samples: (\d+)", t, re.M).group(1),
      re.search(r"^# Event count \(approx\.\): (\d+)", t, re.M).group(1))
PY
)
[ "$samples" -gt 50 ] || fail "perf recorded only $samples samples"

SP="$T/spool"
# Detached, as the README's demo starts it: perf's text arrives over the
# socket, from the spool and from profctl record as a user's would.
start_profd_detached --spool "$SP"

out=$("$PROFCTL" push "$T/hot.txt" --scope native --no-progress) || fail "push: $out"
case "$out" in
*"stored as profile"*"($samples samples)"*) ;;
*) fail "push: $out, want perf's $samples samples" ;;
esac
r=$(api GET "/v1/profiles?scope=native")
[ "$(body_of "$r" | json 'j["profiles"][0]["format"]')" = perf-script ] ||
    fail "format not detected as perf-script: $r"
[ "$(body_of "$r" | json '"%s/%s" % (j["profiles"][0]["metrics"][0]["type"], j["profiles"][0]["metrics"][0]["unit"])')" = cpu-clock/nanoseconds ] ||
    fail "metric: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["samples"]')" = "$samples" ] ||
    fail "samples: $r, want $samples"

# Each function's flat share equals perf report --no-children's (two
# decimals there) within half a point; the total is perf's event count.
# top_vs_report TOP.json REPORT.txt [FUNCTIONS...]
top_vs_report() {
	python3 - "$@" <<'PY'
import json, re, sys
top = json.load(open(sys.argv[1]))
rep = open(sys.argv[2]).read()
events = int(re.search(r"^# Event count \(approx\.\): (\d+)", rep, re.M).group(1))
perf = {}
for m in re.finditer(r"^\s+([\d.]+)%\s+\[[.k]\]\s+(\S+)\s*$", rep, re.M):
    perf[m.group(2)] = perf.get(m.group(2), 0) + float(m.group(1))
bad = []
if top["total"] != events:
    bad.append("total %d, perf's event count %d" % (top["total"], events))
flat = {r["function"]: r["flat"] for r in top["rows"]}
for fn in sys.argv[3:]:
    share = 100.0 * flat.get(fn, 0) / top["total"]
    if fn not in perf or abs(share - perf[fn]) > 0.5:
        bad.append("%s: %.2f%% in profctl top, %s%% in perf report" %
                   (fn, share, perf.get(fn)))
    print("%s %.2f%% (perf report %.2f%%)" % (fn, share, perf.get(fn, 0)))
for b in bad:
    print("MISMATCH:", b)
sys.exit(1 if bad else 0)
PY
}
"$PROFCTL" top --scope native --json >"$T/top.json"
top_vs_report "$T/top.json" "$T/report.txt" alpha beta gamma_ >"$T/cmp.txt" ||
    fail "profctl top differs from perf report: $(cat "$T/cmp.txt")"
python3 - "$T/top.json" <<'PY' || fail "the 6:3:1 functions are not in that order: $(cat "$T/cmp.txt")"
import json, sys
f = {r["function"]: r["flat"] for r in json.load(open(sys.argv[1]))["rows"]}
sys.exit(0 if f["alpha"] > f["beta"] > f["gamma_"] > 0 else 1)
PY
"$PROFCTL" top --scope native | has 'alpha$' || fail "text top has no alpha"
ok "perf script pushed undeclared: top equals perf report --no-children ($(tr '\n' ' ' <"$T/cmp.txt")), $samples samples, $events ns"

# --label comm=hot: the hot process alone, as perf's own comm filter
# (perf script --comms hot, pushed apart) has it, function for function;
# and its shares are perf report --comms hot's.
perf script -i "$T/hot.data" --header --comms hot >"$T/hot-only.txt" 2>/dev/null ||
    fail "perf script --comms hot"
"$PROFCTL" push "$T/hot-only.txt" --scope hotonly --no-progress >/dev/null ||
    fail "push hot-only"
"$PROFCTL" top --scope native --label comm=hot --json >"$T/top-hot.json"
"$PROFCTL" top --scope hotonly --json >"$T/top-hotonly.json"
python3 - "$T/top-hot.json" "$T/top-hotonly.json" <<'PY' || fail "--label comm=hot is not perf script --comms hot: $(cat "$T/top-hot.json")"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
rows = lambda t: {r["function"]: (r["flat"], r["cum"]) for r in t["rows"]}
sys.exit(0 if a["total"] == b["total"] > 0 and rows(a) == rows(b) else 1)
PY
"$PROFCTL" top --scope native --label comm=nosuch --json >"$T/top-none.json"
[ "$(json 'j["total"]' <"$T/top-none.json")" = 0 ] || fail "comm=nosuch selected samples"
ok "--label comm=hot selects one process, as perf script --comms hot"

# Placed in time: the samples span the recording, before the push.
r=$(api GET "/v1/profiles?scope=native")
body_of "$r" | json 'j["profiles"][0]["duration_ns"] > 0' | has True ||
    fail "no duration from the samples' times: $r"

# --format perf-script named, and the same text through the spool.
r=$(api POST "/v1/profiles?scope=named&format=perf-script" --data-binary @"$T/hot.txt")
[ "$(status_of "$r")" = 201 ] || fail "format=perf-script: $r"
mkdir -p "$SP/spooled"
cp "$T/hot.txt" "$SP/spooled/.hot.tmp"
mv "$SP/spooled/.hot.tmp" "$SP/spooled/hot.perf.txt"
wait_until "the spool's import" has_profiles spooled 1
[ "$(body_of "$(api GET "/v1/profiles?scope=spooled")" | json 'j["profiles"][0]["format"]')" = perf-script ] ||
    fail "spooled format"
ok "--format perf-script and the spool"

# Cut or garbled: 400 naming the line, nothing stored.
lines=$(wc -l <"$T/hot.txt")
# The last frame cut inside (the text ends "...so.6)\n\n": line lines-1).
head -c $(($(stat -c %s "$T/hot.txt") - 7)) "$T/hot.txt" >"$T/cut-byte.txt"
# Cut after the first frame of the first sample that starts past line n
# (line n may be the blank line that ends a sample).
awk -v n=$((lines / 2)) 'NR <= n { print; next } { print }
    /^[^\t]/ && NF { hdr = 1; next } hdr && /^\t/ { exit }' \
    "$T/hot.txt" >"$T/cut-line.txt"
awk -v n=$((lines / 2)) 'NR == n { print "this is not perf script"; next } { print }' \
    "$T/hot.txt" >"$T/garbled.txt"
for f in cut-byte cut-line garbled; do
	case $f in
	cut-byte) want="line $((lines - 1)), byte .*: the text ends inside a line" ;;
	cut-line) want="the text ends inside the sample of line" ;;
	garbled) want="line $((lines / 2)), byte [0-9]*: not a sample line" ;;
	esac
	out=$("$PROFCTL" push "$T/$f.txt" --scope broken --no-progress 2>&1) &&
	    fail "$f pushed: $out"
	printf '%s\n' "$out" | has "$want" || fail "$f: $out, want $want"
	r=$(api POST "/v1/profiles?scope=broken&format=perf-script" --data-binary @"$T/$f.txt")
	[ "$(status_of "$r")" = 400 ] || fail "$f: $r"
done
[ "$(nprofiles broken)" = 0 ] || fail "a refused perf script was stored"
ok "cut and garbled perf script refused with the line, nothing stored"

# profctl record -- COMMAND: perf record -g, perf script, the push.
out=$("$PROFCTL" record --scope rec --frequency 999 -- "$T/hot" 3 2>"$T/rec.err") ||
    fail "profctl record: $out $(cat "$T/rec.err")"
case "$out" in "perf record of $T/hot: stored as profile"*) ;; *) fail "record: $out" ;; esac
"$PROFCTL" top --scope rec --label comm=hot --json >"$T/top-rec.json"
python3 - "$T/top-rec.json" <<'PY' || fail "profctl record's profile: $(cat "$T/top-rec.json")"
import json, sys
f = {r["function"]: r["flat"] for r in json.load(open(sys.argv[1]))["rows"]}
sys.exit(0 if f.get("alpha", 0) > f.get("beta", 0) > f.get("gamma_", 0) > 0 else 1)
PY
r=$(api GET "/v1/tags?scope=rec")
body_of "$r" | has '"pid"' || fail "no pid label from profctl record: $r"
ls -d "${TMPDIR:-/tmp}"/profctl-record.* 2>/dev/null | has . &&
    fail "profctl record left its directory"
ok "profctl record -- ./hot: recorded, pushed, comm and pid labels"

# What it says when perf is missing, or the kernel would refuse.
out=$(PATH=/nonexistent "$PROFCTL" record --scope x -- /bin/true 2>&1) &&
    fail "record without perf succeeded: $out"
printf '%s\n' "$out" | has 'perf is not installed.*linux-perf' ||
    fail "record without perf: $out"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$paranoid" -gt 0 ] && [ "$(id -u)" = 0 ]; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$PROFCTL" record --all --seconds 1 2>&1) &&
	    fail "record --all as nobody succeeded: $out"
	printf '%s\n' "$out" | has "perf_event_paranoid is $paranoid (--all needs 0 or less)" ||
	    fail "record --all as nobody: $out"
fi
ok "profctl record says what it needs"

# SIGTERM stops the detached daemon cleanly (stop_profd waits for it).
stop_profd
ok "the detached profd stopped on SIGTERM"
