# Replies gzipped when the client takes it (issue 29, item 5): /v1 views,
# exports, /pyroscope/render and the querier's replies of 1 KiB or more
# come with Content-Encoding: gzip and Vary: Accept-Encoding when the
# request's Accept-Encoding takes gzip (q-values and "*" read as RFC 9110
# says), and inflate to the very bytes of the plain reply; small replies,
# errors and a gzip already (an export) go as they are; HEAD says the
# gzipped length; a streamed reply (/v1/query) is gzipped as it is written.
# profctl asks for gzip: its output is byte-equal to the one it prints
# when the same daemon answers it plainly (its Accept-Encoding taken off
# by a proxy on another socket), and the proxy's record shows it was sent
# gzip; profctl web passes a browser's gzip on.
. "$(dirname "$0")/lib.sh"
# This test is about encodings: the read's deadline is a hang bound here
# (test_query_cancel tests it).  (The export of the big scope once took
# over its minute in a sanitizer build on a loaded machine: its arrays
# grew an element at a time, which ASan's realloc copies whole each time;
# xappendarray doubles them, 19.6 -> 1.9 s there.)
start_profd --query-timeout 600
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope cpu >/dev/null
"$PROFCTL" push "$FIXTURES/heap.pprof" --scope heap >/dev/null
# A large tree: 6000 random stacks (a few MB of JSON).
python3 "$TESTS_DIR/tools/genpprof.py" "$T/big.pb.gz" --samples 6000 \
    --functions 60 --depth 12 --seed 1 >/dev/null || fail "genpprof"
"$PROFCTL" push "$T/big.pb.gz" --scope big >/dev/null

# get NAME PATH [curl args]: the reply's headers into $T/NAME.h (CR
# removed), its body as sent into $T/NAME.b; prints the status.
get() {
	local name=$1 path=$2
	shift 2
	curl -s --unix-socket "$SOCK" -D "$T/$name.hr" -o "$T/$name.b" \
	    -w '%{http_code}' "$@" "http://localhost$path"
	tr -d '\r' <"$T/$name.hr" >"$T/$name.h"
}
# hdr NAME FIELD: the value of FIELD in $T/NAME.h (empty if absent).
hdr() {
	sed -n "s/^$2: //Ip" "$T/$1.h" | head -n 1
}
size() { wc -c <"$1" | tr -d ' '; }

# 1. Each read: plain without Accept-Encoding, gzip with it, the same
#    bytes once inflated (by zcat and by curl --compressed).
AE=(-H 'Accept-Encoding: gzip')
QS='{"profileTypeID":"process_cpu:cpu:nanoseconds:cpu:nanoseconds","labelSelector":"{service_name=\"big\"}","start":"0","end":"4102444800000","maxNodes":"100000"}'
n=0
while IFS='|' read -r path post; do
	n=$((n + 1))
	args=()
	[ -z "$post" ] || args=(-H 'Content-Type: application/json'
	    --data-binary "$post")
	[ "$(get p$n "$path" "${args[@]}")" = 200 ] ||
	    fail "$path: $(head -c 300 "$T/p$n.b")"
	[ "$(get g$n "$path" "${args[@]}" "${AE[@]}")" = 200 ] ||
	    fail "$path gzip: $(head -c 300 "$T/g$n.b")"
	[ -z "$(hdr p$n Content-Encoding)" ] ||
	    fail "$path: gzipped unasked: $(cat "$T/p$n.h")"
	[ "$(hdr p$n Vary)" = Accept-Encoding ] ||
	    fail "$path: no Vary on the plain reply: $(cat "$T/p$n.h")"
	[ "$(hdr g$n Content-Encoding)" = gzip ] ||
	    fail "$path: not gzipped: $(cat "$T/g$n.h")"
	[ "$(hdr g$n Vary)" = Accept-Encoding ] ||
	    fail "$path: no Vary: $(cat "$T/g$n.h")"
	[ "$(hdr g$n Content-Length)" = "$(size "$T/g$n.b")" ] ||
	    fail "$path: Content-Length $(hdr g$n Content-Length), body $(size "$T/g$n.b")"
	[ "$(hdr g$n Content-Type)" = "$(hdr p$n Content-Type)" ] ||
	    fail "$path: Content-Type $(hdr g$n Content-Type)"
	zcat "$T/g$n.b" >"$T/z$n" || fail "$path: the gzip does not inflate"
	cmp -s "$T/p$n.b" "$T/z$n" || fail "$path: inflated, not the plain reply"
	curl -s --compressed --unix-socket "$SOCK" -o "$T/c$n" "${args[@]}" \
	    "http://localhost$path" || fail "$path: curl --compressed"
	cmp -s "$T/p$n.b" "$T/c$n" || fail "$path: curl --compressed differs"
	# Smaller by far: JSON of a tree inflates 10 times and more.
	[ $(( $(size "$T/g$n.b") * 4 )) -lt "$(size "$T/p$n.b")" ] ||
	    fail "$path: gzip $(size "$T/g$n.b") of $(size "$T/p$n.b") bytes"
	ok "$path: $(size "$T/p$n.b") bytes, $(size "$T/g$n.b") gzipped, the same inflated"
done <<EOT
/v1/tree?scope=cpu|
/v1/tree?scope=big|
/v1/top?scope=cpu|
/v1/peek?scope=big&regex=func5&format=text|
/v1/top?scope=big|
/pyroscope/render?query=cpu.cpu&from=0&until=now|
/querier.v1.QuerierService/SelectMergeStacktraces|$QS
EOT
[ $(size "$T/p2.b") -gt 1000000 ] ||
    fail "the large tree is $(size "$T/p2.b") bytes"

# 2. HEAD: the gzipped reply's length, no body (curl -I writes the
#    headers where the body would go).
[ "$(get h1 /v1/tree?scope=big -I "${AE[@]}")" = 200 ] || fail "HEAD"
[ "$(hdr h1 Content-Encoding)" = gzip ] &&
    [ "$(hdr h1 Content-Length)" = "$(size "$T/g2.b")" ] &&
    cmp -s "$T/h1.b" "$T/h1.hr" || fail "HEAD gzip: $(cat "$T/h1.h")"
[ "$(get h2 /v1/tree?scope=big -I)" = 200 ] || fail "HEAD plain"
[ -z "$(hdr h2 Content-Encoding)" ] &&
    [ "$(hdr h2 Content-Length)" = "$(size "$T/p2.b")" ] ||
    fail "HEAD plain: $(cat "$T/h2.h")"
ok "HEAD: Content-Length $(hdr h1 Content-Length) gzipped, $(hdr h2 Content-Length) plain"

# 3. What Accept-Encoding says: q-values, "*", gzip refused.
while IFS='|' read -r ae want; do
	[ "$(get a /v1/tree?scope=cpu -H "Accept-Encoding: $ae")" = 200 ] ||
	    fail "Accept-Encoding $ae"
	got=$(hdr a Content-Encoding)
	[ "$got" = "$want" ] ||
	    fail "Accept-Encoding \"$ae\": Content-Encoding \"$got\", want \"$want\""
	if [ "$want" = gzip ]; then
		zcat "$T/a.b" | cmp -s - "$T/p1.b" || fail "$ae: the bytes"
	else
		cmp -s "$T/a.b" "$T/p1.b" || fail "$ae: the bytes"
	fi
done <<'EOT'
gzip;q=0|
gzip;q=0, *|
*;q=0|
deflate, br|
identity|
gzip;q=1.5|
gzip, deflate, br, zstd|gzip
deflate;q=1, gzip;q=0.1|gzip
*|gzip
br, *;q=0.5|gzip
*;q=0, gzip|gzip
x-gzip|gzip
EOT
ok "Accept-Encoding: q-values, * and gzip;q=0 honoured"

# 4. What is not gzipped: a small reply (no Vary either: under 1 KiB its
#    coding never depends on the header), an error, an export (gzip
#    already).
[ "$(get s '/v1/top?scope=cpu&limit=1' "${AE[@]}")" = 200 ] || fail "small"
[ "$(size "$T/s.b")" -lt 1024 ] && [ -z "$(hdr s Content-Encoding)" ] &&
    [ -z "$(hdr s Vary)" ] || fail "a small reply: $(cat "$T/s.h")"
[ "$(get e '/v1/top?scope=nosuch' "${AE[@]}")" = 404 ] || fail "error"
[ -z "$(hdr e Content-Encoding)" ] &&
    [ "$(json 'j["error"]' <"$T/e.b")" = "not found" ] ||
    fail "an error: $(cat "$T/e.h" "$T/e.b")"
[ "$(get e2 '/v1/tree?scope=cpu&min_fraction=x' "${AE[@]}")" = 400 ] &&
    [ -z "$(hdr e2 Content-Encoding)" ] || fail "a 400: $(cat "$T/e2.h")"
[ "$(get x /v1/export?scope=big "${AE[@]}")" = 200 ] || fail "export"
[ -z "$(hdr x Content-Encoding)" ] &&
    [ "$(hdr x Content-Type)" = application/octet-stream ] ||
    fail "export: $(cat "$T/x.h")"
[ "$(get x2 /v1/export?scope=big)" = 200 ] && cmp -s "$T/x.b" "$T/x2.b" ||
    fail "export: not the same bytes with Accept-Encoding"
zcat "$T/x.b" >/dev/null || fail "export: not a gzipped pprof"
ok "small replies ($(size "$T/s.b") bytes), errors and exports go as they are"

# 5. A streamed reply (/v1/query, chunked) gzipped as it is written.
SQL="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) SELECT x, hex(zeroblob(140)) AS pad FROM c"
for h in p g; do
	args=()
	[ $h = p ] || args=("${AE[@]}")
	[ "$(get q$h '/v1/query?max_rows=100000' -H 'Content-Type: text/plain' \
	    --data-binary "$SQL" "${args[@]}")" = 200 ] ||
	    fail "query: $(head -c 300 "$T/q$h.b")"
	[ "$(hdr q$h Transfer-Encoding)" = chunked ] ||
	    fail "query not streamed: $(cat "$T/q$h.h")"
done
[ "$(hdr qg Content-Encoding)" = gzip ] && [ -z "$(hdr qp Content-Encoding)" ] ||
    fail "query: $(cat "$T/qg.h")"
# The same rows; elapsed_ms is the run's own.
noel() { sed 's/"elapsed_ms":[0-9.]*//'; }
zcat "$T/qg.b" | noel >"$T/qg.txt" || fail "query: the gzip does not inflate"
noel <"$T/qp.b" | cmp -s - "$T/qg.txt" || fail "query: inflated, not the rows"
[ "$(zcat "$T/qg.b" | json 'len(j["rows"])')" = 20000 ] || fail "query rows"
ok "a streamed query: $(size "$T/qp.b") bytes, $(size "$T/qg.b") gzipped as written"

# 6. profctl: gzip asked for and received, the output as with plain
#    replies.  The proxy takes Accept-Encoding off the requests on
#    plain.sock and passes those on gz.sock as they are, recording the
#    replies' heads.
cat >"$T/proxy.py" <<'PY'
import os, socket, sys, threading
up, strip, listen, rec = sys.argv[1], sys.argv[2] == "strip", sys.argv[3], sys.argv[4]
lk = threading.Lock()
def pump(a, b, head):
    buf = b""
    while True:
        try:
            d = a.recv(65536)
        except OSError:
            break
        if not d:
            break
        if head is not None and buf is not None:
            buf += d
            if b"\r\n\r\n" in buf:
                h = buf.split(b"\r\n\r\n", 1)[0]
                with lk, open(rec, "ab") as f:
                    f.write(h + b"\n\n")
                buf = None
        try:
            b.sendall(d)
        except OSError:
            break
    try:
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass
def serve(c):
    u = socket.socket(socket.AF_UNIX)
    u.connect(up)
    req = b""
    while b"\r\n\r\n" not in req:
        d = c.recv(65536)
        if not d:
            return
        req += d
    h, rest = req.split(b"\r\n\r\n", 1)
    if strip:
        h = b"\r\n".join(l for l in h.split(b"\r\n")
                         if not l.lower().startswith(b"accept-encoding:"))
    u.sendall(h + b"\r\n\r\n" + rest)
    t = threading.Thread(target=pump, args=(c, u, None), daemon=True)
    t.start()
    pump(u, c, True)
    t.join(5)
    c.close()
    u.close()
s = socket.socket(socket.AF_UNIX)
s.bind(listen)
s.listen(16)
open(listen + ".ready", "w").close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
PROXIES=()
stop_proxies() {
	local p
	for p in "${PROXIES[@]}"; do kill "$p" 2>/dev/null || true; done
	cleanup || true
}
trap stop_proxies EXIT
for m in strip pass; do
	python3 "$T/proxy.py" "$SOCK" $m "$T/$m.sock" "$T/$m.rec" &
	PROXIES+=($!)
	wait_until "the $m proxy" test -e "$T/$m.sock.ready"
done
n=0
while read -r -a cmd; do
	n=$((n + 1))
	for m in strip pass; do
		"$PROFCTL" --socket "$T/$m.sock" "${cmd[@]//@T@/$T/$m}" \
		    >"$T/o$n.$m" 2>"$T/e$n.$m" ||
		    fail "profctl ${cmd[*]} ($m): $(cat "$T/e$n.$m")"
	done
	cmp -s "$T/o$n.strip" "$T/o$n.pass" ||
	    fail "profctl ${cmd[*]}: the output differs with gzip"
	[ -s "$T/o$n.pass" ] || fail "profctl ${cmd[*]}: no output"
done <<'EOT'
top --scope cpu
top --scope heap --json
tree --scope big
tree --scope cpu --json
tree --scope big --folded
timeline --scope big --step 1s
diff --scope big --base-scope cpu
scopes
EOT
# The export: the same file either way.
"$PROFCTL" --socket "$T/strip.sock" export --scope big -o "$T/ex.strip" &&
    "$PROFCTL" --socket "$T/pass.sock" export --scope big -o "$T/ex.pass" ||
    fail "profctl export"
cmp -s "$T/ex.strip" "$T/ex.pass" || fail "profctl export differs"
# A streamed query, then an error, through profctl.
for m in strip pass; do
	"$PROFCTL" --socket "$T/$m.sock" query --max-rows 100000 "$SQL" \
	    >"$T/qo.$m" 2>"$T/qe.$m" || fail "profctl query: $(cat "$T/qe.$m")"
done
cmp -s "$T/qo.strip" "$T/qo.pass" && cmp -s "$T/qe.strip" "$T/qe.pass" ||
    fail "profctl query differs with gzip"
for m in strip pass; do
	"$PROFCTL" --socket "$T/$m.sock" top --scope nosuch >/dev/null \
	    2>"$T/err.$m" && fail "profctl top of no scope ($m) succeeded"
done
cmp -s "$T/err.strip" "$T/err.pass" || fail "profctl's error differs"
grep -qi '^content-encoding: gzip' "$T/pass.rec" ||
    fail "profctl was never sent gzip"
! grep -qi '^content-encoding' "$T/strip.rec" ||
    fail "the stripping proxy's replies were gzipped"
ok "profctl: $(grep -ci '^content-encoding: gzip' "$T/pass.rec") replies gzipped, every output the same as with plain replies"

# 7. profctl web passes a browser's gzip on to profd and the gzipped
#    reply back; a browser that does not take gzip gets it plain.
"$PROFCTL" web --listen 127.0.0.1:0 >"$T/web.out" 2>"$T/web.err" &
PROXIES+=($!)
wait_until "profctl web's URL" grep -q . "$T/web.out"
URL=$(head -n 1 "$T/web.out")
BASE=${URL%/\?token=*}
TOK="X-Profd-Token: ${URL#*\?token=}"
for h in g p; do
	args=(-H "$TOK")
	[ $h = p ] || args+=(-H 'Accept-Encoding: gzip, deflate, br')
	curl -s -D "$T/w$h.hr" -o "$T/w$h.b" "${args[@]}" \
	    "$BASE/v1/tree?scope=big" || fail "profctl web: curl"
	tr -d '\r' <"$T/w$h.hr" >"$T/w$h.h"
done
[ "$(hdr wg Content-Encoding)" = gzip ] && [ -z "$(hdr wp Content-Encoding)" ] ||
    fail "profctl web: $(cat "$T/wg.h")"
zcat "$T/wg.b" | cmp -s - "$T/p2.b" && cmp -s "$T/wp.b" "$T/p2.b" ||
    fail "profctl web: not the tree's bytes"
ok "profctl web: the tree gzipped for a browser that takes it ($(size "$T/wg.b") bytes), plain for one that does not"
