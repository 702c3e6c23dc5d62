# spool-lib.sh: what the spool tests share (sourced after lib.sh).

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
