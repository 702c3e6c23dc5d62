# fleet-mode.sh: a local test's views asked of the fleet (issue 26).
# lib.sh sources this when PROFD_TEST_FLEET is set (tests/CMakeLists.txt
# runs the tests that compare profd's views with go tool pprof again so,
# in cluster mode; node mode by hand):
#
#   node     one ClickHouse; the test's profd ships to it.
#   cluster  two ClickHouse shards of cluster "fleet2"; the test's profd
#            ships to the first, a second profd (host b) to the second,
#            and the test's pushes alternate between the two, so that a
#            scope's profiles lie on both shards.
#
# $PROFCTL becomes fleet_profctl: a push goes to the next profd and
# returns once that profd shipped it; the views (top, tree, peek, list,
# diff, timeline, flamegraph) are asked with --fleet of the test's
# profd; anything else is the test's profd's own.  api() adds fleet=1 to
# the same views.  The tests' answers are then the fleet's, compared
# with go tool pprof exactly as the local ones are.  What only a host
# has (traces, tags, export: the fleet keeps no samples one by one) the
# tests skip in this mode (fleet_mode_skip).

. "$(dirname "${BASH_SOURCE[0]}")/fleet-lib.sh"

PROFCTL_BIN=$PROFCTL
PROFCTL=fleet_profctl
FLEET_SOCKS=("$SOCK")

# fleet_mode_skip WHAT: true (with a note) when the views are the fleet's.
fleet_mode_skip() {
	echo "note: fleet mode ($PROFD_TEST_FLEET): $1 skipped (a host's own)"
}

# fleet_mode_start [profd flags...]: ClickHouse, then the profd(s).
fleet_mode_start() {
	local opts=(--fleet-database fm --fleet-interval 1 --fleet-timeout 60)

	case $PROFD_TEST_FLEET in
	node)
		ch_start a
		"$PROFD" --foreground --no-config --spool none --socket \
		    "$SOCK" --db "$DB" --fleet-url "$(ch_url a)" \
		    --fleet-host a "${opts[@]}" "$@" >>"$T/profd.log" 2>&1 &
		PROFD_PID=$!
		wait_health "$SOCK"
		;;
	cluster)
		ch_cluster_config fleet2 s1 s2
		ch_start s1
		ch_start s2
		opts+=(--fleet-cluster fleet2)
		"$PROFD" --foreground --no-config --spool none --socket \
		    "$SOCK" --db "$DB" --fleet-url "$(ch_url s1)" \
		    --fleet-host a "${opts[@]}" "$@" >>"$T/profd.log" 2>&1 &
		PROFD_PID=$!
		wait_health "$SOCK"
		local main=$PROFD_PID
		fleet_profd b --fleet-url "$(ch_url s2)" --fleet-host b \
		    "${opts[@]}" "$@"
		PROFD_PID=$main
		FLEET_SOCKS+=("$T/b.sock")
		CH_PIDS+=("$(cat "$T/b.pid")")
		;;
	*) fail "PROFD_TEST_FLEET: \"$PROFD_TEST_FLEET\" is neither node nor cluster" ;;
	esac
}

# fleet_mode_count FILE [ADD]: a counter kept in $T (pushes run in
# subshells: $(...)).
fleet_mode_count() {
	local n
	n=$(cat "$T/$1" 2>/dev/null || echo 0)
	[ -z "${2:-}" ] || echo $((n + $2)) >"$T/$1"
	echo $((n + ${2:-0}))
}

fleet_profctl() {
	local sock=$SOCK cmd i n out rc=0
	if [ "${1:-}" = --socket ]; then
		sock=$2
		shift 2
	fi
	cmd=${1:-}
	shift || true
	case $cmd in
	push)
		n=$(fleet_mode_count fleet.pushes 1)
		i=$(((n - 1) % ${#FLEET_SOCKS[@]}))
		[ "$sock" != "$SOCK" ] || sock=${FLEET_SOCKS[$i]}
		out=$("$PROFCTL_BIN" --socket "$sock" push "$@") || rc=$?
		printf '%s\n' "$out"
		[ "$rc" = 0 ] || return "$rc"
		case $out in
		*"already stored"*) ;;
		*"stored as profile"*)
			n=$(fleet_mode_count "fleet.shipped.${sock//\//_}" 1)
			WAIT_S=${FLEET_WAIT_S:-120} wait_until \
			    "$sock's push shipped" fleet_shipped_atleast \
			    "$sock" "$n" ;;
		esac
		;;
	top|tree|peek|list|diff|timeline|flamegraph)
		"$PROFCTL_BIN" --socket "$sock" "$cmd" --fleet "$@" ;;
	*)
		"$PROFCTL_BIN" --socket "$sock" "$cmd" "$@" ;;
	esac
}

# fleet_shipped_atleast SOCK N
fleet_shipped_atleast() {
	local got
	got=$(curl -s --unix-socket "$1" http://localhost/v1/status |
	    json "j['fleet']['shipped_profiles']")
	[ "${got:-0}" -ge "$2" ]
}

# The views' API calls, of the fleet.
fleet_mode_api_path() {
	case $1 in
	/v1/top\?*|/v1/tree\?*|/v1/peek\?*|/v1/list\?*|/v1/diff\?*|/v1/timeline\?*)
		printf '%s&fleet=1' "$1" ;;
	*) printf '%s' "$1" ;;
	esac
}
