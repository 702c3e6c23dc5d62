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

# ch_config NAME: the config of server NAME in $T/ch-NAME (its HTTP port
# in $T/ch-NAME/http_port).
ch_config() {
	local d="$T/ch-$1" http tcp
	mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas"
	http=$(free_port)
	tcp=$(free_port)
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
	"$CH_BIN" --config-file="$T/ch-$1/config.xml" \
	    >>"$T/ch-$1/stdout.log" 2>&1 &
	echo $! >"$T/ch-$1/pid"
	CH_PIDS+=($!)
	WAIT_S=${CH_WAIT_S:-120} wait_until "ClickHouse $1" \
	    curl -sf "$(ch_url "$1")/?query=SELECT%201" -o /dev/null
}

# ch_stop NAME: kill -9, as a crash or a lost node.
ch_stop() {
	local pid
	pid=$(cat "$T/ch-$1/pid")
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# ch NAME SQL: run SQL on server NAME, print the TabSeparated answer.
ch() {
	curl -sfS "$(ch_url "$1")/" --data-binary "$2" ||
	    fail "ClickHouse $1: $2: $(curl -s "$(ch_url "$1")/" --data-binary "$2")"
}

ch_cleanup() {
	local pid
	for pid in "${CH_PIDS[@]}"; do
		kill -9 "$pid" 2>/dev/null || true
	done
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
