#!/usr/bin/env bash
# test_push_large.sh: profiles large enough that profd decodes them on a
# thread of their own (decode/sinkpipe.c: from 256 KiB inflated), pushed
# the way users push them, answer what go tool pprof prints for the same
# files.  profd runs detached, as the README's demo starts it; three
# profiles of 30,000 samples over 2000 functions (1.4 MB inflated each,
# random stacks: most of their callsites new) arrive one push after the
# other into one scope, a minute apart in their times; then the first is
# pushed again into a second scope (its stacks stored: the importer's
# caches and the callsite map warm).  top of each scope, for both sample
# types, equals go tool pprof -top of the same files merged (every row's
# flat and cum, the order, the total); profd is stopped with SIGTERM,
# started again, and answers the same.  test_import_pipe checks the
# stored rows against an import without the thread.  Needs go.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null 2>&1 || { echo "SKIP: go not installed"; exit 77; }

# 2026-01-05 00:00:00 UTC.
D0=1767571200
for k in 0 1 2; do
	python3 "$TESTS_DIR/tools/genpprof.py" "$T/big.$k.pb.gz" \
	    --samples 30000 --functions 2000 --seed $((k + 5)) \
	    --time $((D0 + 60 * k)) || fail "genpprof $k"
	# Past sinkpipe's threshold, or this test takes the other path.
	n=$(python3 -c 'import gzip, sys; print(len(gzip.open(sys.argv[1]).read()))' \
	    "$T/big.$k.pb.gz")
	[ "$n" -ge 262144 ] || fail "big.$k inflates to $n bytes only"
done

start_profd_detached

push() {	# scope file
	out=$("$PROFCTL" push "$2" --scope "$1" 2>&1) || fail "push $2: $out"
	case "$out" in
	*"stored as profile"*"(30000 samples)"*) ;;
	*) fail "push $2 printed: $out" ;;
	esac
}
for k in 0 1 2; do
	push big "$T/big.$k.pb.gz"
done
push again "$T/big.0.pb.gz"
ok "pushed 4 profiles of 1.4 MB each"

# same SCOPE METRIC UNIT FILE...: profctl top against pprof merged.
same() {
	local scope=$1 metric=$2 unit=$3
	shift 3
	TZ=UTC go tool pprof -symbolize=none -top -nodefraction=0 \
	    -nodecount=100000 -sample_index="$metric" -unit="$unit" \
	    "$@" >"$T/want.txt" 2>/dev/null || fail "go tool pprof of $scope"
	"$PROFCTL" top --scope "$scope" --metric "$metric" --limit 100000 \
	    --json >"$T/got.json" || fail "profctl top $scope $metric"
	python3 "$TESTS_DIR/tools/pprof_top.py" "$T/want.txt" "$T/got.json" \
	    "$unit" || fail "top $scope $metric differs from go tool pprof"
	[ "$(json 'j["profiles"]' <"$T/got.json")" = $# ] ||
	    fail "top $scope: not $# profiles"
	[ "$(json 'len(j["rows"])' <"$T/got.json")" -ge 1000 ] ||
	    fail "top $scope: fewer rows than the functions drawn"
}
views() {
	same big cpu ns "$T"/big.{0,1,2}.pb.gz
	same big samples count "$T"/big.{0,1,2}.pb.gz
	same again cpu ns "$T/big.0.pb.gz"
	same again samples count "$T/big.0.pb.gz"
}
views
ok "top of both scopes, both metrics, equals go tool pprof"

stop_profd
start_profd_detached
views
ok "the same after SIGTERM and a restart"
stop_profd
