# lib.sh: shared by the integration tests.  Each test starts its own profd
# on a socket and database in a fresh temporary directory.
set -euo pipefail

: "${PROFD:?PROFD must name the profd binary}"
: "${PROFCTL:?PROFCTL must name the profctl binary}"
: "${FIXTURES:?FIXTURES must name tests/fixtures}"

T=$(mktemp -d "${TMPDIR:-/tmp}/profd-test.XXXXXX")
SOCK="$T/profd.sock"
DB="$T/profd.db"
export PROFD_SOCKET="$SOCK"
PROFD_PID=

# python3 called straight: where python3 on PATH is a version manager's
# shim (pyenv's runs a chain of shell scripts on every call: 0.1 s on an
# idle machine, over 1 s on a loaded one), the hundreds of calls of a test
# (json, the tools) spend minutes there.  The interpreter the shim picks
# is run directly instead, from $T/bin first in PATH: the same Python with
# the same modules, for the tests' own calls and the tools they start.
py_exe=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || py_exe=
if [ -n "$py_exe" ] && [ "$py_exe" != "$(command -v python3)" ] &&
    [[ $py_exe =~ ^/[A-Za-z0-9_./+-]+$ ]] && [ -x "$py_exe" ]; then
	mkdir "$T/bin"
	printf '#!/bin/sh\nexec %s "$@"\n' "$py_exe" >"$T/bin/python3"
	chmod +x "$T/bin/python3"
	PATH="$T/bin:$PATH"
fi

fail() {
	echo "FAIL: $*" >&2
	if [ -f "$T/profd.log" ]; then
		echo "--- profd log ---" >&2
		tail -n 50 "$T/profd.log" >&2
	fi
	exit 1
}

ok() {
	echo "ok: $*"
}

cleanup() {
	stop_profd || true
	rm -rf "$T"
}

# kill_live SIGNAL PID...: SIGNAL to each PID that is still a running
# background job of this shell, and to no other.  A pid kept from a
# process that has ended since (a port holder released, a server
# stopped) may by now be another test's process: pids come round within
# minutes on a busy machine, and a cleanup's kill -9 of such a pid once
# killed test_scrape's shell in CI (no output, failed in 3 s).
kill_live() {
	local sig=$1 pid live
	shift
	live=" $(jobs -pr | tr '\n' ' ') "
	for pid in "$@"; do
		if [[ $live == *" $pid "* ]]; then
			kill "$sig" "$pid" 2>/dev/null || true
		fi
	done
}
trap cleanup EXIT

# mount_small_fs DIR SIZE: a tmpfs of SIZE (e.g. 12m) at DIR, for a full
# disk; unmounted at exit.  Skips (77) where mounting is not allowed (not
# root); CI runs as root.
mount_small_fs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=0755" profd-test "$1" \
	    2>"$T/mount.err" ||
		{ echo "skip: cannot mount a tmpfs: $(cat "$T/mount.err")"; exit 77; }
	SMALL_FS=$1
	trap cleanup_small_fs EXIT
}

cleanup_small_fs() {
	stop_profd || true
	umount "$SMALL_FS" 2>/dev/null || umount -l "$SMALL_FS" 2>/dev/null ||
	    true
	rm -rf "$T"
}

# start_profd [extra flags...]: start in the foreground (backgrounded here)
# and wait until /v1/health answers.
start_profd() {
	if [ -n "${PROFD_TEST_FLEET:-}" ]; then
		fleet_mode_start "$@"
		return
	fi
	"$PROFD" --foreground --no-config --spool none --socket "$SOCK" \
	    --db "$DB" "$@" \
	    >>"$T/profd.log" 2>&1 &
	PROFD_PID=$!
	wait_health "$SOCK"
}

# wait_health SOCK: until /v1/health answers there.  60 s at most (a
# sanitizer build on a loaded machine starts slowly): a bound against a
# hang, not a speed check.
wait_health() {
	local end=$((SECONDS + ${WAIT_S:-60}))
	while [ "$SECONDS" -le "$end" ]; do
		if curl -sf --unix-socket "$1" http://localhost/v1/health \
		    >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$PROFD_PID" 2>/dev/null || fail "profd exited at start"
		sleep 0.05
	done
	fail "profd did not answer on $1"
}

# wait_until WHAT CMD...: run CMD until it succeeds, WAIT_S seconds at most
# (default 60: a bound against hanging, not a timing check).
wait_until() {
	local what=$1 end=$((SECONDS + ${WAIT_S:-60}))
	shift
	while [ "$SECONDS" -le "$end" ]; do
		if "$@"; then
			return 0
		fi
		sleep 0.05
	done
	fail "gave up waiting for $what"
}

# A bound against a hang (WAIT_S, default 120), not the shutdown-timeout's
# check: a sanitizer build on a loaded machine takes seconds more to exit.
stop_profd() {
	local end=$((SECONDS + ${WAIT_S:-120}))
	if [ -n "$PROFD_PID" ] && kill -0 "$PROFD_PID" 2>/dev/null; then
		kill -TERM "$PROFD_PID"
		if [ -z "${PROFD_DETACHED:-}" ]; then
			wait "$PROFD_PID" ||
			    fail "profd exited non-zero on SIGTERM"
		else
			# Not this shell's child: watched until it is gone.
			while kill -0 "$PROFD_PID" 2>/dev/null; do
				[ "$SECONDS" -le "$end" ] ||
				    fail "profd still runs ${WAIT_S:-120} s after SIGTERM"
				sleep 0.05
			done
		fi
	fi
	PROFD_PID=
}

# start_profd_detached [extra flags...]: start as the README's demo does,
# without --foreground (profd detaches: its log goes to syslog; it listens
# before it detaches), with --spool none unless the flags name another;
# its pid is the one /v1/status says.  stop_profd sends it SIGTERM and
# waits until the process is gone (issue 24's detached profd never
# exited); cleanup does too.
start_profd_detached() {
	"$PROFD" --no-config --spool none --socket "$SOCK" --db "$DB" "$@" \
	    >>"$T/profd.log" 2>&1 || fail "profd did not start detached"
	PROFD_PID=$(curl -sf --unix-socket "$SOCK" \
	    http://localhost/v1/status | json 'j["pid"]') ||
		fail "the detached profd does not answer on $SOCK"
	PROFD_DETACHED=1
}

# big_profile: prints the path of a gzipped pprof of more than 25 MB
# (720,000 samples of random stacks over 20,000 functions: a new callsite
# tree, so its import writes tens of MB of WAL in one commit and takes
# seconds), made once in PROFD_TEST_INPUTS (contrib/test.sh: the plain
# build's test-inputs/, so the sanitizer pass does not make it again; by
# default the build directory's); tests running at once share it.
big_profile() {
	local d=${PROFD_TEST_INPUTS:-$BUILD_DIR/test-inputs}
	local f="$d/big-25mb.pb.gz"
	mkdir -p "$d"
	(
		flock 9
		[ -s "$f" ] || {
			python3 "$TESTS_DIR/tools/genpprof.py" "$f.tmp" \
			    --samples 720000 --functions 20000 --depth 30 \
			    --seed 24 && mv "$f.tmp" "$f"
		}
	) 9>"$d/.lock" || fail "genpprof: the large profile"
	printf '%s\n' "$f"
}

# tcp_port: the port of profd's --listen-tcp, as /v1/status says it.
# Tests listen on 127.0.0.1:0 and ask: a port picked free beforehand may
# be taken by another test before profd binds it.
tcp_port() {
	curl -sf --unix-socket "$SOCK" http://localhost/v1/status |
	    json 'j["tcp"]["listen"].rsplit(":", 1)[1]'
}

# api METHOD PATH [curl args...]: prints the body, then the status on the
# last line.
api() {
	local method=$1 path=$2
	shift 2
	[ -z "${PROFD_TEST_FLEET:-}" ] || path=$(fleet_mode_api_path "$path")
	curl -s -X "$method" --unix-socket "$SOCK" -w '\n%{http_code}\n' \
	    "http://localhost$path" "$@"
}

# status_of "$(api ...)" / body_of "$(api ...)"
status_of() { printf '%s\n' "$1" | tail -n 1; }
body_of() { printf '%s\n' "$1" | sed '$d'; }

# json EXPR: evaluate a Python expression over the JSON on stdin (as j).
json() {
	python3 -c 'import json,sys; j=json.load(sys.stdin); r=eval(sys.argv[1]); print(r if not isinstance(r,(dict,list)) else json.dumps(r))' "$1"
}

# nprofiles SCOPE: how many profiles the scope has (0 if unknown).
nprofiles() {
	local r
	r=$(api GET "/v1/profiles?scope=$1")
	case $(status_of "$r") in
	200) body_of "$r" | json 'len(j["profiles"])' ;;
	404) echo 0 ;;
	*) fail "GET /v1/profiles?scope=$1: $r" ;;
	esac
}

# kinds_of SCOPE: "TYPE:KIND ..." of the newest profile of SCOPE, from
# GET /v1/profiles.
kinds_of() {
	api GET "/v1/profiles?scope=$1" | sed '$d' |
	    json '" ".join("%s:%s" % (m["type"], m["kind"]) for m in j["profiles"][-1]["metrics"])'
}

# has PATTERN: grep stdin for PATTERN, reading all of it.  Not grep -q in a
# pipe: it may exit before the writer is done, and pipefail then fails
# the pipeline on the writer's SIGPIPE.
has() {
	grep "$@" >/dev/null
}

# Callsites across the upgrade to schema 7 (chunks, a virtual table the
# sqlite3 shell does not have).  cs_before, on a store of an older schema
# with profd stopped: their count and sums, and the callsites view, read
# by the shell from the table.  cs_after, with the upgraded store's profd
# running: the same through POST /v1/query must be equal.
cs_sql_sums="SELECT count(*), sum(parent_id), sum(frame_id), sum(depth) FROM callsite"
cs_sql_view="SELECT * FROM callsites ORDER BY callsite_id"
cs_before() {
	sqlite3 -separator ' ' -nullvalue '' "$DB" "$cs_sql_sums" \
	    >"$T/cs-sums-before" || fail "callsite sums before the upgrade"
	sqlite3 -separator '	' -nullvalue '' "$DB" "$cs_sql_view" \
	    >"$T/cs-view-before" || fail "callsites view before the upgrade"
	[ "$(wc -l <"$T/cs-view-before")" -gt 100 ] ||
	    fail "the store has few callsites"
}
cs_query() {
	local r
	r=$(api POST '/v1/query?max_rows=1000000' --data-binary "$1")
	[ "$(status_of "$r")" = 200 ] || fail "query $1: $r"
	body_of "$r" | json "'\n'.join('$2'.join('' if x is None else str(x) for x in row) for row in j['rows'])"
}
cs_after() {
	cs_query "$cs_sql_sums" ' ' >"$T/cs-sums-after"
	cs_query "$cs_sql_view" '\t' >"$T/cs-view-after"
	cmp -s "$T/cs-sums-before" "$T/cs-sums-after" ||
	    fail "callsite count and sums: $(cat "$T/cs-sums-before") before, $(cat "$T/cs-sums-after") after"
	cmp -s "$T/cs-view-before" "$T/cs-view-after" ||
	    fail "the callsites view changed: $(diff "$T/cs-view-before" "$T/cs-view-after" | head -5)"
	ok "callsites kept: $(cat "$T/cs-sums-after") (count, sums of parent_id, frame_id, depth); the callsites view the same"
}
# cs_count: callsites in the chunks (the shell can read those).
cs_count() {
	sqlite3 "$DB" "SELECT ifnull(sum(count), 0) FROM callsite_chunk"
}

# store_from_dump FILE VERSION: $DB made from an old store's sqlite3
# .dump (tests/fixtures/store-v*.sql.gz) at schema VERSION, which .dump
# leaves out; skips (77) without the sqlite3 shell or sha256sum, which
# the upgrade tests use.
store_from_dump() {
	command -v sqlite3 >/dev/null 2>&1 ||
		{ echo "skip: no sqlite3 shell"; exit 77; }
	command -v sha256sum >/dev/null 2>&1 ||
		{ echo "skip: no sha256sum"; exit 77; }
	gzip -dc "$FIXTURES/$1" | sqlite3 "$DB" ||
		fail "loading the version $2 dump"
	sqlite3 "$DB" "PRAGMA user_version = $2"
}

# check_answers FILE MIN: each line of FILE is the SHA-256, length and
# path of a GET as profd answered it before an upgrade; the running profd
# must answer each byte for byte (at least MIN of them), once the members
# added to /v1/tree's nodes since (frame_line, inline) are taken out: a
# quote inside a name is escaped, so only those members can match.
check_answers() {
	local n=0 sum len q got
	while read -r sum len q; do
		curl -s --unix-socket "$SOCK" -o "$T/answer.new" "http://localhost$q" ||
		    fail "GET $q"
		# What views have said since those answers were taken:
		# tree nodes' frame_line and inline, every view's
		# metric.aggregate (issue 27).
		case $q in
		/v1/tree\?*)
			LC_ALL=C sed -E 's/,"frame_line":[0-9]+//g; s/,"inline":true//g; s/,"aggregate":"[a-z]+"//' \
			    "$T/answer.new" >"$T/answer" ;;
		/v1/export\?*)
			mv "$T/answer.new" "$T/answer" ;;
		*)	LC_ALL=C sed -E 's/,"aggregate":"[a-z]+"//' \
			    "$T/answer.new" >"$T/answer" ;;
		esac
		got=$(sha256sum <"$T/answer" | cut -c1-64)
		[ "$got" = "$sum" ] ||
		    fail "GET $q: $(wc -c <"$T/answer") bytes, $len before the upgrade: $(head -c 300 "$T/answer")"
		n=$((n + 1))
	done <"$1"
	[ "$n" -ge "$2" ] || fail "only $n answers checked"
	ok "$n answers the same as before the upgrade"
}

# npm_once DIR WHAT PKG...: npm installs PKG... into DIR once, however
# many tests ask at once (ctest -j): under a lock, into DIR.new renamed to
# DIR when whole, so no test sees half an install; skips (77) without npm
# or when npm fails (the registry unreachable).
npm_once() {
	local dir=$1 what=$2 lk
	shift 2
	[ ! -e "$dir/.complete" ] || return 0
	command -v npm >/dev/null ||
	    { echo "SKIP: no npm to install $what"; exit 77; }
	mkdir -p "$(dirname "$dir")"
	exec {lk}>"$dir.lock"
	flock "$lk"
	if [ ! -e "$dir/.complete" ]; then
		rm -rf "$dir.new"
		mkdir -p "$dir.new"
		npm install --no-save --no-audit --no-fund --prefix "$dir.new" \
		    "$@" >"$T/npm.log" 2>&1 || {
			echo "SKIP: npm install $what failed:" \
			    "$(tail -n 3 "$T/npm.log")"
			exit 77
		}
		rm -rf "$dir"
		mv "$dir.new" "$dir"
		touch "$dir/.complete"
	fi
	exec {lk}>&-
}

# need_playwright: chromium, node and playwright-core for the browser
# tests (npm installs playwright-core into the build directory once), else
# skip (77).  Sets CHROMIUM and NODE_DIR (PLAYWRIGHT_DIR for the tools).
need_playwright() {
	CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
	NODE_DIR=${BUILD_DIR:-/tmp}/node
	[ -x "$CHROMIUM" ] ||
	    { echo "SKIP: no $CHROMIUM (apt-get install chromium)"; exit 77; }
	command -v node >/dev/null ||
	    { echo "SKIP: no node (apt-get install nodejs)"; exit 77; }
	npm_once "$NODE_DIR" playwright-core playwright-core
}

# need_pyroscope_node: node and the Pyroscope Node.js client
# (@pyroscope/nodejs, whose @datadog/pprof brings prebuilt native
# binaries), installed by npm into the build directory once, else skip
# (77).  The version is pinned: the test checks what that client sends.
# Sets PYRO_NODE_DIR.
PYROSCOPE_NODEJS_VERSION=0.6.4
need_pyroscope_node() {
	PYRO_NODE_DIR=${BUILD_DIR:-/tmp}/node-pyroscope
	command -v node >/dev/null ||
	    { echo "SKIP: no node (apt-get install nodejs)"; exit 77; }
	npm_once "$PYRO_NODE_DIR" @pyroscope/nodejs \
	    "@pyroscope/nodejs@$PYROSCOPE_NODEJS_VERSION"
	node -e 'require(process.argv[1] + "/node_modules/@pyroscope/nodejs")' \
	    "$PYRO_NODE_DIR" 2>"$T/node.err" || {
		echo "SKIP: @pyroscope/nodejs does not load here" \
		    "(its native @datadog/pprof): $(tail -n 2 "$T/node.err")"
		exit 77
	}
}

# need_connect_node: node, protoc (protobuf-compiler) and a Connect
# client from npm (@connectrpc/connect and -node with @bufbuild/protobuf,
# v2, pinned), installed into the build directory once, else skip (77).
# Sets CONNECT_NODE_DIR, for tests/tools/querier_connect.js --modules.
CONNECT_VERSION=2.3.0
BUFBUILD_PROTOBUF_VERSION=2.17.0
need_connect_node() {
	CONNECT_NODE_DIR=${BUILD_DIR:-/tmp}/node-connect
	command -v node >/dev/null ||
	    { echo "SKIP: no node (apt-get install nodejs)"; exit 77; }
	command -v protoc >/dev/null ||
	    { echo "SKIP: no protoc (apt-get install protobuf-compiler)"; exit 77; }
	npm_once "$CONNECT_NODE_DIR" "the Connect client" \
	    "@connectrpc/connect@$CONNECT_VERSION" \
	    "@connectrpc/connect-node@$CONNECT_VERSION" \
	    "@bufbuild/protobuf@$BUFBUILD_PROTOBUF_VERSION"
}

# The views asked of the fleet instead (fleet-mode.sh).
if [ -n "${PROFD_TEST_FLEET:-}" ]; then
	. "$(dirname "${BASH_SOURCE[0]}")/fleet-mode.sh"
fi

# go_build DIR OUT: build the Go program of tests/integration/DIR (the
# standard library only) with the system's go and no module proxy into
# OUT; a machine without go skips (77).
go_build() {
	local cache
	command -v go >/dev/null 2>&1 || { echo "SKIP: go (golang-go) is missing"; exit 77; }
	export GOFLAGS= GOPROXY=off GOTOOLCHAIN=local GOWORK=off GO111MODULE=on
	cache=$(go env GOCACHE 2>/dev/null || true)
	if [[ -z $cache || $cache == off ]] || ! mkdir -p "$cache" 2>/dev/null ||
	    [[ ! -w $cache ]]; then
		export GOCACHE=${BUILD_DIR:-$T}/gocache
	fi
	(cd "$TESTS_DIR/integration/$1" && timeout 600 go build -trimpath -o "$2" .) ||
		fail "building $1"
}
