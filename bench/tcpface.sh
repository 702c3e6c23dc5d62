#!/usr/bin/env bash
# tcpface.sh [BUILD_DIR]: the TCP face's cost (issue 28): pushes and
# Grafana's reads over https against the same over the Unix socket, on a
# profd of 60 real CPU profiles (tests/fixtures/cpu.pprof re-timed a
# minute apart).  Each call is one curl (its start is most of a call:
# compare the rows with each other), then 30 renders on one kept
# connection, the cost of TLS itself.  Prints one line per measurement.
set -euo pipefail
M=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$M/build}
D=$(mktemp -d)
trap 'kill "$P" 2>/dev/null || true; rm -rf "$D"' EXIT
P=
cd "$D"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -keyout ca.key \
    -out ca.pem -subj "/CN=bench ca" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >ext
openssl req -newkey rsa:2048 -nodes -keyout s.key -out s.csr \
    -subj "/CN=127.0.0.1" 2>/dev/null
openssl x509 -req -in s.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
    -days 1 -extfile ext -out s.pem 2>/dev/null
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
RT=reader-0123456789abcdef WT=writer-0123456789abcdef
"$B/profd" --no-config --foreground --spool none --socket sock --db db \
    --listen-tcp "127.0.0.1:$PORT" --tls-cert s.pem --tls-key s.key \
    --tcp-read-token $RT --tcp-auth-token $WT 2>log &
P=$!
for _ in $(seq 50); do [ -S sock ] && break; sleep 0.1; done
now=$(date +%s)
for i in $(seq 60); do
	python3 "$M/tests/tools/retime_pprof.py" "$M/tests/fixtures/cpu.pprof" \
	    "$i.pb" $(( (now - 3600 + i * 50) * 1000000000 ))
done
ms() { echo "($2 - $1) * 1000 / $3" | bc -l | cut -c1-5; }
ingest() { echo "/ingest?name=svc-a.cpu&from=$((now - 3600 + $1 * 50))&format=pprof"; }
t0=$(date +%s.%N)
for i in $(seq 1 30); do
	curl -sf --unix-socket sock -o /dev/null --data-binary @$i.pb \
	    "http://localhost$(ingest $i)"
done
t1=$(date +%s.%N)
for i in $(seq 31 60); do
	curl -sf --cacert ca.pem -H "Authorization: Bearer $WT" -o /dev/null \
	    --data-binary @$i.pb "https://127.0.0.1:$PORT$(ingest $i)"
done
t2=$(date +%s.%N)
echo "push (curl each): socket $(ms $t0 $t1 30) ms, https $(ms $t1 $t2 30) ms"
Q='process_cpu%3Acpu%3Ananoseconds%3Acpu%3Ananoseconds%7Bservice_name%3D%22svc-a%22%7D'
R="/pyroscope/render?query=$Q&from=now-2h"
t0=$(date +%s.%N)
for i in $(seq 30); do
	curl -sf --unix-socket sock -o /dev/null "http://localhost$R"
done
t1=$(date +%s.%N)
for i in $(seq 30); do
	curl -sf --cacert ca.pem -H "Authorization: Bearer $RT" -o /dev/null \
	    "https://127.0.0.1:$PORT$R"
done
t2=$(date +%s.%N)
body="{\"profileTypeID\":\"process_cpu:cpu:nanoseconds:cpu:nanoseconds\",\"labelSelector\":\"{service_name=\\\"svc-a\\\"}\",\"start\":\"$(( (now - 7200) * 1000 ))\",\"end\":\"$(( now * 1000 ))\"}"
for i in $(seq 30); do
	curl -sf --cacert ca.pem -H "Authorization: Bearer $RT" -o /dev/null \
	    -H 'Content-Type: application/json' -d "$body" \
	    "https://127.0.0.1:$PORT/querier.v1.QuerierService/SelectMergeStacktraces"
done
t3=$(date +%s.%N)
for i in $(seq 30); do
	"$B/profctl" --socket sock tree --scope svc-a --since -2h --json >/dev/null
done
t4=$(date +%s.%N)
echo "render (curl each): socket $(ms $t0 $t1 30) ms, https $(ms $t1 $t2 30) ms; SelectMergeStacktraces (JSON, https) $(ms $t2 $t3 30) ms; profctl tree --json $(ms $t3 $t4 30) ms"
args=() sargs=()
for i in $(seq 30); do
	args+=("https://127.0.0.1:$PORT$R" -o /dev/null)
	sargs+=("http://localhost$R" -o /dev/null)
done
t0=$(date +%s.%N)
curl -sf --cacert ca.pem -H "Authorization: Bearer $RT" "${args[@]}"
t1=$(date +%s.%N)
curl -sf --unix-socket sock "${sargs[@]}"
t2=$(date +%s.%N)
echo "render, 30 on one kept connection: https $(ms $t0 $t1 30) ms, socket $(ms $t1 $t2 30) ms"
