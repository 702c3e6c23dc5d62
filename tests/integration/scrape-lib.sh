# scrape-lib.sh: the Go program the scrape tests fetch profiles from
# (scrape-target/), built with the system's go and no module proxy (it
# uses the standard library only).  Sourced after lib.sh; a machine
# without go skips (77).

go_build scrape-target "$T/profd-scrape-target"

# The target processes (and any other helper) killed at exit.
PIDS=()
cleanup_scrape() {
	kill_live -TERM "${PIDS[@]}"
	cleanup
}
trap cleanup_scrape EXIT

# scrape_target VAR [FLAGS...]: one more target (not in a subshell: its
# pid is kept for the cleanup); its TCP address into $VAR once it
# listens.
scrape_target() {
	local var=$1
	shift
	"$T/profd-scrape-target" -addr-file "$T/$var.addr" "$@" \
	    >"$T/$var.log" 2>&1 &
	PIDS+=($!)
	WAIT_S=300 wait_until "the target $var's address" test -s "$T/$var.addr"
	printf -v "$var" '%s' "$(cat "$T/$var.addr")"
}
