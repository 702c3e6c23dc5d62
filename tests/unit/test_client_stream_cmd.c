/* test_client_stream_cmd.c: profctl query, traces (and peek, which shares
 * its path) printing a reply as it streams in from a fake profd, chunked
 * and sent a few bytes at a time: what they print and return equals what
 * the whole-reply path printed and returned (clientref.h); and replies
 * that go wrong part way (the connection closed early, profd's error at
 * the end, text that stops being JSON) say so, exit non-zero and print no
 * half row or half line. */
#include <stdarg.h>

#include "alloc.h"
#include "clientref.h"
#include "clientsrv.h"

static struct client	 c;

/* The reply: a head, then body in chunks of size bytes; with cut, only
 * its first cut bytes and no end, as a connection closed early. */
static char *
chunked(const char *ctype, const char *body, size_t len, size_t size,
    size_t cut, size_t *rlen)
{
	FILE	*f;
	char	*r = NULL;
	size_t	 off, k, end = cut != 0 ? cut : len;

	f = open_memstream(&r, rlen);
	fprintf(f, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", ctype);
	for (off = 0; off < end; off += k) {
		k = len - off < size ? len - off : size;
		fprintf(f, "%zx\r\n", k);
		fwrite(body + off, 1, off + k > end ? end - off : k, f);
		if (off + k > end)
			break;
		fputs("\r\n", f);
	}
	if (cut == 0)
		fputs("0\r\n\r\n", f);
	fclose(f);
	return r;
}

/* Run e with the arguments (NULL-terminated) against reply, sent step
 * bytes at a time. */
static struct captured
run(const struct cmd_entry *e, const char *reply, size_t rlen, size_t step,
    ...)
{
	struct captured	 r;
	va_list		 ap;
	char		*argv[16];
	const char	*a;
	int		 argc = 0, before, i;

	argv[argc++] = xstrdup(e->name);
	va_start(ap, step);
	while ((a = va_arg(ap, const char *)) != NULL)
		argv[argc++] = xstrdup(a);
	va_end(ap);
	argv[argc] = NULL;
	srv.reply = reply;
	srv.reply_len = rlen;
	srv.step = step;
	before = __atomic_load_n(&srv.n, __ATOMIC_ACQUIRE);
	r = run_cmd(e, &c, argc, argv);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	/* Until the server is done with it (a usage error asks nothing). */
	for (i = 0; i < 100000 && __atomic_load_n(&srv.n, __ATOMIC_ACQUIRE) <=
	    before; i++)
		usleep(100);
	if (i == 100000) {
		fprintf(stderr, "FAIL %s asked nothing: %s", e->name, r.err);
		exit(1);
	}
	return r;
}

static void
free_captured(struct captured *r)
{
	free(r->out);
	free(r->err);
}

/* traces' text: every body, cut into chunks and writes of every size,
 * prints what the whole-reply path printed, where it printed it. */
static void
test_text(void)
{
	static const struct { const char *p; size_t n; } bodies[] = {
#define B(s) { s, sizeof s - 1 }
		B(""), B("a\n"), B("a"), B("\n\n"), B("profd: x\n"),
		B("Scope: s\n-----\n   main\nprofd: timeout: the query ran "
		    "longer\n"),
		B("a\nprofd: x\n\n\n"), B("a\nprofd: x"), B("profd: "),
		B("profd:"), B("a\n\nprofd: e\nb\n"), B("pro\nfd: \n"),
		B("x\0y\nprofd: a\0b\n"), B("\r\nprofd: x\r\n"),
		B("-----\n\n\nprofd: internal: z\n\n"), B("profd: a\nprofd: b\n"),
		B("profd: a\n\n"), B("\n\nprofd: a\n"), B("abc\n\n\ndef")
#undef B
	};
	static const size_t	 sizes[] = { 1, 3, 7, 64 };
	struct captured		 r;
	FILE			*fo, *fe;
	char			*reply, *out, *err, what[64];
	size_t			 i, k, rlen, olen, elen;
	int			 rc;

	for (i = 0; i < sizeof bodies / sizeof *bodies; i++) {
		fo = open_memstream(&out, &olen);
		fe = open_memstream(&err, &elen);
		rc = ref_text(fo, fe, bodies[i].p, bodies[i].n);
		fclose(fo);
		fclose(fe);
		for (k = 0; k < sizeof sizes / sizeof *sizes; k++) {
			reply = chunked("text/plain", bodies[i].p, bodies[i].n,
			    sizes[k], 0, &rlen);
			if (k % 2)
				r = run(&cmd_traces_entry, reply, rlen, 1 + k *
				    2, "--scope", "s", NULL);
			else
				r = run(&cmd_peek_entry, reply, rlen, 1 + k * 2,
				    "--scope", "s", "main", NULL);
			snprintf(what, sizeof what, "text %zu/%zu", i, sizes[k]);
			assert(r.rc == rc);
			/* The bytes, NULs and all. */
			assert(strlen(r.out) == strlen(out));
			expect_str(what, r.out, out);
			expect_str(what, r.err, err);
			free_captured(&r);
			free(reply);
		}
		free(out);
		free(err);
	}
}

/* profd's /v1/query reply for n rows of (x, pad, r, s). */
static char *
query_body(int n, const char *end)
{
	FILE	*f;
	char	*b = NULL;
	size_t	 len;
	int	 i;

	f = open_memstream(&b, &len);
	fputs("{\"columns\":[\"x\",\"pad\",\"r\",\"s\"],\"rows\":[", f);
	for (i = 1; i <= n; i++)
		fprintf(f, "%s[%d,\"%0*d\",%.17g,%s]", i > 1 ? "," : "", i,
		    i % 37, 0, i * 1.5, i % 3 ? "\"a,b\\\"c\\u00e9\"" :
		    "null");
	fprintf(f, "],\"truncated\":false,\"elapsed_ms\":1.5%s}\n", end);
	fclose(f);
	return b;
}

/* query as a table, CSV and JSON: what the whole-reply path printed. */
static void
test_query(void)
{
	struct captured	 r;
	json_t		*j;
	FILE		*f;
	char		*body, *reply, *want, *cause = NULL;
	size_t		 rlen, wlen;

	body = query_body(2000, "");
	j = json_loads(body, JSON_ALLOW_NUL, NULL);
	assert(j != NULL);
	reply = chunked("application/json", body, strlen(body), 1000, 0,
	    &rlen);

	f = open_memstream(&want, &wlen);
	assert(ref_query_table(f, j, &cause) == 0);
	fclose(f);
	r = run(&cmd_query_entry, reply, rlen, 777, "SELECT", NULL);
	assert(r.rc == 0);
	expect_str("table", r.out, want);
	expect_str("table rows", r.err, "(2000 rows)\n");
	expect_str("table request", srv.line, "POST /v1/query HTTP/1.1");
	expect_str("table SQL", srv.body, "SELECT");
	free_captured(&r);
	free(want);

	f = open_memstream(&want, &wlen);
	assert(ref_query_csv(f, j, &cause) == 0);
	fclose(f);
	r = run(&cmd_query_entry, reply, rlen, 333, "--csv", "SELECT", NULL);
	assert(r.rc == 0);
	expect_str("csv", r.out, want);
	expect_str("csv err", r.err, "");
	free_captured(&r);
	free(want);

	f = open_memstream(&want, &wlen);
	ref_json(f, j);
	fclose(f);
	r = run(&cmd_query_entry, reply, rlen, 555, "--json", "SELECT", NULL);
	assert(r.rc == 0);
	expect_str("json", r.out, want);
	expect_str("json err", r.err, "");
	free_captured(&r);
	free(want);
	json_decref(j);
	free(reply);
	free(body);
}

/* A reply that goes wrong part way. */
static void
test_broken(void)
{
	struct captured	 r;
	json_t		*j;
	FILE		*f;
	char		*body, *reply, *want, *p, msg[512];
	size_t		 rlen, wlen, cut;

	/* The connection closes in the middle of row 3's text. */
	body = query_body(5, "");
	cut = (size_t)(strstr(body, "[3,") - body) + 5;
	reply = chunked("application/json", body, strlen(body), 16, cut,
	    &rlen);
	r = run(&cmd_query_entry, reply, rlen, 5, "--csv", "SELECT", NULL);
	assert(r.rc == PROFCTL_EXIT_USAGE);
	expect_str("cut csv", r.out, "x,pad,r,s\r\n"
	    "1,0,1.5,\"a,b\"\"c\xc3\xa9\"\r\n"
	    "2,00,3,\"a,b\"\"c\xc3\xa9\"\r\n");
	snprintf(msg, sizeof msg, "profctl: lost connection to profd at %s: "
	    "the reply ended %zu bytes into a chunk of 16 bytes\n", sock,
	    cut % 16);
	expect_str("cut csv err", r.err, msg);
	free_captured(&r);
	r = run(&cmd_query_entry, reply, rlen, 5, "SELECT", NULL);
	assert(r.rc == PROFCTL_EXIT_USAGE);
	expect_str("cut table", r.out, "");
	expect_str("cut table err", r.err, msg);
	free_captured(&r);
	r = run(&cmd_query_entry, reply, rlen, 5, "--json", "SELECT", NULL);
	assert(r.rc == PROFCTL_EXIT_USAGE);
	/* Up to the end of row 2. */
	p = strstr(r.out, "    [\n      3,");
	assert(p == NULL);
	assert(r.out[strlen(r.out) - 1] == ']');
	free_captured(&r);
	free(reply);
	free(body);

	/* The text stops being JSON after row 2. */
	body = query_body(5, "");
	p = strstr(body, ",[3,");
	*p = '}';
	reply = chunked("application/json", body, strlen(body), 16, 0, &rlen);
	r = run(&cmd_query_entry, reply, rlen, 9, "--csv", "SELECT", NULL);
	assert(r.rc == PROFCTL_EXIT_REFUSED);
	expect_str("not JSON csv", r.out, "x,pad,r,s\r\n"
	    "1,0,1.5,\"a,b\"\"c\xc3\xa9\"\r\n"
	    "2,00,3,\"a,b\"\"c\xc3\xa9\"\r\n");
	snprintf(msg, sizeof msg, "profctl: unexpected reply from profd (not "
	    "JSON: ',' or ']' expected at byte %zu)\n", (size_t)(p - body));
	expect_str("not JSON err", r.err, msg);
	free_captured(&r);
	free(reply);
	free(body);

	/* profd's error at the end: said, exit 1; the table prints nothing,
	 * CSV and JSON what came before it. */
	body = query_body(2, ",\"status\":413,\"error\":\"too large\","
	    "\"detail\":\"the reply reached its size limit\"");
	reply = chunked("application/json", body, strlen(body), 50, 0, &rlen);
	r = run(&cmd_query_entry, reply, rlen, 7, "SELECT", NULL);
	assert(r.rc == PROFCTL_EXIT_REFUSED);
	expect_str("cut short table", r.out, "");
	expect_str("cut short table err", r.err, "profctl: query: too large: "
	    "the reply reached its size limit (the reply was cut short; "
	    "nothing printed)\n");
	free_captured(&r);
	r = run(&cmd_query_entry, reply, rlen, 7, "--csv", "SELECT", NULL);
	assert(r.rc == PROFCTL_EXIT_REFUSED);
	expect_str("cut short csv", r.out, "x,pad,r,s\r\n"
	    "1,0,1.5,\"a,b\"\"c\xc3\xa9\"\r\n"
	    "2,00,3,\"a,b\"\"c\xc3\xa9\"\r\n");
	expect_str("cut short csv err", r.err, "profctl: query: too large: "
	    "the reply reached its size limit (the reply was cut short; the "
	    "2 rows before it were printed)\n");
	free_captured(&r);
	j = json_loads(body, 0, NULL);
	f = open_memstream(&want, &wlen);
	ref_json(f, j);
	fclose(f);
	json_decref(j);
	r = run(&cmd_traces_entry, reply, rlen, 7, "--scope", "s", "--json",
	    NULL);
	assert(r.rc == PROFCTL_EXIT_REFUSED);
	expect_str("cut short json", r.out, want);
	expect_str("cut short json err", r.err, "profctl: too large: the reply "
	    "reached its size limit (the reply was cut short; printed as it "
	    "came)\n");
	free_captured(&r);
	free(want);
	free(reply);
	free(body);

	/* A traces text cut in the middle of a line: whole lines only. */
	body = xstrdup("Scope: s\n-----\n    main.a\n    main.b\n");
	reply = chunked("text/plain", body, strlen(body), 8, 30, &rlen);
	r = run(&cmd_traces_entry, reply, rlen, 3, "--scope", "s", NULL);
	assert(r.rc == PROFCTL_EXIT_USAGE);
	expect_str("cut text", r.out, "Scope: s\n-----\n    main.a\n");
	free_captured(&r);
	free(reply);
	free(body);

	/* An error status is an error reply, as before. */
	reply = json_reply(413, "Payload Too Large", "{\"error\": \"too "
	    "large\", \"detail\": \"max_bytes = 2000\"}");
	r = run(&cmd_query_entry, reply, 0, 0, "SELECT", NULL);
	assert(r.rc == PROFCTL_EXIT_REFUSED);
	expect_str("413", r.out, "");
	expect_str("413 err", r.err, "profctl: too large: max_bytes = 2000\n");
	free_captured(&r);
	free(reply);
}

int
main(void)
{
	srv_start();
	srv.mode = SRV_CLOSE;
	memset(&c, 0, sizeof c);
	c.socket = xstrdup(sock);
	test_text();
	test_query();
	test_broken();
	client_free(&c);
	srv_stop();
	return finish();
}
