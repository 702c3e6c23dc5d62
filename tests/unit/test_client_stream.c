/* test_client_stream.c: replies read as they stream in (jstream.c,
 * render-json.c, render-query.c) held against the whole-reply renderers
 * they replaced (clientref.h) on the same text, fed in pieces of every
 * size: generated /v1/query replies as a table, as CSV and as --json
 * prints them, generated JSON of other shapes as --json prints it, and
 * texts a byte away from JSON, which both must refuse alike. */
#include <stdint.h>

#include "alloc.h"
#include "clientref.h"

static uint64_t	 seed = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: the same texts every run. */
static uint32_t
rnd(uint32_t n)
{
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return (uint32_t)((seed * 0x2545f4914f6cdd1dULL) >> 32) % n;
}

/* A string of pieces that matter to a table, CSV and JSON. */
static json_t *
gen_string(void)
{
	static const char *const parts[] = { "a", "main.f", ",", "\"", " ",
	    "\n", "\r", "\t", "\\", "/", "\xc3\xa9", "\xe6\x97\xa5", "\x01",
	    "\x7f", "NULL", "x y", "0", "-1", "\xf0\x9f\x94\xa5" };
	char	 buf[128];
	size_t	 n = 0, i;

	for (i = rnd(5); i > 0; i--) {
		const char *p = parts[rnd(sizeof parts / sizeof *parts)];

		memcpy(buf + n, p, strlen(p));
		n += strlen(p);
	}
	/* profd writes a NUL in a SQL value as \u0000. */
	if (rnd(20) == 0)
		buf[n++] = '\0';
	return json_stringn(buf, n);
}

static json_t *
gen_scalar(void)
{
	static const double	 reals[] = { 0.5, 1.5, 1e300, -2.25e-10, 100.0,
	    0.1, 1.0 / 3, -0.0, 123456789.125, 4e-320 };

	switch (rnd(9)) {
	case 0:
	case 1:
		return json_integer((json_int_t)rnd(2000) - 1000);
	case 2:
		return json_integer((json_int_t)(((uint64_t)rnd(UINT32_MAX) <<
		    32) | rnd(UINT32_MAX)));
	case 3:
		return json_real(reals[rnd(sizeof reals / sizeof *reals)]);
	case 4:
	case 5:
		return gen_string();
	case 6:
		return json_null();
	default:
		return json_boolean(rnd(2));
	}
}

static json_t *
gen_value(int depth)
{
	json_t	*v;
	char	 key[16];
	int	 i, n;

	if (depth <= 0 || rnd(3) != 0)
		return gen_scalar();
	n = (int)rnd(4);
	if (rnd(2) == 0) {
		v = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(v, gen_value(depth - 1));
		return v;
	}
	v = json_object();
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof key, "%s%d", rnd(4) == 0 ? "\xc3\xa9\\\"" :
		    "k", (int)rnd(6));
		json_object_set_new(v, key, gen_value(depth - 1));
	}
	return v;
}

/* A reply of /v1/query, now and then a malformed one or one cut short. */
static json_t *
gen_query(void)
{
	json_t	*q, *cols, *rows, *row;
	int	 nc, nr, i, c, n;

	q = json_object();
	cols = json_array();
	nc = (int)rnd(5);
	for (c = 0; c < nc; c++) {
		if (rnd(10) == 0)
			json_array_append_new(cols, rnd(2) ? json_pack("{s:o}",
			    "name", gen_string()) : gen_scalar());
		else
			json_array_append_new(cols, gen_string());
	}
	rows = json_array();
	nr = (int)rnd(14);
	for (i = 0; i < nr; i++) {
		if (rnd(60) == 0) {
			json_array_append_new(rows, gen_scalar());
			continue;
		}
		row = json_array();
		n = nc + (int)rnd(3) - 1;
		for (c = 0; c < n; c++)
			json_array_append_new(row, gen_value(rnd(8) == 0));
		json_array_append_new(rows, row);
	}
	if (rnd(40) != 0)
		json_object_set_new(q, "columns", cols);
	else
		json_decref(cols);
	if (rnd(40) != 0)
		json_object_set_new(q, "rows", rows);
	else
		json_decref(rows);
	json_object_set_new(q, "truncated", json_boolean(rnd(3) == 0));
	json_object_set_new(q, "elapsed_ms", json_real(rnd(100000) / 1e3));
	if (rnd(8) == 0) {
		json_object_set_new(q, "status", json_integer(413));
		json_object_set_new(q, "error", json_string("too large"));
		json_object_set_new(q, "detail", gen_string());
	}
	return q;
}

/* The text of v as one of the writers profd or a proxy might be. */
static char *
gen_text(json_t *v)
{
	static const size_t	 flags[] = { JSON_COMPACT, 0, JSON_INDENT(1),
	    JSON_INDENT(4), JSON_COMPACT | JSON_ENSURE_ASCII,
	    JSON_INDENT(2) | JSON_ENSURE_ASCII };

	return json_dumps(v, flags[rnd(sizeof flags / sizeof *flags)]);
}

/* What a stream printed, fed text in pieces of random size (or whole);
 * *rc the feed's or the end's. */
static char *
stream(client_feed_fn fn, void *arg, FILE *f, char **out, const char *text,
    size_t len, int *rc, char **cause)
{
	size_t	 off, k, max = rnd(3) == 0 ? len : 1 + rnd(40);

	*cause = NULL;
	*rc = 0;
	for (off = 0; off < len && *rc == 0; off += k) {
		k = 1 + rnd((uint32_t)max);
		if (k > len - off)
			k = len - off;
		*rc = fn(arg, text + off, k, cause);
	}
	if (*rc == 0)
		*rc = fn(arg, NULL, 0, cause);
	fclose(f);
	return *out;
}

/* --json: the streamed text is render_json's. */
static void
check_json(const char *what, json_t *j, const char *text)
{
	struct render_json_stream	*s;
	FILE				*f;
	char				*want = NULL, *got = NULL, *cause;
	size_t				 n = 0;
	int				 rc;

	f = open_memstream(&want, &n);
	ref_json(f, j);
	fclose(f);
	f = open_memstream(&got, &n);
	s = render_json_stream_new(f);
	stream(render_json_stream_feed, s, f, &got, text, strlen(text), &rc,
	    &cause);
	render_json_stream_free(s);
	if (rc != 0)
		fprintf(stderr, "%s: %s\n%s\n", what, cause, text);
	assert(rc == 0);
	expect_str(what, got, want);
	free(want);
	free(got);
}

/* The table and CSV of a reply, streamed, against the whole-reply ones:
 * the same text and the same error; where the CSV now goes first (a row
 * that is not one, a reply cut short by profd) what it printed is whole
 * lines of the reference. */
static void
check_query(json_t *j, const char *text)
{
	struct render_query	*q;
	const char		*e, *d;
	FILE			*f;
	char			*want = NULL, *got = NULL, *wcause = NULL;
	char			*gcause;
	size_t			 n;
	int			 csv, wrc, grc, failed;

	failed = json_is_string(json_object_get(j, "error"));
	for (csv = 0; csv < 2; csv++) {
		f = open_memstream(&want, &n);
		wrc = csv ? ref_query_csv(f, j, &wcause) :
		    ref_query_table(f, j, &wcause);
		fclose(f);
		f = open_memstream(&got, &n);
		q = render_query_new(f, csv);
		stream(render_query_feed, q, f, &got, text, strlen(text), &grc,
		    &gcause);
		assert(render_query_failed(q, &e, &d) == failed);
		if (failed) {
			/* Nothing in a table; the rows before it as CSV. */
			assert(grc == 0);
			if (!csv)
				expect_str("cut short: table", got, "");
			else if (wrc == 0)
				expect_str("cut short: csv", got, want);
		} else if (wrc == 0) {
			if (grc != 0)
				fprintf(stderr, "%s\n%s\n", gcause, text);
			assert(grc == 0);
			expect_str(csv ? "csv" : "table", got, want);
		} else {
			assert(grc == -1);
			expect_str("the error", gcause, wcause);
			if (!csv)
				expect_str("a table that fails", got, "");
			else
				assert(strlen(got) == 0 || (got[strlen(got) -
				    1] == '\n' && strncmp(got, want,
				    strlen(got)) == 0) || *want == '\0');
		}
		render_query_free(q);
		free(want);
		free(got);
		free(wcause);
		free(gcause);
		want = got = wcause = NULL;
	}
}

/* Is text JSON for the stream exactly when it is for json_loadb? */
static void
check_valid(const char *what, const char *text, size_t len)
{
	struct render_json_stream	*s;
	json_t				*j;
	FILE				*f;
	char				*out = NULL, *cause;
	size_t				 n;
	int				 rc;

	j = json_loadb(text, len, JSON_ALLOW_NUL, NULL);
	f = open_memstream(&out, &n);
	s = render_json_stream_new(f);
	stream(render_json_stream_feed, s, f, &out, text, len, &rc, &cause);
	render_json_stream_free(s);
	if ((j != NULL) != (rc == 0)) {
		failures++;
		fprintf(stderr, "FAIL %s: jansson %s, stream %s: [%.*s]\n",
		    what, j != NULL ? "takes" : "refuses", rc == 0 ? "takes" :
		    cause, len > 200 ? 200 : (int)len, text);
	}
	if (rc != 0)
		assert(cause != NULL && strncmp(cause, "unexpected reply from "
		    "profd (not JSON: ", 37) == 0);
	if (j != NULL)
		json_decref(j);
	free(out);
	free(cause);
}

/* A text a byte away: one replaced, inserted or taken out. */
static size_t
mutate(char *p, size_t len)
{
	static const char	 bytes[] = "{}[],:\"\\01-.e+tnfa \n\t\r\x80\xff";
	size_t			 at = rnd((uint32_t)len + 1);
	char			 c = bytes[rnd(sizeof bytes)];

	switch (rnd(3)) {
	case 0:
		if (at < len) {
			p[at] = c;
			return len;
		}
		/* FALLTHROUGH */
	case 1:
		memmove(p + at + 1, p + at, len - at);
		p[at] = c;
		return len + 1;
	default:
		if (at < len) {
			memmove(p + at, p + at + 1, len - at - 1);
			return len - 1;
		}
		return len;
	}
}

static void
test_fixed(void)
{
	static const char *const valid[] = { "{}", "[]", " {} \n", "[[],{}]",
	    "{\"a\":[],\"b\":{},\"c\":[[]],\"d\":{\"e\":{}}}",
	    "[1,-0,0.5e10,1E-2,true,false,null,\"\\u00e9\\n\\u0000\"]",
	    "{\"columns\":[\"n\"],\"rows\":[[1],[2.50],[\"\\ud83d\\ude00\"]]}",
	    "\t[\r\n1 , 2 ]\n" };
	static const char *const invalid[] = { "", " ", "{", "[1,]", "[,1]",
	    "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{1:2}", "{} {}", "{}x",
	    "[01]", "[1.]", "[-]", "[truex]", "[1 2]", "[\"a\" \"b\"]",
	    "\"top\"", "1", "[\"\\x\"]", "[\"\x01\"]", "[\"\xc3\"]",
	    "{\"a\\u0000\":1}", "[99999999999999999999]", "[1e999]",
	    "\xef\xbb\xbf{}", "[}", "{]", "[[[[]]]" };
	char	*deep;
	size_t	 i, d;

	for (i = 0; i < sizeof valid / sizeof *valid; i++) {
		json_t *j = json_loads(valid[i], JSON_ALLOW_NUL, NULL);

		assert(j != NULL);
		check_json(valid[i], j, valid[i]);
		check_valid(valid[i], valid[i], strlen(valid[i]));
		json_decref(j);
	}
	for (i = 0; i < sizeof invalid / sizeof *invalid; i++)
		check_valid(invalid[i], invalid[i], strlen(invalid[i]));
	/* jansson's depth limit, whole or in pieces. */
	deep = xmalloc(2 * 2100 + 1);
	for (d = JSON_PARSER_MAX_DEPTH - 1; d <= JSON_PARSER_MAX_DEPTH + 1;
	    d++) {
		memset(deep, '[', d);
		memset(deep + d, ']', d);
		check_valid("deep arrays", deep, 2 * d);
	}
	free(deep);
}

static void
test_generated(void)
{
	json_t	*j;
	char	*text, *m;
	size_t	 len;
	int	 i, k;

	for (i = 0; i < 3000; i++) {
		j = gen_query();
		text = gen_text(j);
		check_query(j, text);
		check_json("query --json", j, text);
		json_decref(j);
		free(text);

		j = rnd(2) ? json_array() : json_object();
		for (k = (int)rnd(5); k > 0; k--) {
			if (json_is_array(j))
				json_array_append_new(j, gen_value(5));
			else
				json_object_set_new(j, rnd(2) ? "a" : "b",
				    gen_value(5));
		}
		text = gen_text(j);
		check_json("any --json", j, text);
		len = strlen(text);
		m = xmalloc(len + 2);
		memcpy(m, text, len);
		len = mutate(m, len);
		check_valid("a byte away", m, len);
		free(m);
		json_decref(j);
		free(text);
	}
}

int
main(void)
{
	test_fixed();
	test_generated();
	return finish();
}
