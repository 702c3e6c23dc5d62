# Fleet queries across a ClickHouse cluster (issue 16, --fleet-cluster):
# two clickhouse-server processes are the two shards of cluster
# "fleet2"; profd a ships to the first, profd b to the second, both with
# --fleet-cluster, so each makes the Distributed tables on its node.
# Asked of either profd, top --fleet over the union equals go tool pprof
# -top over all the files and a single profd holding them; the tree, the
# timeline and a label filter (GLOBAL IN) equal the single profd's too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

fleet_gen2

ch_cluster_config fleet2 s1 s2
ch_start s1
ch_start s2
fleet() {	# fleet SHARD HOST
	echo --fleet-url "$(ch_url "$1")" --fleet-host "$2" \
	    --fleet-database fc --fleet-cluster fleet2 --fleet-interval 1 \
	    --fleet-timeout 10
}
# shellcheck disable=SC2046
start_profd $(fleet s1 a)
# b runs detached, as the README's demo starts profd: the fleet views'
# query threads start after daemon(3); its pid from /v1/status.
# shellcheck disable=SC2046
"$PROFD" --no-config --spool none --socket "$T/b.sock" --db "$T/b.db" \
    $(fleet s2 b) >>"$T/b.log" 2>&1 || fail "profd b did not detach: $(cat "$T/b.log")"
wait_health "$T/b.sock"
curl -s --unix-socket "$T/b.sock" http://localhost/v1/status |
    json 'j["pid"]' >"$T/b.pid"
fleet_profd all
trap 'kill "$(cat "$T/b.pid")" "$(cat "$T/all.pid")" 2>/dev/null; ch_cleanup' EXIT

for p in cpu heap mutex block; do
	fleet_push "$SOCK" "$FIXTURES/$p.pprof" "fx-$p"
	fleet_push "$T/b.sock" "$GEN2/$p.pprof" "fx-$p" env=prod
	fleet_push "$T/all.sock" "$FIXTURES/$p.pprof" "fx-$p"
	fleet_push "$T/all.sock" "$GEN2/$p.pprof" "fx-$p" env=prod
done
wait_until "a's profiles shipped" fleet_shipped "$SOCK" 4
wait_until "b's profiles shipped" fleet_shipped "$T/b.sock" 4
[ "$(ch s1 "SELECT count() FROM fc.samples WHERE host = 'b'")" = 0 ] &&
    [ "$(ch s2 "SELECT count() FROM fc.samples WHERE host = 'a'")" = 0 ] &&
    [ "$(ch s1 "SELECT uniqExact(host) FROM fc.samples_all")" = 2 ] ||
    fail "each shard should hold its host's samples, samples_all both"
ok "a and b shipped to their shards; the Distributed tables read both"

checked=0
for tsv in "$FIXTURES"/expected/*.tsv; do
	base=$(basename "$tsv" .tsv)
	prof=${base%%.*}
	metric=${base#*.}
	pprof_want "$prof" "$metric"
	"$PROFCTL" --socket "$T/all.sock" top --scope "fx-$prof" \
	    --metric "$metric" --json >"$T/all.json"
	for s in "$SOCK" "$T/b.sock"; do
		"$PROFCTL" --socket "$s" top --fleet --scope "fx-$prof" \
		    --metric "$metric" >"$T/got.top" ||
		    fail "profctl top --fleet $base of $s"
		table_of "$T/got.top" >"$T/got.txt"
		diff -u "$T/want.txt" "$T/got.txt" ||
		    fail "top --fleet of $base asked of $s differs from go tool pprof -top over all files"
		"$PROFCTL" --socket "$s" top --fleet --scope "fx-$prof" \
		    --metric "$metric" --json >"$T/fleet.json"
		cmp -s "$T/fleet.json" "$T/all.json" ||
		    fail "top --fleet of $base asked of $s is not the single profd's"
	done
	checked=$((checked + 1))
done
[ "$checked" -ge 10 ] || fail "only $checked sample types checked"
ok "top --fleet across the cluster equals go tool pprof -top over all files and the single profd's, asked of a or b ($checked sample types)"

fleet_same top "scope=fx-cpu&label=env=prod" "$T/b.sock" "$T/all.sock"
fleet_same top "scope=fx-heap&label=env!=prod&focus=main" "$T/b.sock" "$T/all.sock"
fleet_same tree "scope=fx-cpu&source=false" "$T/b.sock" "$T/all.sock"
fleet_same timeline "scope=fx-cpu&scope=fx-heap&metric=cpu" "$T/b.sock" "$T/all.sock"
fleet_same diff "scope=fx-cpu&base.scope=fx-cpu&base.label=env=prod" "$T/b.sock" "$T/all.sock"
fleet_same top "scope=fx-heap&host=b" "$SOCK" "$T/b.sock"
ok "labels (GLOBAL IN), filters, tree, timeline, diff and host=b across the cluster equal the single profd's (b's own)"

# The detached b stops on SIGTERM, its fleet threads with it.
b=$(cat "$T/b.pid")
kill -TERM "$b"
WAIT_S=30 wait_until "the detached profd b to stop" sh -c "! kill -0 $b 2>/dev/null"
ok "the detached profd answered the fleet's views and stopped on SIGTERM"
