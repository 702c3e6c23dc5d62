# Fleet queries (issue 16): two profd (hosts a and b) ship Go-written
# profiles to one ClickHouse; the fleet's answers are asked of either.
#
# 1. profctl top --fleet (every sample type of the four fixtures and of a
#    second set written now by tests/fixtures/gen, one set per host)
#    prints what go tool pprof -top prints over both files, flat and cum
#    orders, and its JSON equals a third profd's that holds all files.
# 2. Selections: --host a (a's own answer), frame filters, labels (a
#    sample label and a push label; =, !=, =~, !~), several scopes, time ranges: the
#    fleet's JSON equals the single profd's over the same profiles.
# 3. Errors: fleet=1 on a profd without --fleet-url is a 400; host
#    without fleet=1 a 400; a ClickHouse that never answers, a 503 after
#    --fleet-timeout; with ClickHouse stopped, a 503 naming ClickHouse
#    and its URL, while local queries are answered.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fleet-lib.sh"

fleet_gen2

ch_start a
fleet() {	# fleet HOST: the options of a profd shipping as HOST
	echo --fleet-url "$(ch_url a)" --fleet-host "$1" --fleet-database \
	    fq --fleet-interval 1 --fleet-timeout 5
}
# shellcheck disable=SC2046
start_profd $(fleet a)
A_PID=$PROFD_PID
# shellcheck disable=SC2046
fleet_profd b $(fleet b) --grafana-source fleet
fleet_profd all
MUTE_PID=
# shellcheck disable=SC2046
trap 'kill "$(cat "$T/b.pid")" "$(cat "$T/all.pid")" $(cat "$T/mute.pid" 2>/dev/null) $MUTE_PID 2>/dev/null; ch_cleanup' EXIT

# The single profd tells the hosts' profiles apart by a push label: the
# fleet's series are per host (docs/TIME.md), the store's per label set,
# and a window combines each series' profiles (averages a gauge, takes a
# counter's difference) before it adds the series up.
for p in cpu heap mutex block; do
	fleet_push "$SOCK" "$FIXTURES/$p.pprof" "fx-$p"
	fleet_push "$T/b.sock" "$GEN2/$p.pprof" "fx-$p"
	fleet_push "$T/all.sock" "$FIXTURES/$p.pprof" "fx-$p" instance=a
	fleet_push "$T/all.sock" "$GEN2/$p.pprof" "fx-$p" instance=b
done
# A push label on b's only: selects its profile in either store.
fleet_push "$T/b.sock" "$FIXTURES/cpu.pprof" lab env=prod
fleet_push "$T/all.sock" "$FIXTURES/cpu.pprof" lab env=prod
wait_until "a's profiles shipped" fleet_shipped "$SOCK" 4
wait_until "b's profiles shipped" fleet_shipped "$T/b.sock" 5
ok "a and b shipped their profiles to ClickHouse"

# 1. Every sample type: pprof's text over both files, and the JSON of
#    the profd holding both.
checked=0
for tsv in "$FIXTURES"/expected/*.tsv; do
	base=$(basename "$tsv" .tsv)
	prof=${base%%.*}
	metric=${base#*.}
	for cum in "" --cum; do
		"$PROFCTL" top --fleet --scope "fx-$prof" --metric "$metric" \
		    $cum >"$T/got.top" || fail "profctl top --fleet $base $cum"
		pprof_want "$prof" "$metric" ${cum:+-cum}
		table_of "$T/got.top" >"$T/got.txt"
		diff -u "$T/want.txt" "$T/got.txt" ||
		    fail "profctl top --fleet $cum of $base differs from go tool pprof -top over both files"
	done
	"$PROFCTL" top --fleet --scope "fx-$prof" --metric "$metric" --json \
	    >"$T/fleet.json"
	"$PROFCTL" --socket "$T/b.sock" top --fleet --scope "fx-$prof" \
	    --metric "$metric" --json >"$T/fleet-b.json"
	"$PROFCTL" --socket "$T/all.sock" top --scope "fx-$prof" \
	    --metric "$metric" --json >"$T/all.json"
	cmp -s "$T/fleet.json" "$T/all.json" ||
	    fail "top --fleet of $base: $(head -c 300 "$T/fleet.json") is not the single profd's $(head -c 300 "$T/all.json")"
	cmp -s "$T/fleet.json" "$T/fleet-b.json" ||
	    fail "top --fleet of $base differs asked of a and of b"
	checked=$((checked + 1))
done
[ "$checked" -ge 10 ] || fail "only $checked sample types checked"
[ "$(json "j['profiles']" <"$T/fleet.json")" = 2 ] ||
    fail "the fleet's top does not count 2 profiles: $(head -c 300 "$T/fleet.json")"
ok "top --fleet equals go tool pprof -top over both hosts' files and the single profd's, for $checked sample types, asked of a or b"

# Peek: pprof's -peek over both files, and the single profd's JSON.
n=0
for c in "cpu cpu main\\." "cpu cpu runtime\\.mallocgc" "heap alloc_space main\\." \
    "mutex delay sync" "block contentions chan"; do
	set -- $c
	go tool pprof -symbolize=none -peek="$3" -sample_index="$2" \
	    "$FIXTURES/$1.pprof" "$GEN2/$1.pprof" >"$T/want.peek" 2>/dev/null ||
	    fail "go tool pprof -peek $c"
	"$PROFCTL" peek "$3" --fleet --scope "fx-$1" --metric "$2" \
	    >"$T/got.peek" || fail "profctl peek --fleet $c"
	diff -u <(table_of "$T/want.peek") \
	    <(table_of "$T/got.peek") ||
	    fail "peek --fleet $c differs from go tool pprof -peek over both files"
	"$PROFCTL" peek "$3" --fleet --scope "fx-$1" --metric "$2" --json \
	    >"$T/fleet.json"
	"$PROFCTL" --socket "$T/all.sock" peek "$3" --scope "fx-$1" \
	    --metric "$2" --json >"$T/all.json"
	cmp -s "$T/fleet.json" "$T/all.json" ||
	    fail "peek --fleet $c is not the single profd's"
	n=$((n + 1))
done
r=$(api GET "/v1/peek?scope=fx-cpu&regex=no_such_function&fleet=1")
[ "$(status_of "$r")" = 404 ] || fail "fleet peek without a match: $r"
r=$(api GET "/v1/peek?scope=fx-cpu&regex=(&fleet=1")
[ "$(status_of "$r")" = 400 ] || fail "fleet peek of a bad regex: $r"
ok "peek --fleet equals go tool pprof -peek over both files and the single profd's ($n cases)"

# Tree (JSON and folded, with the nodes' sources: files, lines,
# mappings) and flamegraph: the single profd's.  The two fixture sets are
# the same program built at two paths: their stacks differ only in their
# mappings, and are two stacks in the fleet as in the store.
for c in "cpu cpu" "cpu samples" "heap inuse_space" "heap alloc_objects" \
    "mutex delay" "block contentions"; do
	set -- $c
	fleet_same tree "scope=fx-$1&metric=$2" "$SOCK" "$T/all.sock"
	fleet_same tree "scope=fx-$1&metric=$2&format=folded" "$SOCK" "$T/all.sock"
	fleet_same tree "scope=fx-$1&metric=$2&host=a" "$SOCK" "$SOCK"
done
fleet_same tree "scope=fx-cpu&min_fraction=0.01" "$SOCK" "$T/all.sock"
fleet_same tree "scope=fx-cpu&focus=main&hide=runtime" "$SOCK" "$T/all.sock"
fleet_same tree "scope=fx-cpu&ignore=sha256&show=main%7Cfib&host=a" "$SOCK" "$SOCK"
fleet_same tree "scope=fx-heap&label=bytes=1024" "$SOCK" "$T/all.sock"
fleet_same tree "scope=lab&label=env=prod" "$SOCK" "$T/all.sock"
curl -s --unix-socket "$SOCK" \
    "http://localhost/v1/tree?scope=fx-cpu&fleet=1" >"$T/src.json"
python3 - "$T/src.json" <<'PY' || fail "the fleet's tree lacks sources"
import json, sys
def walk(n):
    yield n
    for c in n["children"]:
        yield from walk(c)
nodes = list(walk(json.load(open(sys.argv[1]))["root"]))[1:]
assert nodes and all("file" in n and "mapping" in n
    for n in nodes if n["name"].startswith("main.")), nodes[:3]
PY
"$PROFCTL" flamegraph --fleet --scope fx-cpu -o "$T/fleet.svg" ||
    fail "profctl flamegraph --fleet"
"$PROFCTL" --socket "$T/all.sock" flamegraph --scope fx-cpu \
    -o "$T/all.svg" || fail "profctl flamegraph"
cmp -s "$T/fleet.svg" "$T/all.svg" ||
    fail "flamegraph --fleet is not the single profd's"
"$PROFCTL" tree --fleet --scope fx-heap --metric alloc_space \
    >"$T/fleet.tree" || fail "profctl tree --fleet"
"$PROFCTL" --socket "$T/all.sock" tree --scope fx-heap \
    --metric alloc_space >"$T/all.tree" || fail "profctl tree"
cmp -s "$T/fleet.tree" "$T/all.tree" || fail "tree --fleet is not the single profd's"
ok "tree (JSON, folded, filters, min_fraction), profctl tree and flamegraph --fleet equal the single profd's"

# Diff: the single profd's, JSON and text.
fleet_same diff "scope=fx-cpu&base.scope=lab" "$SOCK" "$T/all.sock"
fleet_same diff "scope=fx-cpu&base.scope=lab&normalize=true&limit=5" "$SOCK" "$T/all.sock"
fleet_same diff "scope=fx-heap&metric=alloc_space&base.scope=fx-heap&base.label=bytes=1024" "$SOCK" "$T/all.sock"
fleet_same diff "scope=fx-cpu&focus=main&base.scope=lab&base.hide=runtime" "$SOCK" "$T/all.sock"
"$PROFCTL" diff --fleet --scope fx-cpu --base-scope lab >"$T/fleet.diff" ||
    fail "profctl diff --fleet"
"$PROFCTL" --socket "$T/all.sock" diff --scope fx-cpu --base-scope lab \
    >"$T/all.diff" || fail "profctl diff"
cmp -s "$T/fleet.diff" "$T/all.diff" || fail "diff --fleet is not the single profd's"
r=$(api GET "/v1/diff?scope=fx-cpu&base.scope=fx-heap&base.metric=alloc_space&fleet=1")
[ "$(status_of "$r")" = 400 ] || fail "fleet diff of two metrics: $r"
ok "diff --fleet equals the single profd's"

# Timeline: the single profd's.
fleet_same timeline "scope=fx-cpu" "$SOCK" "$T/all.sock"
fleet_same timeline "scope=fx-cpu&scope=lab&step=1m" "$SOCK" "$T/all.sock"
fleet_same timeline "scope=fx-heap&metric=alloc_space&focus=main" "$SOCK" "$T/all.sock"
fleet_same timeline "scope=fx-cpu&ignore=sha256&hide=runtime" "$SOCK" "$T/all.sock"
fleet_same timeline "scope=fx-heap&label=bytes=1024" "$SOCK" "$T/all.sock"
fleet_same timeline "scope=fx-cpu&since=2000-01-01T00:00:00Z&until=2000-01-02T00:00:00Z" "$SOCK" "$T/all.sock"
"$PROFCTL" timeline --fleet --scope fx-cpu >"$T/fleet.tl" ||
    fail "profctl timeline --fleet"
"$PROFCTL" --socket "$T/all.sock" timeline --scope fx-cpu >"$T/all.tl" ||
    fail "profctl timeline"
cmp -s "$T/fleet.tl" "$T/all.tl" || fail "timeline --fleet is not the single profd's"
ok "timeline --fleet equals the single profd's"

# 2. Selections, the fleet's JSON against the single profd's (or, with
#    host=a, a's own).
fleet_same top "scope=fx-cpu" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-cpu&sort=cum&limit=7" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-heap" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-cpu&host=a" "$SOCK" "$SOCK"
fleet_same top "scope=fx-heap&metric=alloc_space&host=a" "$SOCK" "$SOCK"
fleet_same top "scope=fx-cpu&focus=main%5C.&ignore=sha256" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-cpu&hide=runtime&show=main" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-cpu&focus=escapeTime" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-heap&label=bytes=1024" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-heap&label=bytes!=1024" "$SOCK" "$T/all.sock"
fleet_same top "scope=lab&label=env=prod" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-cpu&scope=lab&label=env!=prod" "$SOCK" "$T/all.sock"
# Patterns (ClickHouse's match(), RE2 as the store's), and a label a
# sample and its profile lack read as "" (fx-cpu has no env).
fleet_same top "scope=fx-heap&label=bytes=~10.*" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-heap&label=bytes!~1024%7C2048" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-cpu&scope=lab&label=env!~pro.*" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-cpu&scope=lab&label=env=~%7Cdev" "$SOCK" "$T/all.sock"
fleet_same tree "scope=lab&label=env=~prod" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-cpu&scope=lab&metric=cpu" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-cpu&since=-1h&until=-0s" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-cpu&granularity=line" "$SOCK" "$T/all.sock"
fleet_same top "scope=fx-heap&granularity=file&focus=main" "$SOCK" "$T/all.sock"
fleet_same peek "scope=fx-cpu&regex=main%5C.fib&granularity=line" "$SOCK" "$T/all.sock"
fleet_same list "scope=fx-cpu&regex=main%5C.fib" "$SOCK" "$T/all.sock"
[ "$(curl -s --unix-socket "$SOCK" \
    "http://localhost/v1/top?scope=fx-cpu&fleet=1&host=c" |
    json "j['error']")" = "not found" ] || fail "host=c found profiles"
ok "hosts, frame filters, sample and push labels (=, !=, =~, !~), scopes, time, granularity line and file, peek and list: the fleet's equal the single profd's"

# /pyroscope/render on b reads the fleet (grafana-source = fleet): the
# single profd's reply, selectors with patterns included.
render_same() {
	local q f l
	q="query=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1")&from=0&until=now%2B1h"
	f=$(curl -s --unix-socket "$T/b.sock" "http://localhost/pyroscope/render?$q")
	l=$(curl -s --unix-socket "$T/all.sock" "http://localhost/pyroscope/render?$q")
	case "$l" in *'"numTicks":0'*|*'"error"'*|'') fail "local render $1: ${l:0:300}" ;; esac
	[ "$f" = "$l" ] || fail "render $1: fleet ${f:0:300}, local ${l:0:300}"
}
render_same 'process_cpu:cpu:nanoseconds:cpu:nanoseconds{service_name="fx-cpu"}'
render_same 'process_cpu:cpu:nanoseconds:cpu:nanoseconds{service_name=~"fx-cpu|lab", env!~"prod"}'
render_same 'fx-heap.alloc_space{bytes=~"10.*"}'
ok "/pyroscope/render with grafana-source = fleet: the single profd's reply"

# The fleet's scopes (what the UI's fleet switch lists): the single
# profd's, with the hosts that shipped them.
curl -s --unix-socket "$SOCK" "http://localhost/v1/scopes?fleet=1" >"$T/fleet-scopes.json"
curl -s --unix-socket "$T/all.sock" "http://localhost/v1/scopes" >"$T/all-scopes.json"
python3 - "$T/fleet-scopes.json" "$T/all-scopes.json" <<'PYC' || fail "scopes?fleet=1 differ from the single profd's"
import json, sys
f, l = (json.load(open(p)) for p in sys.argv[1:])
def norm(j):
    return [(s["name"], s["profiles"], sorted((m["type"], m["unit"]) for m in s["metrics"]),
             s["first_time_ns"], s["last_time_ns"]) for s in j["scopes"]]
assert f["hosts"] == ["a", "b"], f["hosts"]
assert norm(f) == norm(l), (norm(f), norm(l))
assert len(f["scopes"]) >= 5, f
PYC
r=$(api GET "/v1/scopes?host=a&fleet=1")
[ "$(status_of "$r")" = 400 ] || fail "scopes with host: $r"
ok "scopes?fleet=1 lists the single profd's scopes and the hosts a, b"

# 3. Errors.
r=$(api GET "/v1/top?scope=fx-cpu&host=a")
[ "$(status_of "$r")" = 400 ] || fail "host without fleet=1: $r"
r=$(curl -s -w '\n%{http_code}' --unix-socket "$T/all.sock" \
    "http://localhost/v1/top?scope=fx-cpu&fleet=1")
[ "$(status_of "$r")" = 400 ] && has -- "--fleet-url" <(body_of "$r") ||
    fail "fleet=1 without a fleet: $r"
r=$(api GET "/v1/top?scope=fx-cpu&fleet=1&profile=1")
[ "$(status_of "$r")" = 400 ] || fail "fleet=1 with a profile id: $r"
# A ClickHouse that takes the connection and never answers: 503 after
# --fleet-timeout (1 s), naming it.
python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
c = []
while True: c.append(s.accept()[0])' >"$T/mute.port" &
MUTE_PID=$!
wait_until "the mute server" test -s "$T/mute.port"
fleet_profd mute --fleet-url "http://127.0.0.1:$(cat "$T/mute.port")" \
    --fleet-host m --fleet-timeout 1
start=$SECONDS
r=$(curl -s -w '\n%{http_code}' --unix-socket "$T/mute.sock" \
    "http://localhost/v1/top?scope=fx-cpu&fleet=1&metric=cpu")
[ "$(status_of "$r")" = 503 ] &&
    has "ClickHouse at http://127.0.0.1:$(cat "$T/mute.port") did not answer" <(body_of "$r") ||
    fail "a ClickHouse that does not answer: $r"
[ $((SECONDS - start)) -le 5 ] || fail "the fleet timeout took $((SECONDS - start)) s"
# Two fleet views at once wait on ClickHouse, each on a query thread of
# the fleet's, and this host's views are answered meanwhile on theirs.
pids=()
for i in 1 2; do
	curl -s -w '\n%{http_code}' --unix-socket "$T/mute.sock" \
	    "http://localhost/v1/top?scope=fx-cpu&fleet=1&metric=cpu" \
	    >"$T/mute.$i" &
	pids+=($!)
done
r=$(curl -s -w '\n%{http_code}' --unix-socket "$T/mute.sock" \
    "http://localhost/v1/scopes")
[ "$(status_of "$r")" = 200 ] || fail "a local view beside two fleet views: $r"
wait "${pids[@]}"
[ "$(grep -l "did not answer" "$T/mute.1" "$T/mute.2" | wc -l)" = 2 ] ||
    fail "two fleet views at once: $(cat "$T/mute.1" "$T/mute.2")"
kill "$MUTE_PID" "$(cat "$T/mute.pid")"
ch_stop a
r=$(api GET "/v1/top?scope=fx-cpu&fleet=1")
[ "$(status_of "$r")" = 503 ] || fail "ClickHouse stopped: $r"
has "ClickHouse at $(ch_url a)" <(body_of "$r") ||
    fail "the error does not name ClickHouse and its URL: $r"
"$PROFCTL" top --fleet --scope fx-cpu >"$T/err.txt" 2>&1 &&
    fail "profctl top --fleet succeeded with ClickHouse stopped"
has "ClickHouse" "$T/err.txt" || fail "profctl: $(cat "$T/err.txt")"
r=$(api GET "/v1/top?scope=fx-cpu")
[ "$(status_of "$r")" = 200 ] || fail "local top with ClickHouse stopped: $r"
kill -0 "$A_PID" || fail "profd died"
ok "errors: no fleet 400, host alone 400, a mute ClickHouse 503 after --fleet-timeout (two at once, a local view answered meanwhile), ClickHouse stopped 503 naming it; local queries answered"
