#!/usr/bin/env bash
# series.sh: store growth and query time over a series of profiles of one
# program.  Pushes FILES (in order) into a fresh store in two steps, the
# first N1 then the rest, and prints the store size after each step, the
# growth per extra profile, and the median wall time of whole `profctl top`
# and `profctl tree` processes after each step.
#   bench/series.sh BUILD_DIR N1 FILE...
set -euo pipefail
b=$(cd "$1" && pwd)
n1=$2
shift 2
t=$(mktemp -d "${TMPDIR:-/tmp}/profd-series.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$t"' EXIT

start() {
	"$b/profd" --foreground --no-config --spool none --socket "$t/s.sock" \
	    --db "$t/db" >>"$t/log" 2>&1 &
	pid=$!
	for _ in $(seq 200); do
		curl -sf --unix-socket "$t/s.sock" http://localhost/v1/health \
		    >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "profd did not start" >&2
	exit 1
}
stop() {
	kill -TERM "$pid"
	wait "$pid" || true
	pid=
}
# median of 15 runs of a command, in ms
timeit() {
	local i s e
	for i in $(seq 15); do
		s=$(date +%s%N)
		"$@" >/dev/null
		e=$(date +%s%N)
		echo $(( (e - s) / 1000 ))
	done | sort -n | sed -n 8p | awk '{ printf "%.1f", $1 / 1000 }'
}
size() { sqlite3 "$t/db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null; stat -c %s "$t/db"; }

files=("$@")
first=("${files[@]:0:$n1}")
rest=("${files[@]:$n1}")
start
s=$(date +%s%N)
"$b/profctl" --socket "$t/s.sock" push --scope svc "${first[@]}" >/dev/null
e=$(date +%s%N)
echo "push $n1: $(( (e - s) / 1000000 )) ms"
# warm the query index once
"$b/profctl" --socket "$t/s.sock" top --scope svc >/dev/null
echo "top  after $n1: $(timeit "$b/profctl" --socket "$t/s.sock" top --scope svc) ms"
echo "tree after $n1: $(timeit "$b/profctl" --socket "$t/s.sock" tree --scope svc) ms"
stop
s1=$(size)
echo "store after $n1: $s1 bytes"
[ ${#rest[@]} -gt 0 ] || exit 0
start
s=$(date +%s%N)
"$b/profctl" --socket "$t/s.sock" push --scope svc "${rest[@]}" >/dev/null
e=$(date +%s%N)
echo "push ${#rest[@]} more: $(( (e - s) / 1000000 )) ms"
"$b/profctl" --socket "$t/s.sock" top --scope svc >/dev/null
echo "top  after ${#files[@]}: $(timeit "$b/profctl" --socket "$t/s.sock" top --scope svc) ms"
echo "tree after ${#files[@]}: $(timeit "$b/profctl" --socket "$t/s.sock" tree --scope svc) ms"
stop
s2=$(size)
echo "store after ${#files[@]}: $s2 bytes"
echo "growth per extra profile: $(( (s2 - s1) / ${#rest[@]} )) bytes" \
    "(gzipped size of the last: $(stat -c %s "${files[-1]}"))"
