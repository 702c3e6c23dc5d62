# A secret in a file every user of the host may read (issue 40): profd
# warns at start and on SIGHUP, in its log and in /v1/status's
# "secrets", about the config file when it holds a TCP credential and
# about the tls-key file; a file only its owner and group read, or a
# world-readable config that holds no secret, is not warned about.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tls-lib.sh"

tls_self_signed srv
CONF=$T/profd.conf
KEY=$TLS/srv.key
conf() {	# conf [SETTING...]: the config file, TLS on loopback and these
	{
		echo "listen-tcp = 127.0.0.1:0"
		echo "tls-cert = $TLS/srv.pem"
		echo "tls-key = $KEY"
		printf '%s\n' "$@"
	} >"$CONF"
}
warnings() {
	curl -sf --unix-socket "$SOCK" http://localhost/v1/status |
	    json 'j["secrets"]["warnings"]'
}
warned() {	# warned JSON: the warnings are these
	[ "$(warnings)" = "$1" ]
}

# 1. At start: the config 0644 with two credentials, the key 0600.
conf "tcp-auth-token = writer-token-0123456789" \
    "tcp-read-token = reader-token-0123456789"
chmod 0644 "$CONF"
chmod 0600 "$KEY"
start_profd --config "$CONF"
want='[{"file": "'$CONF'", "mode": "0644", "holds": ["tcp-auth-token", "tcp-read-token"]}]'
[ "$(warnings)" = "$want" ] || fail "/v1/status secrets: $(warnings)"
has -F "$CONF holds tcp-auth-token, tcp-read-token and every user of this host may read it (mode 0644): chmod o-r $CONF" \
    "$T/profd.log" || fail "no warning in the log: $(cat "$T/profd.log")"
ok "the config 0644 with tcp-auth-token and tcp-read-token: warned at start, in the log and /v1/status"

# 2. SIGHUP after chmod: the config 0640 is not warned about, the key
# made 0644 is.
chmod 0640 "$CONF"
chmod 0644 "$KEY"
kill -HUP "$PROFD_PID"
want='[{"file": "'$KEY'", "mode": "0644", "holds": ["tls-key"]}]'
wait_until "the key's warning after SIGHUP" warned "$want"
[ "$(grep -c 'every user of this host may read it' "$T/profd.log")" = 2 ] ||
	fail "the log's warnings: $(grep 'may read it' "$T/profd.log")"
ok "SIGHUP: the config 0640 not warned about; the tls-key file 0644 is ($KEY)"

# 3. The key 0600 and a config 0644 that holds no credential (the
# running ones, from the start, are kept across SIGHUP: the file's
# content is what counts): nothing to warn about.
conf
chmod 0644 "$CONF"
chmod 0600 "$KEY"
kill -HUP "$PROFD_PID"
wait_until "no warning after SIGHUP" warned "[]"
[ "$(grep -c 'every user of this host may read it' "$T/profd.log")" = 2 ] ||
	fail "warned again: $(grep 'may read it' "$T/profd.log")"
ok "a config 0644 without credentials and the key 0600: no warning"
stop_profd
