# spool-lib.sh: what the spool tests share (sourced after lib.sh).

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

# has_profiles SCOPE N: the scope has N profiles.
has_profiles() {
	[ "$(nprofiles "$1")" = "$2" ]
}

# pending DIR: the entries waiting under the spool DIR (not done/, failed/,
# nor names still being written).
pending() {
	find "$1" -mindepth 1 \( -path "$1/failed" -o -path "$1/done" \) \
	    -prune -o ! -type d ! -name '.*' ! -name '*.tmp' -print
}

# spool_idle DIR: nothing waits in the spool, nothing is on its way.
spool_idle() {
	local r
	[ -z "$(pending "$1")" ] || return 1
	r=$(api GET /v1/status)
	[ "$(body_of "$r" | json '(j["spool"]["waiting_files"], j["spool"]["in_flight"], j["importing"] is None)')" = "(0, 0, True)" ]
}

# status_field EXPR: a Python expression over GET /v1/status.
status_field() {
	body_of "$(api GET /v1/status)" | json "$1"
}
