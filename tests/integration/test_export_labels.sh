# GET /v1/export keeps what a push said about its profile: the push labels
# become sample labels of that profile's samples (go tool pprof -tags,
# -raw, -tagfocus see them), samples of profiles with different push labels
# stay apart, a push label never overrides a sample label of the same key,
# and the pprof comments of the selected profiles are the export's
# comments, each once (go tool pprof -comments).  Needs go.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null 2>&1 || { echo "SKIP: go not installed"; exit 77; }
GEN="$TESTS_DIR/tools/genpprof.py"

# Three profiles of one scope: comments on two, a comment they share, push
# labels on two, one of which names the samples' own label key (worker).
python3 "$GEN" "$T/g1.pb.gz" --samples 300 --seed 1 \
    --comment "built by ci #1" --comment shared
python3 "$GEN" "$T/g2.pb.gz" --samples 200 --seed 2 --comment shared
python3 "$GEN" "$T/g3.pb.gz" --samples 100 --seed 3

start_profd
"$PROFCTL" push "$T/g1.pb.gz" --scope lab --label env=prod --label host=a \
    >/dev/null || fail "push g1"
"$PROFCTL" push "$T/g2.pb.gz" --scope lab --label env=dev \
    --label worker=pushed >/dev/null || fail "push g2"
"$PROFCTL" push "$T/g3.pb.gz" --scope lab >/dev/null || fail "push g3"

# total QUERY: /v1/top's cpu total of a selection.
total() {
	local r
	r=$(api GET "/v1/top?metric=cpu&$1")
	[ "$(status_of "$r")" = 200 ] || fail "top $1: $r"
	body_of "$r" | json 'j["total"]'
}

# export QUERY OUT: the export of a selection.
export_to() {
	curl -sf --unix-socket "$SOCK" -o "$2" \
	    "http://localhost/v1/export?metric=cpu&$1" || fail "export $1"
}

export_to "scope=lab" "$T/all.pb.gz"
go tool pprof -comments "$T/all.pb.gz" >"$T/comments" 2>"$T/pprof.err" ||
    fail "go tool pprof -comments: $(cat "$T/pprof.err")"
printf 'built by ci #1\nshared\n' | cmp -s - "$T/comments" ||
    fail "the export's comments: $(cat "$T/comments")"
ok "comments of the selected profiles, each once"

go tool pprof -tags "$T/all.pb.gz" >"$T/tags" 2>"$T/pprof.err" ||
    fail "go tool pprof -tags: $(cat "$T/pprof.err")"
has -E '^ *env: Total' "$T/tags" && has -E '^ *host: Total' "$T/tags" ||
    fail "no push labels in go tool pprof -tags: $(cat "$T/tags")"
! has 'pushed' "$T/tags" ||
    fail "a push label overrode the samples' own worker label"

# Per sample (go tool pprof -raw): its cpu value and labels.  The samples
# labelled env=prod are profile 1's, env=dev profile 2's, no env profile
# 3's; host=a goes with env=prod only; every sample keeps its own worker.
go tool pprof -raw "$T/all.pb.gz" >"$T/raw" 2>"$T/pprof.err" ||
    fail "go tool pprof -raw: $(cat "$T/pprof.err")"
python3 - "$T/raw" "$(total 'scope=lab&profile=1')" \
    "$(total 'scope=lab&profile=2')" "$(total 'scope=lab&profile=3')" <<'PY' ||
import re, sys
want = {"prod": int(sys.argv[2]), "dev": int(sys.argv[3]), None: int(sys.argv[4])}
samples = []
section = None
for line in open(sys.argv[1]):
    if not line.startswith(" "):
        section = line.strip()
        continue
    if section != "samples/count cpu/nanoseconds[dflt]":
        continue
    m = re.match(r"\s+(\d+)\s+(\d+):", line)
    if m:
        samples.append([int(m.group(2)), {}])
        continue
    for k, v in re.findall(r"(\w+):\[([^\]]*)\]", line):
        samples[-1][1][k] = v
got = {}
for cpu, labels in samples:
    env = labels.get("env")
    got[env] = got.get(env, 0) + cpu
    assert (labels.get("host") == "a") == (env == "prod"), labels
    assert re.fullmatch(r"w[0-7]", labels.get("worker", "")), labels
assert got == want, (got, want)
print("cpu by env:", got)
PY
    fail "samples and push labels of the export do not match the profiles"
ok "push labels are the samples' labels, per profile"

# One profile (one set of push labels): all its samples carry them.
export_to "scope=lab&profile=1" "$T/one.pb.gz"
go tool pprof -raw "$T/one.pb.gz" >"$T/raw1" 2>"$T/pprof.err" ||
    fail "go tool pprof -raw: $(cat "$T/pprof.err")"
n=$(grep -c 'env:\[prod\] host:\[a\]' "$T/raw1" || true)
m=$(grep -cE '^ +[0-9]+ +[0-9]+:' "$T/raw1" || true)
[ "$n" -gt 0 ] && [ "$n" = "$m" ] ||
    fail "profile 1's export: $n of $m samples labelled env=prod host=a"
go tool pprof -comments "$T/one.pb.gz" | has -x 'built by ci #1' ||
    fail "profile 1's comments"
ok "one profile's export: $m samples, all with its push labels"

stop_profd
ok "stopped cleanly"
