#!/usr/bin/env bash
# The config file: every option of --help is a setting of the example file
# with its default; a file's settings take effect, the command line wins;
# SIGHUP reads the file again, keeps the old settings when the new file is
# bad, and names the settings that need a restart.
source "$TESTS_DIR/integration/lib.sh"
EXAMPLE="$TESTS_DIR/../contrib/profd.conf.example"

# (a) The example documents every option, each with the default (paths
# are the system ones, so only checked for presence).
# (The keys of [fleet] are the fleet-* options without the prefix.)
"$PROFD" --no-config --print-config | awk '/^\[fleet\]$/ { p = "fleet-" }
    /^\[scope / { p = "" } /^[a-z-]+ = / { k = $1; $1 = $2 = "";
    sub(/^  /, ""); print p k " " $0 }' >"$T/defaults"
[ "$(wc -l <"$T/defaults")" -ge 20 ] || fail "--print-config printed too little"
"$PROFD" --help | grep -o -e '^  --[a-z-]*' | sed 's/^  --//' | sort -u \
    >"$T/help-opts"
while read -r name; do
	case $name in config|no-config|print-config|help|version) continue ;; esac
	grep -q "^$name " "$T/defaults" || fail "--$name is not in --print-config"
done <"$T/help-opts"
sed '/^#\[fleet\]/q' "$EXAMPLE" >"$T/example-global"
sed -n '/^#\[fleet\]/,/^#\[scope /p' "$EXAMPLE" >"$T/example-fleet"
while read -r name value; do
	key=$name part=$T/example-global
	case $name in fleet-*) key=${name#fleet-} part=$T/example-fleet ;; esac
	line=$(grep -e "^#$key = " "$part") ||
		fail "profd.conf.example lacks $name"
	case $name in socket|db|spool|fleet-host) continue ;; esac
	[ "${line#"#$key = "}" = "$value" ] ||
		fail "profd.conf.example: $line, but the default is $value"
done <"$T/defaults"
# Uncommented, the example is a valid file that changes nothing but the
# [scope] sections.
sed 's/^#\([a-z[]\)/\1/' "$EXAMPLE" >"$T/example.conf"
"$PROFD" --config "$T/example.conf" --print-config >"$T/example.out" ||
	fail "the uncommented example does not load"
has -x 'max-age = 90d' "$T/example.out" || fail "example [scope] not read"
ok "the example config has every option with its default, and loads"

# (b) A file's settings apply; options win; errors name file and line.
cat >"$T/profd.conf" <<EOF
# a comment
[profd]
socket = $SOCK
db = $DB
spool = none
max-body = 16k
log-level = debug
EOF
out=$("$PROFD" --config "$T/profd.conf" --max-body 32k --print-config)
printf '%s\n' "$out" | has -x "max-body = 32k" || fail "option lost to file"
printf '%s\n' "$out" | has -x "log-level = debug" || fail "file not read"
printf 'max-body = 16k\nmax-bodyy = 1\n' >"$T/bad.conf"
set +e
err=$("$PROFD" --config "$T/bad.conf" --foreground 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "a bad config file: exit $rc, not 2"
printf '%s\n' "$err" | has -F "bad.conf:2: unknown setting \"max-bodyy\"" ||
	fail "the error does not say where: $err"
ok "file settings apply, options win, errors say file:line"

# [fleet]: its keys are the fleet-* options; a bad one says where.
printf '[fleet]\nurl = http://127.0.0.1:8123\nhost = web-7\nbatch = 5\n' \
    >"$T/fleet.conf"
out=$("$PROFD" --config "$T/fleet.conf" --fleet-database fleet2 --print-config)
printf '%s\n' "$out" | sed -n '/^\[fleet\]/,$p' >"$T/fleet.out"
for kv in "url = http://127.0.0.1:8123" "host = web-7" "batch = 5" \
    "database = fleet2" "interval = 10s"; do
	has -x "$kv" "$T/fleet.out" || fail "[fleet] lacks $kv: $out"
done
"$PROFD" --config "$T/fleet.out" --print-config | sed -n '/^\[fleet\]/,$p' |
    cmp -s - "$T/fleet.out" || fail "[fleet] does not load back the same"
printf '[fleet]\nurl = http://a\nfleet-url = http://b\n' >"$T/bad.conf"
err=$("$PROFD" --config "$T/bad.conf" --print-config 2>&1) &&
	fail "[fleet] fleet-url taken"
printf '%s\n' "$err" | has -F 'bad.conf:3: unknown setting "fleet-url" in [fleet]' ||
	fail "[fleet] error: $err"
err=$("$PROFD" --no-config --fleet-database 'a;b' --print-config 2>&1) &&
	fail "a bad database name taken"
printf '%s\n' "$err" | has -F 'not a database name' || fail "database error: $err"
ok "[fleet] section: keys without fleet-, loads back, bad keys and names refused"

# (c) SIGHUP.  cpu.pprof is 11 KiB gzipped: refused at 8k, taken at 1M.
sed -i 's/^max-body = .*/max-body = 8k/' "$T/profd.conf"
"$PROFD" --config "$T/profd.conf" --foreground >>"$T/profd.log" 2>&1 &
PROFD_PID=$!
wait_health "$SOCK"
push() {
	api POST "/v1/profiles?scope=$1" --data-binary "@$FIXTURES/cpu.pprof" \
	    -H 'Content-Type: application/octet-stream'
}
[ "$(status_of "$(push a)")" = 413 ] || fail "max-body 8k from the file"
reload() {
	local before
	before=$(grep -c "SIGHUP" "$T/profd.log" || true)
	kill -HUP "$PROFD_PID"
	more_sighup() {
		[ "$(grep -c "SIGHUP" "$T/profd.log" || true)" -gt "$before" ]
	}
	wait_until "a SIGHUP message in the log" more_sighup
}
sed -i 's/^max-body = .*/max-body = 1M/' "$T/profd.conf"
reload
has "settings read again from $T/profd.conf" "$T/profd.log" ||
	fail "reload not logged"
[ "$(status_of "$(push a)")" = 201 ] || fail "max-body 1M after SIGHUP"

# A bad file changes nothing, says why, and profd keeps serving.
printf 'max-body = 8k\nmax-inflated = huge\n' >>"$T/profd.conf"
reload
has 'keeping the current settings: .*profd.conf:9: max-inflated' \
    "$T/profd.log" || fail "bad file on SIGHUP not reported with its line"
[ "$(status_of "$(push b)")" = 201 ] || fail "bad file on SIGHUP applied"

# Settings that need a restart are named, and not applied.
sed -i '/^max-inflated = huge$/d; s/^max-body = 8k$//' "$T/profd.conf"
sed -i "s|^db = .*|db = $T/other.db|; s/^log-level = debug/log-level = info/" \
    "$T/profd.conf"
reload
has 'changes to db take effect at the next start' "$T/profd.log" ||
	fail "restart-only change not named"
[ "$(status_of "$(push c)")" = 201 ] || fail "push after the third SIGHUP"
[ ! -e "$T/other.db" ] || fail "db changed on SIGHUP"
body=$(body_of "$(api GET /v1/scopes)")
[ "$(printf '%s' "$body" | json 'len(j["scopes"])')" = 3 ] ||
	fail "scopes after reloads: $body"
stop_profd
ok "SIGHUP applies a good file, keeps settings on a bad one, names restarts"
