#!/usr/bin/env bash
# test_top_fsum.sh: top over days of profiles, answered from the rollup
# runs' per-function sums (store-fsum.c, DESIGN-STORAGE.md "Function
# sums"), is go tool pprof -top of the same profiles merged: every row's
# flat and cum, its (inline) or (partial-inline) mark, the order and the
# total and the profiles counted.  The real CPU fixture (a Go program:
# inlined frames) re-timed every 3 hours over three days makes day runs of
# merged levels and days merged whole; each top is asked twice (the first
# read sums the runs it decodes, the second reads those sums), over
# everything, over a whole day, and over windows with partial hours at
# both ends; then again after profiles are deleted (their windows merged
# again with the profile taken out), after more are pushed, and after the
# newest is deleted and pushed again.  profd runs detached, as the
# README's demo starts it, and is stopped with SIGTERM and started again
# after the deletes: the new process, with no sums in memory, answers
# the same from the runs on disk.  The
# unit test test_store_rollup checks the same against the blocks alone
# for many more selections.  Needs go.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null 2>&1 || { echo "SKIP: go not installed"; exit 77; }
# One query thread: the second read of each top is on the connection that
# summed the runs the first one decoded.
start_profd_detached --query-threads 1

# 2026-01-05 00:00:00 UTC, a day boundary.
D0=1767571200
N=26
# at K: the time of copy K, D0 + 7 min + K x 3 h.
at() { echo $((D0 + 420 + $1 * 10800)); }
for k in $(seq 0 $((N - 1))); do
	python3 "$TESTS_DIR/tools/retime_pprof.py" "$FIXTURES/cpu.pprof" \
	    "$T/cpu.$k.pb" "$(at "$k")000000000" || fail "retime cpu $k"
done
push() {	# scope files...
	local scope=$1
	shift
	"$PROFCTL" push "$@" --scope "$scope" >"$T/push.out" 2>&1 ||
	    fail "push: $(tail -3 "$T/push.out")"
}
push cpu "$T"/cpu.{0..23}.pb
LAST=23

rfc() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
# same SCOPE METRIC UNIT FIRST LAST [SINCE UNTIL]: profctl top (twice)
# against pprof over copies FIRST..LAST that are still stored.
same() {
	local scope=$1 metric=$2 unit=$3 first=$4 last=$5 win=() files=() k i
	[ $# -gt 5 ] && win=(--since "$(rfc "$6")" --until "$(rfc "$7")")
	for k in $(seq "$first" "$last"); do
		case " ${GONE:-} " in *" $scope.$k "*) continue ;; esac
		files+=("$T/$scope.$k.pb")
	done
	TZ=UTC go tool pprof -symbolize=none -top -nodefraction=0 \
	    -nodecount=100000 -sample_index="$metric" -unit="$unit" \
	    "${files[@]}" >"$T/want.txt" 2>/dev/null ||
	    fail "go tool pprof of $scope $first..$last"
	for i in 1 2; do
		"$PROFCTL" top --scope "$scope" --metric "$metric" "${win[@]}" \
		    --limit 100000 --json >"$T/got.json" ||
		    fail "profctl top $scope ${win[*]}"
		python3 "$TESTS_DIR/tools/pprof_top.py" "$T/want.txt" \
		    "$T/got.json" "$unit" ||
		    fail "top $scope $metric ${win[*]} (read $i) differs from pprof"
	done
	k=$(json 'j["profiles"]' <"$T/got.json")
	[ "$k" = "${#files[@]}" ] ||
	    fail "top $scope ${win[*]}: $k profiles, want ${#files[@]}"
	echo "   $scope $metric ${win[*]:-(all)}:" \
	    "$(json 'len(j["rows"])' <"$T/got.json") rows, $k profiles"
}
marks() {	# the inline marks top printed: not a test without them
	json 'sum(1 for r in j["rows"] if r["inline"] != "no")' <"$T/got.json"
}

views() {
	same cpu cpu ns 0 "$LAST"
	[ "$(marks)" -gt 0 ] || fail "no inline marks in the CPU profile's top"
	same cpu samples count 0 "$LAST"
	# Whole days (day runs only), then partial hours at both ends: copies
	# 8..15 are day 1, the window below holds copies 9..19.
	same cpu cpu ns 8 15 "$((D0 + 86400))" "$((D0 + 2 * 86400 - 1))"
	same cpu cpu ns 9 19 "$((D0 + 86400 + 2 * 3600 + 1800))" \
	    "$((D0 + 2 * 86400 + 9 * 3600 + 600))"
	same cpu samples count 2 22 "$((D0 + 6 * 3600))" \
	    "$((D0 + 2 * 86400 + 19 * 3600 + 1800))"
}
views

# Deletes merge a window and take the profile out: new runs, new sums.
del() {	# scope copy
	local id
	id=$("$PROFCTL" profiles --scope "$1" --since "$(rfc "$(at "$2")")" \
	    --until "$(rfc "$(($(at "$2") + 60))")" --json |
	    json 'j["profiles"][0]["id"]') || fail "no profile $1.$2"
	"$PROFCTL" delete --scope "$1" --id "$id" >/dev/null ||
	    fail "delete $1.$2"
	GONE="${GONE:-} $1.$2"
}
del cpu 0
del cpu 12
del cpu 23
del cpu 20
views
stop_profd
start_profd_detached --query-threads 1
views
# A new day after the deletes.
push cpu "$T"/cpu.{24..25}.pb
LAST=25
views
# The newest deleted and pushed again: its windows' runs written again
# right after the run of the highest id went (schema 13 gave the new run
# that id; schema 14 never uses an id again, and the sums are kept by it).
del cpu 25
views
push cpu "$T"/cpu.25.pb
GONE=${GONE% cpu.25}
views
stop_profd

ok
