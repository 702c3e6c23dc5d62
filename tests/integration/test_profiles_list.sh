# GET /v1/profiles a page at a time (issue 40, finding 8): 1,005
# profiles at known times (Pyroscope's /ingest from=), since/until select
# the right ones to the second, label/metric/profile filter them, limit
# and cursor page through every one exactly once in (time, id) order while
# profiles are pushed between the pages, and profctl profiles prints them
# all (over two of its pages), or a window, a label, --limit.  Every
# endpoint answers 400 naming a parameter it does not take (each GET route
# of the table with bogus=1, and others), where it used to ignore it; the
# parameter sets of Pyroscope's APIs are taken whole.
. "$(dirname "$0")/lib.sh"
start_profd

export PYTHONPATH="$TESTS_DIR/tools"
T0=1700000000		# the first profile's time, s; one a minute after
N=1005			# more than profctl's page of 1000

# Profile i (0-based, id i + 1): at T0 + 60 i, env=prod (even) or dev
# (odd), none for i % 7 == 3; an inuse_space profile for i % 10 == 0,
# a CPU one else.
python3 - "$SOCK" "$T0" "$N" <<'EOF' || fail "pushing the profiles"
import sys, sockhttp
sock, t0, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = sockhttp.connect(sock)
for i in range(n):
    kind = "inuse_space" if i % 10 == 0 else "cpu"
    tags = "" if i % 7 == 3 else "%7Benv%3D" + ("prod" if i % 2 == 0 else "dev") + "%7D"
    body = b"main;f%d %d\n" % (i, i + 1)
    q = "/ingest?name=wk.%s%s&from=%d&until=%d" % (kind, tags, t0 + 60 * i, t0 + 60 * i + 10)
    s.sendall(b"POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n%s" %
              (q.encode(), len(body), body))
    line, b = sockhttp.reply(s)
    if b" 200 " not in line:
        sys.exit("push %d: %r %r" % (i, line, b))
EOF
ok "$N profiles pushed at known times"

# The API: windows, filters, pages, refusals.
python3 - "$SOCK" "$T0" "$N" <<'EOF' || fail "GET /v1/profiles"
import json, sys, time, urllib.parse, sockhttp
sock, t0, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = sockhttp.connect(sock)

def get(q):
    line, body = sockhttp.get(s, ("/v1/profiles?" + q).encode())
    return int(line.split()[1]), json.loads(body)

def fail(msg):
    sys.exit("FAIL: " + msg)

def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))

def env(i):
    return None if i % 7 == 3 else ("prod" if i % 2 == 0 else "dev")

def ids(q, limit=10000):
    """Every page of q at limit rows a page: the ids, the pages."""
    got, pages, cur = [], 0, None
    while True:
        st, j = get(q + "&limit=%d" % limit + ("&cursor=" + urllib.parse.quote(cur) if cur else ""))
        if st != 200:
            fail("%s: %d %r" % (q, st, j))
        got += [p["id"] for p in j["profiles"]]
        pages += 1
        cur = j.get("next_cursor")
        if cur is None:
            return got, pages

# since/until: both ends in, to the second (a profile at T is in until=T
# and since=T, not in until=T-1s).
want = [i + 1 for i in range(100, 201)]
got, _ = ids("scope=wk&since=%s&until=%s" % (iso(t0 + 6000), iso(t0 + 12000)))
if got != want:
    fail("since/until: %r" % got[:5])
got, _ = ids("scope=wk&since=%s&until=%s" % (iso(t0 + 6001), iso(t0 + 11999)))
if got != want[1:-1]:
    fail("since/until inside the ends: %r" % got[:5])
# since= is a filter: relative to now, nothing of 2023 is in the last hour.
st, j = get("scope=wk&since=-1h")
if st != 200 or j["profiles"] or "next_cursor" in j:
    fail("since=-1h: %d %r" % (st, j))
print("ok: since/until select the profiles of the window, both ends in")

# label (push labels, "" for none), metric, profile.
for q, pred in (("label=env%3Ddev", lambda i: env(i) == "dev"),
                ("label=env%21%3Dprod", lambda i: env(i) != "prod"),
                ("label=env%3D~.%2B", lambda i: env(i) is not None),
                ("label=env%21~prod&label=env%21~dev", lambda i: env(i) is None),
                ("metric=inuse_space", lambda i: i % 10 == 0),
                ("metric=cpu%2Fnanoseconds&label=env%3Dprod", lambda i: i % 10 and env(i) == "prod"),
                ("profile=7&profile=1000&profile=3", lambda i: i + 1 in (3, 7, 1000))):
    got, _ = ids("scope=wk&" + q, 300)
    want = [i + 1 for i in range(n) if pred(i)]
    if got != want:
        fail("%s: %d rows, %d wanted" % (q, len(got), len(want)))
print("ok: label, metric and profile filter the list")

# Pages of 100: every profile once, in (time, id) order, while a push
# lands between pages: one after the cursor comes once, at the end; one
# before it (already paged past) in none.
sp = sockhttp.connect(sock)
def push(name, t):
    body = b"late;%s 1\n" % name.encode()
    q = "/ingest?name=wk.cpu%%7Benv%%3Dlate%%7D&from=%d&until=%d" % (t, t + 10)
    sp.sendall(b"POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n%s" %
               (q.encode(), len(body), body))
    line, b = sockhttp.reply(sp)
    if b" 200 " not in line:
        fail("push %s: %r" % (name, b))
    return json.loads(b)["profile_id"]
rows, cur, pages = [], None, 0
while True:
    st, j = get("scope=wk&limit=100" + ("&cursor=" + urllib.parse.quote(cur) if cur else ""))
    if st != 200 or len(j["profiles"]) > 100:
        fail("page %d: %d %r" % (pages, st, j))
    rows += [(p["time_ns"], p["id"]) for p in j["profiles"]]
    pages += 1
    cur = j.get("next_cursor")
    if pages == 3:
        later = push("later", t0 + 60 * n)	# after every profile
        earlier = push("earlier", t0 + 30)	# between the first two
    if cur is None:
        break
got = [r[1] for r in rows]
if rows != sorted(rows) or len(set(got)) != len(got):
    fail("pages out of order or repeating a row")
if got != list(range(1, n + 1)) + [later]:
    fail("pages: %d rows, %d pages; later %d earlier %d" % (len(got), pages, later, earlier))
got, _ = ids("scope=wk", 10000)
if len(got) != n + 2 or got[1] != earlier or got[-1] != later:
    fail("after the pushes: %d rows" % len(got))
print("ok: %d pages of 100 held each of %d profiles once, in order, with a push after the cursor and one before it landing between pages" % (pages, n))

# The default page is 1000 rows, with a cursor to the rest.
st, j = get("scope=wk")
if st != 200 or len(j["profiles"]) != 1000 or "next_cursor" not in j:
    fail("the default page: %d rows" % len(j.get("profiles", [])))

# Refused, naming the parameter.
for q, status, word in (("scope=wk&bogus=1", 400, "bogus"),
                        ("scope=wk&untill=2023-11-15T00:00:00Z", 400, "untill"),
                        ("scope=wk&focus=main", 400, "focus"),
                        ("scope=wk&aggregate=sum", 400, "aggregate"),
                        ("scope=wk&scope=wk", 400, "scope"),
                        ("scope=wk&limit=0", 400, "limit"),
                        ("scope=wk&limit=10001", 400, "limit"),
                        ("scope=wk&cursor=12", 400, "cursor"),
                        ("scope=wk&cursor=1.0", 400, "cursor"),
                        ("scope=wk&since=yesterday", 400, "since"),
                        ("scope=wk&label=env", 400, "label"),
                        ("scope=wk&label=env%3D~%28", 400, "label"),
                        ("scope=wk&metric=nosuch", 400, "metric"),
                        ("since=-1h", 400, "scope"),
                        ("scope=nope", 404, "nope")):
    st, j = get(q)
    if st != status or word not in j.get("detail", ""):
        fail("%s: %d %r" % (q, st, j))
print("ok: unknown parameters and bad values are 400s naming them")
EOF

# Every GET route of the table (but the UI's, whose query is the page's)
# refuses a parameter it does not take, naming it; so do the others.
routes=$(sed -n 's/^[[:space:]]*{ "GET", "\(\/[^"]*\)".*/\1/p' \
    "$TESTS_DIR/../daemon/api/routes.c" | grep -v '^/ui$' | grep -v '^/$')
[ "$(printf '%s\n' "$routes" | wc -l)" -ge 14 ] ||
    fail "the GET routes of routes.c: $routes"
for route in $routes; do
	r=$(api GET "$route?bogus=1&scope=wk")
	[ "$(status_of "$r")" = 400 ] &&
	    body_of "$r" | has "bogus: not a parameter of $route" ||
	    fail "GET $route?bogus=1: $r"
done
ok "every GET route ($(printf '%s\n' "$routes" | wc -l)) answers 400 naming bogus=1"
before=$(api GET "/v1/scopes" | sed '$d')
r=$(api DELETE "/v1/profiles?scope=wk&bogus=1")
[ "$(status_of "$r")" = 400 ] || fail "DELETE with bogus: $r"
r=$(api POST "/v1/profiles?scope=wk&bogus=1&format=folded" --data-binary 'x;y 1')
[ "$(status_of "$r")" = 400 ] || fail "POST /v1/profiles with bogus: $r"
r=$(api POST "/ingest?name=wk.cpu&bogus=1" --data-binary 'x;y 1')
[ "$(status_of "$r")" = 400 ] && body_of "$r" | has "bogus: not a parameter of /ingest" ||
    fail "/ingest with bogus: $r"
[ "$(api GET "/v1/scopes" | sed '$d')" = "$before" ] ||
    fail "a refused request changed the store"
r=$(api POST "/v1/query?bogus=1" --data-binary 'SELECT 1')
[ "$(status_of "$r")" = 400 ] || fail "/v1/query with bogus: $r"
r=$(api PUT "/v1/uploads?id=00000000000000000000000000000000&offset=0&bogus=1" --data-binary x)
[ "$(status_of "$r")" = 400 ] || fail "PUT /v1/uploads with bogus: $r"
# A Connect call: Connect's error.
r=$(api POST "/querier.v1.QuerierService/ProfileTypes?bogus=1" \
    -H 'Content-Type: application/json' --data-binary '{}')
[ "$(status_of "$r")" = 400 ] &&
    [ "$(body_of "$r" | json 'j["code"]')" = invalid_argument ] ||
    fail "a Connect call with bogus: $r"
ok "DELETE, POST /v1/profiles, /ingest, /v1/query, PUT /v1/uploads and Connect refuse it too, storing nothing"

# What Pyroscope documents is taken whole: /ingest's eight parameters,
# render's groupBy; the UI's page takes any.
r=$(api POST "/ingest?name=pyro.cpu&from=$T0&until=$((T0 + 10))&format=folded&sampleRate=100&spyName=gospy&units=samples&aggregationType=sum" \
    --data-binary 'main;x 3')
[ "$(status_of "$r")" = 200 ] || fail "/ingest with Pyroscope's parameters: $r"
r=$(api GET "/pyroscope/render?query=process_cpu:cpu:nanoseconds:cpu:nanoseconds%7Bservice_name%3D%22pyro%22%7D&from=$T0&until=$((T0 + 60))&format=json&maxNodes=16&groupBy=env")
[ "$(status_of "$r")" = 200 ] || fail "render with groupBy: $r"
[ "$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" \
    "http://localhost/ui/?scope=wk&view=top&anything=1")" = 200 ] ||
    fail "the UI's page with its state in the query"
ok "Pyroscope's documented parameters and the UI's query are taken"

# profctl profiles: every page (two of profctl's 1000), a window, a label,
# --limit.
"$PROFCTL" profiles --scope wk >"$T/all.txt" || fail "profctl profiles"
[ "$(sed 1d "$T/all.txt" | wc -l)" = $((N + 2)) ] ||
    fail "profctl profiles printed $(sed 1d "$T/all.txt" | wc -l) rows"
[ "$(sed 1d "$T/all.txt" | awk '{print $1}' | sort -n | uniq | wc -l)" = $((N + 2)) ] ||
    fail "profctl profiles repeated a row"
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
"$PROFCTL" profiles --scope wk --since "$(iso $((T0 + 600)))" \
    --until "$(iso $((T0 + 1200)))" --label env=dev >"$T/win.txt" ||
	fail "profctl profiles --since --until --label"
# i in [10, 20], odd, not i % 7 == 3: 11, 13, 15, 19 (ids i + 1).
[ "$(sed 1d "$T/win.txt" | awk '{print $1}' | tr '\n' ' ')" = "12 14 16 20 " ] ||
	fail "the window's dev profiles: $(cat "$T/win.txt")"
sed 1d "$T/win.txt" | awk '$NF != "env=dev" { exit 1 }' ||
	fail "a row without env=dev: $(cat "$T/win.txt")"
"$PROFCTL" profiles --scope wk --metric inuse_space --limit 3 >"$T/lim.txt" ||
	fail "profctl profiles --metric --limit"
[ "$(sed 1d "$T/lim.txt" | awk '{print $1}' | tr '\n' ' ')" = "1 11 21 " ] ||
	fail "--metric inuse_space --limit 3: $(cat "$T/lim.txt")"
"$PROFCTL" profiles --scope wk --limit 1001 --json >"$T/lim.json" ||
	fail "profctl profiles --limit --json"
[ "$(json 'len(j["profiles"]), "next_cursor" in j' <"$T/lim.json")" = "(1001, True)" ] ||
	fail "--limit 1001 --json: $(json 'len(j["profiles"])' <"$T/lim.json") rows"
if "$PROFCTL" profiles --scope wk --since yesterday >"$T/bad.txt" 2>&1; then
	fail "--since yesterday was taken"
fi
has 'since' "$T/bad.txt" || fail "--since yesterday: $(cat "$T/bad.txt")"
ok "profctl profiles: all $((N + 2)) over its pages, --since/--until/--label, --metric --limit, --json"
