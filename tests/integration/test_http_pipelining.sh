#!/usr/bin/env bash
# Pipelined requests (issue 40, finding 7): twelve requests written at
# once on one connection, pushes of 1 byte to 100 kB (three of 38 kB, as
# the issue's) and reads whose head carries a 48 kB header (under
# max-header-size, 64 kB), are all answered, in order, each reply its
# own request's (a push's names its scope), on the Unix socket, on the
# TCP listener and over TLS with the writer's and the reader's tokens.
# Before, a request past what profd had read before its first reply was
# read from its middle: 1-2 replies, then 400 "the HTTP version is not
# 1.0 or 1.1" and the connection closed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tls-lib.sh"
PIPE="$TESTS_DIR/tools/pipeline.py"

tls_ca ca
tls_cert srv ca
tls_tcp_conf "$T/profd.conf"

start_profd --listen-tcp 127.0.0.1:0
python3 "$PIPE" unix "$SOCK" >"$T/unix.out" ||
    fail "pipelined on the socket: $(cat "$T/unix.out")"
[ "$(nprofiles pipe9)" = 1 ] || fail "pipe9 not stored"
python3 "$PIPE" tcp "$(tcp_port)" >"$T/tcp.out" ||
    fail "pipelined on the TCP listener: $(cat "$T/tcp.out")"
ok "socket: $(tail -n 1 "$T/unix.out"); TCP: $(tail -n 1 "$T/tcp.out")"
stop_profd

rm -f "$DB"
"$PROFD" --foreground --config "$T/profd.conf" --spool none --socket "$SOCK" \
    --db "$DB" >>"$T/profd.log" 2>&1 &
PROFD_PID=$!
wait_health "$SOCK"
python3 "$PIPE" tcp "$(tcp_port)" --ca "$TLS/ca.pem" --token "$WTOKEN" \
    --read-token "$RTOKEN" >"$T/tls.out" ||
    fail "pipelined over TLS: $(cat "$T/tls.out")"
[ "$(nprofiles pipe10)" = 1 ] || fail "pipe10 not stored over TLS"
ok "TLS with the writer's and the reader's tokens: $(tail -n 1 "$T/tls.out")"
