#!/usr/bin/env bash
# DNS rebinding: with the socket forwarded to a TCP port (ssh -L), a page
# of another site whose name resolves to 127.0.0.1 sends its own name in
# Host.  profd answers only localhost, 127.0.0.1, [::1] (any port), no
# Host at all, and the names of allowed-host; anything else gets the JSON
# 403 naming the Host and allowed-host, and changes nothing.
source "$TESTS_DIR/integration/lib.sh"
start_profd --allowed-host myhost.lan

"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope cpu >/dev/null ||
	fail "profctl push (Host: localhost) refused"

# host_api HOST METHOD PATH [curl args...]: api with that Host header.
host_api() {
	local host=$1
	shift
	api "$@" -H "Host: $host"
}

count() {
	api GET '/v1/profiles?scope=cpu' | sed '$d' | json 'len(j["profiles"])'
}
[ "$(count)" = 1 ] ||
	fail "the pushed profile is not listed"

for path in "/v1/profiles?scope=cpu" /ui/ / /v1/health; do
	r=$(host_api evil.example:8080 GET "$path")
	[ "$(status_of "$r")" = 403 ] || fail "GET $path, Host evil.example:8080: $r"
done
body_of "$r" | json 'j["error"]' | has forbidden ||
	fail "the 403's error kind: $r"
body_of "$r" | json 'j["detail"]' | has 'evil.example:8080' ||
	fail "the 403 does not say which Host: $r"
body_of "$r" | json 'j["detail"]' | has 'allowed-host' ||
	fail "the 403 does not say how to allow it: $r"
r=$(host_api evil.example:8080 DELETE "/v1/profiles?scope=cpu")
[ "$(status_of "$r")" = 403 ] || fail "DELETE, Host evil.example:8080: $r"
for h in evil.example localhost.evil.example 127.0.0.1.nip.io \
    '[::2]:8080' 'localhost:80x' 'myhost.lan.evil.example'; do
	r=$(host_api "$h" GET /v1/scopes)
	[ "$(status_of "$r")" = 403 ] || fail "Host $h: $r"
done
[ "$(count)" = 1 ] ||
	fail "a refused DELETE deleted the profile"
ok "foreign Host: 403 on /v1, /ui/, /; nothing deleted"

for h in localhost:8080 LOCALHOST 127.0.0.1 127.0.0.1:8080 '[::1]:9' \
    '[::1]' myhost.lan myhost.lan:8080 MyHost.Lan; do
	r=$(host_api "$h" GET "/v1/profiles?scope=cpu")
	[ "$(status_of "$r")" = 200 ] || fail "Host $h: $r"
done
r=$(host_api localhost:8080 GET /ui/)
[ "$(status_of "$r")" = 200 ] || fail "/ui/ with Host localhost:8080: $r"
ok "localhost, 127.0.0.1, [::1] (any port) and allowed-host: 200"

# No Host at all (HTTP/1.0): curl -H 'Host:' drops its own.
r=$(api GET "/v1/profiles?scope=cpu" --http1.0 -H 'Host:')
[ "$(status_of "$r")" = 200 ] || fail "HTTP/1.0 without Host: $r"
r=$(python3 - "$SOCK" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"GET /v1/health HTTP/1.0\r\n\r\n")
print(s.recv(100).split(b"\r\n")[0].decode())
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n")
print(s.recv(100).split(b"\r\n")[0].decode())
PY
)
printf '%s\n' "$r" | head -n 1 | has ' 200 ' || fail "no Host, raw HTTP/1.0: $r"
printf '%s\n' "$r" | tail -n 1 | has ' 400 ' || fail "two Host headers: $r"
ok "no Host (HTTP/1.0): 200; two Host headers: 400"

r=$(host_api localhost:8080 DELETE "/v1/profiles?scope=cpu")
[ "$(status_of "$r")" = 200 ] || fail "DELETE with Host localhost:8080: $r"
ok "DELETE with Host localhost:8080 still works"
stop_profd

# Without the option, myhost.lan is refused; "none" clears the file's list.
printf 'allowed-host = myhost.lan\n' >"$T/profd.conf"
start_profd --config "$T/profd.conf" --allowed-host none
r=$(host_api myhost.lan GET /v1/scopes)
[ "$(status_of "$r")" = 403 ] || fail "myhost.lan after allowed-host none: $r"
stop_profd
start_profd --config "$T/profd.conf"
r=$(host_api myhost.lan GET /v1/scopes)
[ "$(status_of "$r")" = 200 ] || fail "myhost.lan from the config file: $r"
"$PROFD" --no-config --allowed-host a.lan --allowed-host '[fe80::1]' \
    --print-config | grep '^allowed-host' >"$T/printed"
[ "$(cat "$T/printed")" = "allowed-host = a.lan
allowed-host = [fe80::1]" ] || fail "--print-config: $(cat "$T/printed")"
"$PROFD" --no-config --allowed-host evil.example:80 --print-config \
    >/dev/null 2>"$T/err" && fail "a name with a port was taken"
has 'not a host name' <"$T/err" || fail "the error: $(cat "$T/err")"
ok "allowed-host from the file, none, --print-config, a bad name"
