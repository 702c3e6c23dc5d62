# fleet-lib.sh: a ClickHouse server of the test's own, for the fleet tests
# (sourced after lib.sh): started as a user process with its own config,
# data under $T and loopback ports, never the system service.  Skips (77)
# without clickhouse-server (contrib/setup.sh installs it for the tests).

CH_BIN=$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)
[ -x "$CH_BIN" ] ||
    { echo "skip: clickhouse-server is not installed (contrib/setup.sh)"; exit 77; }
CH_PIDS=()

# A free loopback TCP port.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ch_hold NAME: server NAME's two ports held, bound by a process of the
# test's and refusing connections, until ch_start (picked now when it has
# none yet): a port left free between its pick and the server's start
# may be taken by a connection of another test, or by a client's
# connection to the server that is down, and the server then fails to
# start (tests/tools/hold_ports.py says how).
ch_hold() {
	local d="$T/ch-$1" ports=""
	mkdir -p "$d"
	[ ! -f "$d/ports" ] || ports=$(cat "$d/ports")
	rm -f "$d/ports"
	# shellcheck disable=SC2086 # two port numbers, or none
	python3 "$TESTS_DIR/tools/hold_ports.py" "$d/ports" $ports \
	    >>"$d/hold.log" 2>&1 &
	echo $! >"$d/hold_pid"
	CH_PIDS+=($!)
	wait_until "ClickHouse $1's ports held" ch_held "$1"
}

# ch_held NAME: server NAME's ports are held; fails the test, with why,
# if the holder has exited instead.
ch_held() {
	[ ! -s "$T/ch-$1/ports" ] || return 0
	kill -0 "$(cat "$T/ch-$1/hold_pid")" 2>/dev/null ||
	    fail "ClickHouse $1's ports not held: $(cat "$T/ch-$1/hold.log")"
	return 1
}

# ch_release NAME: server NAME's ports let go, for it to bind them.
ch_release() {
	local pid
	pid=$(cat "$T/ch-$1/hold_pid")
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# ch_config NAME: the config of server NAME in $T/ch-NAME (its HTTP port
# in $T/ch-NAME/http_port), its ports held until ch_start.
ch_config() {
	local d="$T/ch-$1" http tcp
	mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas"
	ch_hold "$1"
	read -r http tcp <"$d/ports"
	echo "$http" >"$d/http_port"
	cat >"$d/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/server.log</log>
    <errorlog>$d/error.log</errorlog><size>10M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>$http</http_port>
  <tcp_port>$tcp</tcp_port>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>5368709</mark_cache_size>
  <max_concurrent_queries>20</max_concurrent_queries>
</yandex>
XML
	cat >"$d/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>1000000000</max_memory_usage></default></profiles>
  <users><default><password></password>
    <networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
XML
}

ch_url() { echo "http://127.0.0.1:$(cat "$T/ch-$1/http_port")"; }

# ch_start NAME: start server NAME (its config made on first use) and
# wait until it answers.
ch_start() {
	[ -f "$T/ch-$1/config.xml" ] || ch_config "$1"
	ch_release "$1"
	"$CH_BIN" --config-file="$T/ch-$1/config.xml" \
	    >>"$T/ch-$1/stdout.log" 2>&1 &
	echo $! >"$T/ch-$1/pid"
	CH_PIDS+=($!)
	WAIT_S=${CH_WAIT_S:-120} wait_until "ClickHouse $1" ch_answers "$1"
}

# ch_answers NAME: server NAME answers a query; fails the test, with the
# server's last errors, if it has exited instead.
ch_answers() {
	curl -sf "$(ch_url "$1")/?query=SELECT%201" -o /dev/null && return 0
	kill -0 "$(cat "$T/ch-$1/pid")" 2>/dev/null ||
	    fail "ClickHouse $1 exited at start: $(tail -n 5 "$T/ch-$1/error.log" \
	    "$T/ch-$1/stdout.log" 2>/dev/null)"
	return 1
}

# ch_stop NAME: kill -9, as a crash or a lost node; its ports held again
# until it starts once more.
ch_stop() {
	local pid
	pid=$(cat "$T/ch-$1/pid")
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	ch_hold "$1"
}

# ch NAME SQL: run SQL on server NAME, print the TabSeparated answer.
ch() {
	curl -sfS "$(ch_url "$1")/" --data-binary "$2" ||
	    fail "ClickHouse $1: $2: $(curl -s "$(ch_url "$1")/" --data-binary "$2")"
}

ch_cleanup() {
	kill_live -9 "${CH_PIDS[@]}"
	cleanup
}
trap ch_cleanup EXIT

# fleet_status FIELD: a field of /v1/status's fleet object.
fleet_status() {
	curl -s --unix-socket "$SOCK" http://localhost/v1/status |
	    json "j['fleet']['$1']"
}

# ch_cluster_config CLUSTER NAME...: the servers NAME... (configs made
# first, with ch_config) as one ClickHouse cluster CLUSTER of one shard
# each, written into every one's config.d (read at its start).
ch_cluster_config() {
	local cluster=$1 name shards=""
	shift
	for name in "$@"; do
		[ -f "$T/ch-$name/config.xml" ] || ch_config "$name"
		shards+="<shard><replica><host>127.0.0.1</host><port>$(sed -n \
		    's|.*<tcp_port>\([0-9]*\)</tcp_port>.*|\1|p' \
		    "$T/ch-$name/config.xml")</port></replica></shard>"
	done
	for name in "$@"; do
		mkdir -p "$T/ch-$name/config.d"
		cat >"$T/ch-$name/config.d/cluster.xml" <<XML
<?xml version="1.0"?>
<yandex><remote_servers><$cluster>$shards</$cluster></remote_servers></yandex>
XML
	done
}

# The fleet query tests' helpers (test_fleet_query.sh, test_fleet_cluster.sh).

# fleet_gen2: a second set of Go-written fixtures in $GEN2, written now
# by tests/fixtures/gen (the committed ones are the first); skips (77)
# without go, whose pprof is the tests' oracle.
fleet_gen2() {
	command -v go >/dev/null ||
	    { echo "skip: go is not installed (go tool pprof is the oracle)"; exit 77; }
	export TZ=UTC LC_ALL=C GOFLAGS= GOPROXY=off GOTOOLCHAIN=local GOWORK=off
	GEN2="$T/gen2"
	"$FIXTURES/regen.sh" "$GEN2" >"$T/regen.log" 2>&1 ||
	    fail "tests/fixtures/regen.sh: $(tail -5 "$T/regen.log")"
}

# fleet_profd NAME [OPTIONS]: another profd, on $T/NAME.sock (its pid in
# $T/NAME.pid).
fleet_profd() {
	local name=$1
	shift
	"$PROFD" --foreground --no-config --spool none --socket \
	    "$T/$name.sock" --db "$T/$name.db" "$@" >>"$T/$name.log" 2>&1 &
	echo $! >"$T/$name.pid"
	PROFD_PID=$! wait_health "$T/$name.sock"
}

# fleet_push SOCK FILE SCOPE [LABEL]
fleet_push() {
	"$PROFCTL" --socket "$1" push "$2" --scope "$3" ${4:+--label "$4"} \
	    >/dev/null || fail "push $2 to $1"
}

# fleet_shipped SOCK N: N profiles shipped (the lag can read 0 while a
# push that came during a round waits for the next).
fleet_shipped() {
	[ "$(curl -s --unix-socket "$1" http://localhost/v1/status |
	    json "j['fleet']['shipped_profiles']")" = "$2" ]
}

# fleet_same VIEW QUERY FLEET-SOCK LOCAL-SOCK: GET /v1/VIEW?QUERY with
# fleet=1 of FLEET-SOCK answers what LOCAL-SOCK's own answers (host=H
# left out there); a local error fails too.
fleet_same() {
	local f l
	f=$(curl -s --unix-socket "$3" "http://localhost/v1/$1?$2&fleet=1")
	l=$(curl -s --unix-socket "$4" "http://localhost/v1/$1?$(printf '%s' \
	    "$2" | sed 's/&host=[^&]*//g')")
	case "$l" in *'"error"'*|'') fail "local $1 $2: ${l:0:300}" ;; esac
	[ "$f" = "$l" ] || fail "$1 $2: $(python3 -c 'import sys
a, b = sys.argv[1:]
i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
print("differ at", i, "fleet:", a[max(0, i - 200):i + 200], "local:", b[max(0, i - 200):i + 200])' "$f" "$l")"
}

# pprof_want PROF METRIC [-cum]: go tool pprof -top over the fixture PROF
# and its $GEN2 copy (what the two hosts pushed), the table in
# $T/want.txt.
pprof_want() {
	go tool pprof -symbolize=none -top -nodefraction=0 -nodecount=100000 \
	    ${3:+"$3"} -sample_index="$2" "$FIXTURES/$1.pprof" \
	    "$GEN2/$1.pprof" >"$T/want.top" 2>"$T/pprof.err" ||
	    fail "go tool pprof $1.$2: $(cat "$T/pprof.err")"
	table_of "$T/want.top" >"$T/want.txt"
	[ -s "$T/want.txt" ] || fail "pprof printed no table for $1.$2"
}

# table_of FILE: pprof's table from "Showing nodes" on.
table_of() { sed -n '/^Showing nodes/,$p' "$1"; }
