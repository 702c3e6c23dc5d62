# tls-lib.sh: certificates made with openssl for the TLS tests (sourced
# after lib.sh): a CA of the test's own and server certificates it signs,
# for 127.0.0.1 and localhost unless told otherwise.  Skips (77) without
# the openssl command.
command -v openssl >/dev/null ||
    { echo "skip: the openssl command is not installed"; exit 77; }
TLS="$T/tls"
mkdir -p "$TLS"

# A free loopback TCP port.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# tls_ca NAME: a CA in $TLS/NAME.pem and its key in $TLS/NAME.key.
tls_ca() {
	openssl req -x509 -newkey rsa:2048 -nodes -days 30 \
	    -keyout "$TLS/$1.key" -out "$TLS/$1.pem" -subj "/CN=profd test $1" \
	    >"$TLS/openssl.log" 2>&1 || fail "openssl: CA $1: $(cat "$TLS/openssl.log")"
}

# tls_cert NAME CA [SAN]: a server certificate signed by CA in
# $TLS/NAME.pem, its key in $TLS/NAME.key (SAN: IP:127.0.0.1,DNS:localhost).
tls_cert() {
	local san=${3:-IP:127.0.0.1,DNS:localhost}
	printf 'subjectAltName=%s\n' "$san" >"$TLS/$1.ext"
	openssl req -newkey rsa:2048 -nodes -keyout "$TLS/$1.key" \
	    -out "$TLS/$1.csr" -subj "/CN=${san##*:}" >"$TLS/openssl.log" 2>&1 &&
	openssl x509 -req -in "$TLS/$1.csr" -CA "$TLS/$2.pem" \
	    -CAkey "$TLS/$2.key" -CAcreateserial -days 30 \
	    -extfile "$TLS/$1.ext" -out "$TLS/$1.pem" >>"$TLS/openssl.log" 2>&1 ||
	    fail "openssl: certificate $1: $(cat "$TLS/openssl.log")"
}

# tls_serial FILE: the serial of a PEM certificate, as openssl prints it
# (hex, upper case).
tls_serial() {
	openssl x509 -noout -serial -in "$1" | sed 's/^serial=//'
}

# tls_served_serial PORT CA: the serial of the certificate a new TLS
# connection to 127.0.0.1:PORT is shown (verified against CA).
tls_served_serial() {
	openssl s_client -connect "127.0.0.1:$1" -CAfile "$2" </dev/null \
	    2>/dev/null | openssl x509 -noout -serial 2>/dev/null |
	    sed 's/^serial=//'
}

# tls_self_signed NAME: a self-signed certificate for 127.0.0.1 and
# localhost in $TLS/NAME.pem (its own CA: curl --cacert takes it), its
# key in $TLS/NAME.key; a P-256 key, made at once where an RSA key takes
# seconds on a busy machine.
tls_self_signed() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -days 30 -subj /CN=localhost \
	    -addext subjectAltName=IP:127.0.0.1,DNS:localhost \
	    -keyout "$TLS/$1.key" -out "$TLS/$1.pem" >"$TLS/openssl.log" 2>&1 ||
	    fail "openssl: certificate $1: $(cat "$TLS/openssl.log")"
}

# tls_tcp_conf FILE [LINE...]: a config (mode 0600) of a TLS listener on a
# free loopback port with a writer's token $WTOKEN and a reader's $RTOKEN
# (both set here), the certificate srv of tls_cert, and the extra LINEs.
tls_tcp_conf() {
	local file=$1
	shift
	WTOKEN='w-writer-0123456789abcdef'
	RTOKEN='r-reader-0123456789abcdef'
	{
		printf '%s\n' "listen-tcp = 127.0.0.1:0" \
		    "tls-cert = $TLS/srv.pem" "tls-key = $TLS/srv.key" \
		    "tcp-auth-token = $WTOKEN" "tcp-read-token = $RTOKEN"
		[ $# -eq 0 ] || printf '%s\n' "$@"
	} >"$file"
	chmod 600 "$file"
}
