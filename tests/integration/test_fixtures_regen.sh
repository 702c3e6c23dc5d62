#!/usr/bin/env bash
# test_fixtures_regen.sh — the pprof fixture generator still works.
#
# When `go` is on PATH: builds tests/fixtures/gen, generates fresh cpu, heap,
# mutex and block profiles into a temporary directory and checks that
#   - `go tool pprof -top` accepts each of them,
#   - each has exactly the expected sample types
#       cpu:   samples/count cpu/nanoseconds
#       heap:  alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes
#       mutex: contentions/count delay/nanoseconds
#       block: contentions/count delay/nanoseconds
#   - the cpu profile carries the pprof labels "worker" and "phase" and has
#     inlined frames (a Location with more than one Line),
#   - make-expected.sh succeeds on them (it checks that pprof's numbers are
#     exact: sum of flat == total == sum of raw sample values),
#   - with Go 1.19 (the pprof the committed expected files were made with):
#     make-expected.sh reproduces the committed tests/fixtures/expected/
#     byte for byte from the committed profiles.
# Without go it prints "SKIP: go not installed" and exits 77 (ctest:
# SKIP_RETURN_CODE 77). Runs in ~10-20 s, well under 60 s.
set -euo pipefail

if ! command -v go >/dev/null 2>&1; then
    echo "SKIP: go not installed"
    exit 77
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fixtures=$(cd "$here/../fixtures" && pwd)

export GOFLAGS= GOPROXY=off GOTOOLCHAIN=local GOWORK=off GO111MODULE=on
export TZ=UTC LC_ALL=C

tmp=$(mktemp -d "${TMPDIR:-/tmp}/profd-fixtures-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cache=$(go env GOCACHE 2>/dev/null || true)
if [[ -z $cache || $cache == off ]] || ! mkdir -p "$cache" 2>/dev/null || [[ ! -w $cache ]]; then
    export GOCACHE=$tmp/gocache
fi

fail() { echo "FAIL: $*" >&2; exit 1; }

with_timeout() {
    if command -v timeout >/dev/null 2>&1; then timeout "$@"; else shift; "$@"; fi
}

echo "# $(go version)"
(cd "$fixtures/gen" && with_timeout 300 go build -trimpath -o "$tmp/profd-fixtures-gen" .) ||
    fail "building the generator"
out=$tmp/out
# Output goes to a log (not a terminal): each generator child also has its
# own 120 s watchdog that panics with all goroutine stacks.
if ! with_timeout 300 "$tmp/profd-fixtures-gen" "$out" >"$tmp/gen.log" 2>&1; then
    cat "$tmp/gen.log" >&2
    fail "running the generator"
fi
sed 's/^/# /' "$tmp/gen.log"

declare -A want=(
    [cpu]="samples/count cpu/nanoseconds"
    [heap]="alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes"
    [mutex]="contentions/count delay/nanoseconds"
    [block]="contentions/count delay/nanoseconds"
)

for prof in cpu heap mutex block; do
    f=$out/$prof.pprof
    [[ -s $f ]] || fail "$prof.pprof missing or empty"
    go tool pprof -symbolize=none -top "$f" >"$tmp/$prof.top" 2>"$tmp/$prof.err" ||
        fail "go tool pprof -top rejects $prof.pprof: $(cat "$tmp/$prof.err")"
    grep -q '^ *flat  *flat%  *sum%  *cum  *cum%$' "$tmp/$prof.top" ||
        fail "$prof: no report table in pprof -top output"
    go tool pprof -symbolize=none -raw "$f" >"$tmp/$prof.raw" 2>"$tmp/$prof.err" ||
        fail "go tool pprof -raw rejects $prof.pprof: $(cat "$tmp/$prof.err")"
    types=$(awk 'p { print; exit } /^Samples:/ { p = 1 }' "$tmp/$prof.raw" | sed 's/ *$//')
    [[ $types == "${want[$prof]}" ]] ||
        fail "$prof: sample types are '$types', want '${want[$prof]}'"
    nsamples=$(awk '/^Samples:/ { s = 1; getline; next } /^Locations/ { s = 0 }
                    s && /^ *-?[0-9]+( +-?[0-9]+)*: / { n++ } END { print n + 0 }' "$tmp/$prof.raw")
    (( nsamples > 0 )) || fail "$prof: no samples"
    echo "ok - $prof.pprof: $types, $nsamples samples"
done

# cpu: labels (raw prints them as "key:[value]" under each sample)
raw=$tmp/cpu.raw
grep -Eq '^ +.*phase:\[[a-z]+\]' "$raw" || fail "cpu: no 'phase' label"
grep -Eq '^ +.*worker:\[[01]\]' "$raw" || fail "cpu: no 'worker' label"
echo "ok - cpu.pprof has labels phase and worker"

# cpu: inlined frames = a Location followed by continuation lines (more Lines)
inl=$(awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 }
           l && /^ *[0-9]+: / { id = $1; next }
           l && /^ +[^ ]/ { seen[id] = 1 }
           END { n = 0; for (k in seen) n++; print n }' "$raw")
(( inl > 0 )) || fail "cpu: no Location with more than one Line (no inlined frames)"
grep -q ' (inline)$' "$tmp/cpu.top" || fail "cpu: pprof -top shows no (inline) function"
echo "ok - cpu.pprof has $inl locations with inlined frames"

# make-expected.sh on the fresh profiles (self-checking: exact integers)
"$fixtures/make-expected.sh" "$out" 2>"$tmp/me.err" || { cat "$tmp/me.err" >&2; fail "make-expected.sh on fresh profiles"; }
n=$(ls "$out/expected" | wc -l)
(( n == 30 )) || fail "make-expected.sh wrote $n files, want 30 (.top, .cum.top, .tsv per sample type)"
echo "ok - make-expected.sh: 30 expected files, all totals exact"

# The committed expected files are reproducible (only with the pprof they
# were made with: Go 1.19).
if [[ $(go env GOVERSION) == go1.19* ]]; then
    mkdir -p "$tmp/committed"
    cp "$fixtures"/{cpu,heap,mutex,block}.pprof "$tmp/committed/"
    "$fixtures/make-expected.sh" "$tmp/committed" 2>"$tmp/me2.err" || { cat "$tmp/me2.err" >&2; fail "make-expected.sh on committed profiles"; }
    diff -r "$fixtures/expected" "$tmp/committed/expected" >"$tmp/diff" ||
        { head -40 "$tmp/diff" >&2; fail "committed tests/fixtures/expected differs from make-expected.sh output"; }
    echo "ok - committed expected files reproduce"
else
    echo "ok - # skip reproducing committed expected files: $(go env GOVERSION) is not go1.19"
fi
echo "PASS"
