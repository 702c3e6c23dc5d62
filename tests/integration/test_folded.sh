# Folded stacks through the socket: detection, names with spaces, repeated
# lines, the metric given at push time, bad counts refused with the line,
# and a file large enough to go through a chunked upload.
. "$(dirname "$0")/lib.sh"
start_profd

cat >"$T/a.folded" <<'F'
main;serve request;parse json 30

main;serve request;parse json 12
main;io wait 10
main;serve request 8
main;gc;mark;mark 5
F
python3 - "$T/a.folded" "$T/expected.json" <<'PY'
import json, sys
rows, total = {}, 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    stack, n = line.rsplit(" ", 1)
    n = int(n); total += n
    frames = stack.split(";")
    rows.setdefault(frames[-1], [0, 0])[0] += n
    for f in set(frames):
        rows.setdefault(f, [0, 0])[1] += n
json.dump({"cpu": {"total": total, "rows": rows}}, open(sys.argv[2], "w"))
PY
out=$("$PROFCTL" push "$T/a.folded" --scope fold --metric cpu/milliseconds)
case "$out" in *"stored as profile"*) ;; *) fail "push folded: $out" ;; esac
r=$(api GET "/v1/profiles?scope=fold")
[ "$(body_of "$r" | json 'j["profiles"][0]["format"]')" = folded ] || fail "format: $r"
[ "$(body_of "$r" | json 'j["profiles"][0]["metrics"][0]["unit"]')" = milliseconds ] || fail "unit: $r"
"$PROFCTL" top --scope fold --json >"$T/top.json"
python3 "$TESTS_DIR/tools/compare_top.py" "$T/expected.json" cpu "$T/top.json" ||
    fail "folded top differs from the counts in the file"
"$PROFCTL" top --scope fold | has ' 42ms .*parse json$' || fail "text top: $("$PROFCTL" top --scope fold)"
ok "folded: spaces in names, repeated lines, recursion, metric from the push"

# format=folded forced, default metric samples/count.
printf 'a;b 1\r\na;b 2\r\n' >"$T/crlf.folded"
r=$(api POST "/v1/profiles?scope=fold2&format=folded" --data-binary @"$T/crlf.folded")
[ "$(status_of "$r")" = 201 ] || fail "crlf: $r"
[ "$(body_of "$r" | json 'j["metrics"][0]["type"]')" = samples ] || fail "default metric: $r"

# Bad counts: 400 naming the line, nothing stored.
printf 'a;b 1\na;c x\n' >"$T/bad1"
printf 'a;b 1\na;c\n' >"$T/bad2"
printf 'a;b 1\na;c -3\n' >"$T/bad3"
for f in bad1 bad2 bad3; do
	r=$(api POST "/v1/profiles?scope=foldbad&format=folded" --data-binary @"$T/$f")
	[ "$(status_of "$r")" = 400 ] || fail "$f: $r"
	case "$(body_of "$r" | json 'j["detail"]')" in
	*"line 2"*) ;;
	*) fail "$f: no line number: $r" ;;
	esac
done
r=$(api GET "/v1/profiles?scope=foldbad")
[ "$(status_of "$r")" = 404 ] || fail "a refused folded file was stored: $r"
ok "bad counts refused with the line number, nothing stored"

# A file over the chunking threshold goes through /v1/uploads.
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(2400000):
        f.write(('main;serve;parse %d\n', 'main;io wait %d\n')[i % 2] % (i % 3 + 1))
" "$T/big.folded"
[ "$(stat -c %s "$T/big.folded")" -gt $((32 << 20)) ] || fail "big.folded is too small"
out=$("$PROFCTL" push "$T/big.folded" --scope foldbig)
case "$out" in *"stored as profile"*"2400000 samples"*) ;; *) fail "big push: $out" ;; esac
out=$("$PROFCTL" push "$T/big.folded" --scope foldbig)
case "$out" in *"already stored"*) ;; *) fail "big duplicate push: $out" ;; esac
r=$(api GET "/v1/top?scope=foldbig")
[ "$(body_of "$r" | json 'j["total"]')" = 4800000 ] || fail "big total: $r"
ls "$(dirname "$DB")/uploads" | has . && fail "an upload file was left behind"
ok "a 40 MB file pushed in chunks, once"

# The upload API refuses a chunk at the wrong offset and unknown ids.
r=$(api POST /v1/uploads)
[ "$(status_of "$r")" = 201 ] || fail "upload create: $r"
id=$(body_of "$r" | json 'j["upload_id"]')
r=$(api PUT "/v1/uploads?id=$id&offset=0" --data-binary 'main;x 1')
[ "$(status_of "$r")" = 200 ] || fail "chunk: $r"
r=$(api PUT "/v1/uploads?id=$id&offset=0" --data-binary 'main;x 1')
[ "$(status_of "$r")" = 409 ] || fail "chunk at a stale offset: $r"
r=$(api POST "/v1/profiles?scope=up&upload=$id")
[ "$(status_of "$r")" = 201 ] || fail "import upload: $r"
r=$(api POST "/v1/profiles?scope=up&upload=$id")
[ "$(status_of "$r")" = 404 ] || fail "an upload imported twice: $r"
r=$(api PUT "/v1/uploads?id=nothex&offset=0" --data-binary 'x')
[ "$(status_of "$r")" = 400 ] || fail "bad id: $r"
ok "uploads: 409 on a stale offset, 404 once imported"
