/* test_folded.c: the folded-stacks decoder and sniffer.  A recording sink
 * keeps what was emitted; stacks are turned back into "root;...;leaf" text
 * and flat/cum per function so the tests compare against values computed
 * independently from the input text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <zlib.h>

#include "alloc.h"
#include "bounds.h"
#include "buf.h"
#include "error.h"
#include "folded.h"
#include "format.h"
#include "model.h"
#include "mstr.h"
#include "nitems.h"
#include "stream.h"
#include "testrec.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

/* Folded's own checks on what reaches the recording sink: functions are
 * bare distinct names, frames bare functions, one value per sample, and
 * no mappings or labels. */
static void
fld_check_mapping(const struct rec *r, const struct model_mapping *m)
{
	CHECK(!"folded emits no mappings");
}

static void
fld_check_function(const struct rec *r, const struct model_function *f)
{
	size_t i;

	CHECK(mstr_eq(f->name, f->system_name));
	CHECK(f->file.n == 0 && f->start_line == 0);
	CHECK(f->name.n > 0);
	/* Each distinct name is emitted once. */
	for (i = 0; i < r->nfuncs; i++)
		CHECK(!mstr_eqs(f->name, r->funcs[i].name));
}

static void
fld_check_frame(const struct rec *r, const struct model_frame *f)
{
	CHECK(f->function > 0);
	CHECK(f->mapping == 0 && f->address == 0 && f->line == 0 &&
	    f->flags == 0);
}

static void
fld_check_labelset(const struct rec *r, const struct model_label *l,
    size_t n)
{
	CHECK(!"folded emits no labels");
}

static void
fld_check_sample(const struct rec *r, const struct model_sample *s)
{
	CHECK(s->stack > 0);
	CHECK(s->labelset == 0 && s->time_ns == 0);
	CHECK(s->nvalues == 1 && s->values != NULL);
}

static const struct rec_hooks fld_hooks = {
	.mapping = fld_check_mapping,
	.function = fld_check_function,
	.frame = fld_check_frame,
	.labelset = fld_check_labelset,
	.sample = fld_check_sample,
};

/* ---- running the decoder ---- */

static int
decode_full(const void *text, size_t n, const struct limits *lim,
    const struct decode_opts *opts, int drip, struct rec *r,
    struct error *err)
{
	struct sink sink = rec_attach(r);
	struct limits deflim;
	struct decode_opts defopts;
	struct drip d = { text, n, 1 };
	struct stream_source src = { drip_read, NULL, &d };
	struct stream *in;
	int rc;

	if (lim == NULL) {
		bounds_default(&deflim);
		lim = &deflim;
	}
	if (opts == NULL) {
		memset(&defopts, 0, sizeof defopts);
		opts = &defopts;
	}
	r->hooks = &fld_hooks;
	error_clear(err);
	in = drip ? stream_new(&src) : stream_mem(text, n);
	rc = folded_decode(in, opts, lim, &sink, err);
	stream_free(in);
	CHECK(!r->bad_order);
	if (rc == 0) {
		CHECK(err->kind == ERR_NONE);
		CHECK(r->nmeta == 1);
		CHECK(r->nmetrics == 1);
		CHECK(r->meta.time_ns == 0 && r->meta.default_metric == 0);
		CHECK(r->meta.samples == r->nsamples);
		CHECK(r->meta.dropped_samples == 0);
	} else {
		CHECK(rc == -1);
		CHECK(err->kind != ERR_NONE && err->msg[0] != '\0');
		CHECK(r->nmeta == 0);
	}
	return rc;
}

static int
decode(const char *text, struct rec *r, struct error *err)
{
	return decode_full(text, strlen(text), NULL, NULL, 0, r, err);
}

/* The recorded stack of sample i as "root;...;leaf". */
static char *
stack_text(const struct rec *r, size_t i)
{
	const struct rstack *s = &r->stacks[r->samples[i].stack - 1];
	struct buf b = { 0 };
	size_t j;

	for (j = s->n; j-- > 0;) {
		int64_t fn = r->frames[s->ids[j] - 1].function;
		const char *name = r->funcs[fn - 1].name;

		buf_add(&b, name, strlen(name));
		if (j > 0)
			buf_add(&b, ";", 1);
	}
	buf_add(&b, "", 1);
	return (char *)b.p;
}

/* The sum of the values of the samples whose stack is text. */
static int64_t
stack_sum(const struct rec *r, const char *text)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < r->nsamples; i++) {
		char *s = stack_text(r, i);

		if (STREQ(s, text))
			sum += r->samples[i].values[0];
		free(s);
	}
	return sum;
}

static int
has_func(const struct rec *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nfuncs; i++)
		if (STREQ(r->funcs[i].name, name))
			return 1;
	return 0;
}

/* ---- flat and cum ---- */

struct fc {
	char		*name[32];
	int64_t		 flat[32], cum[32];
	size_t		 n;
};

static size_t
fc_slot(struct fc *t, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strlen(t->name[i]) == len &&
		    memcmp(t->name[i], name, len) == 0)
			return i;
	CHECK(t->n < NITEMS(t->name));
	t->name[t->n] = xstrndup(name, len);
	t->flat[t->n] = t->cum[t->n] = 0;
	return t->n++;
}

/* Add one stack (root;...;leaf) with its count: cum once per stack. */
static void
fc_add(struct fc *t, const char *stack, int64_t v)
{
	int seen[32] = { 0 };
	const char *p = stack, *semi;
	size_t k;

	for (;;) {
		semi = strchr(p, ';');
		k = fc_slot(t, p, semi ? (size_t)(semi - p) : strlen(p));
		if (!seen[k]) {
			seen[k] = 1;
			t->cum[k] += v;
		}
		if (semi == NULL) {
			t->flat[k] += v;
			break;
		}
		p = semi + 1;
	}
}

/* Straight from the text: "stack count" lines, split at the last space. */
static void
fc_from_text(struct fc *t, const char *text)
{
	char *copy = xstrdup(text), *line, *save = NULL, *sp;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		sp = strrchr(line, ' ');
		CHECK(sp != NULL);
		*sp = '\0';
		fc_add(t, line, strtoll(sp + 1, NULL, 10));
	}
	free(copy);
}

static void
fc_from_rec(struct fc *t, const struct rec *r)
{
	size_t i;

	for (i = 0; i < r->nsamples; i++) {
		char *s = stack_text(r, i);

		fc_add(t, s, r->samples[i].values[0]);
		free(s);
	}
}

static void
fc_free(struct fc *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->name[i]);
	t->n = 0;
}

/* ---- tests ---- */

static void
test_basic(void)
{
	const char *in = "main;serve;parse 42\nmain;serve 8\n"
	    "main;serve;parse 10\n";
	struct error err;
	struct rec r = { 0 };
	const struct rstack *s;

	CHECK(decode(in, &r, &err) == 0);
	CHECK(STREQ(r.mtype[0], "samples") && STREQ(r.munit[0], "count"));
	CHECK(r.nfuncs == 3 && r.nframes == 3);
	CHECK(STREQ(r.funcs[0].name, "main") && STREQ(r.funcs[2].name, "parse"));
	CHECK(r.nsamples == 3 && r.meta.samples == 3);
	/* Leaf first. */
	s = &r.stacks[r.samples[0].stack - 1];
	CHECK(s->n == 3);
	CHECK(r.frames[s->ids[0] - 1].function == 3);	/* parse */
	CHECK(r.frames[s->ids[2] - 1].function == 1);	/* main */
	/* Repeated lines add up. */
	CHECK(stack_sum(&r, "main;serve;parse") == 52);
	CHECK(stack_sum(&r, "main;serve") == 8);
	rec_free(&r);

	/* The same, read a few bytes at a time. */
	CHECK(decode_full(in, strlen(in), NULL, NULL, 1, &r, &err) == 0);
	CHECK(r.nfuncs == 3 && r.nsamples == 3);
	CHECK(stack_sum(&r, "main;serve;parse") == 52);
	rec_free(&r);
}

static void
test_names(void)
{
	const char *in =
	    "java main;Foo.bar (Foo.java:12);sun.misc.Unsafe.park 5\n"
	    "swapper_[k];do_idle_[k];cpu_startup_entry_[k] 3\n"
	    "java;Interpreter_[j];a; b 2\n"
	    "na\xc3\xafve;\xe5\x87\xbd\xe6\x95\xb0 4\n"
	    "x\ty z\t6\n"
	    "  lead;trail  \t 7  \n"
	    "zero 0\n"
	    "max 9223372036854775807\n";
	struct error err;
	struct rec r = { 0 };

	CHECK(decode(in, &r, &err) == 0);
	CHECK(stack_sum(&r, "java main;Foo.bar (Foo.java:12);"
	    "sun.misc.Unsafe.park") == 5);
	CHECK(has_func(&r, "Foo.bar (Foo.java:12)"));
	CHECK(stack_sum(&r, "swapper_[k];do_idle_[k];cpu_startup_entry_[k]")
	    == 3);
	CHECK(has_func(&r, "Interpreter_[j]"));
	CHECK(has_func(&r, " b"));		/* verbatim inside the stack */
	CHECK(stack_sum(&r, "java;Interpreter_[j];a; b") == 2);
	CHECK(stack_sum(&r, "na\xc3\xafve;\xe5\x87\xbd\xe6\x95\xb0") == 4);
	CHECK(stack_sum(&r, "x\ty z") == 6);	/* tab before the count */
	CHECK(stack_sum(&r, "lead;trail") == 7);
	CHECK(r.nsamples == 8);
	CHECK(r.samples[6].values[0] == 0);
	CHECK(r.samples[7].values[0] == INT64_MAX);
	rec_free(&r);
}

static void
test_lines(void)
{
	struct error err;
	struct rec r = { 0 };

	/* Blank lines anywhere, CRLF, no final newline. */
	CHECK(decode("\n  \n\t\na;b 1\r\n\r\n\nc 2\r\n \r\nd;e 3", &r,
	    &err) == 0);
	CHECK(r.nsamples == 3);
	CHECK(stack_sum(&r, "a;b") == 1);
	CHECK(stack_sum(&r, "c") == 2);
	CHECK(stack_sum(&r, "d;e") == 3);
	CHECK(!has_func(&r, "b\r") && has_func(&r, "b"));
	rec_free(&r);

	/* A single frame, a byte order mark. */
	CHECK(decode("\xef\xbb\xbfsolo 7", &r, &err) == 0);
	CHECK(r.nfuncs == 1 && STREQ(r.funcs[0].name, "solo"));
	CHECK(r.nsamples == 1 && r.samples[0].values[0] == 7);
	CHECK(r.stacks[0].n == 1);
	rec_free(&r);

	/* Nothing to import. */
	CHECK(decode("", &r, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "no stacks"));
	rec_free(&r);
	CHECK(decode("\n \r\n\t\n", &r, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "no stacks"));
	rec_free(&r);
}

static void
bad(const char *in, enum error_kind kind, const char *where,
    const char *what, const char *quoted)
{
	struct error err;
	struct rec r = { 0 };

	CHECK(decode(in, &r, &err) == -1);
	if (err.kind != kind || !HAS(err.msg, where) || !HAS(err.msg, what) ||
	    (quoted != NULL && !HAS(err.msg, quoted))) {
		fprintf(stderr, "input \"%s\": got \"%s\" (%s)\n", in, err.msg,
		    error_kind_name(err.kind));
		CHECK(!"unexpected error");
	}
	rec_free(&r);
}

static void
test_bad_counts(void)
{
	/* "ok 1\n" is 5 bytes: line 2 starts at byte 5. */
	bad("ok 1\na;b\n", ERR_INPUT, "line 2, byte 8:", "no count",
	    "\"a;b\"");
	bad("ok 1\na;b x\n", ERR_INPUT, "line 2, byte 9:",
	    "not an integer", "\"x\"");
	bad("ok 1\n\na;b -3\n", ERR_INPUT, "line 3, byte 10:",
	    "negative count", "\"-3\"");
	bad("a 9223372036854775808\n", ERR_INPUT, "line 1, byte 2:",
	    "count past 9223372036854775807", "\"9223372036854775808\"");
	bad("a 99999999999999999999999\n", ERR_INPUT, "line 1, byte 2:",
	    "count past", NULL);
	bad("ok 1\r\na;b 42abc\r\n", ERR_INPUT, "line 2, byte 12:",
	    "junk after the count", "\"42abc\"");
	bad("a 4.5", ERR_INPUT, "line 1, byte 2:", "not an integer",
	    "\"4.5\"");
	bad("a +4", ERR_INPUT, "line 1", "not an integer", "\"+4\"");
	bad("a -", ERR_INPUT, "line 1", "not an integer", "\"-\"");
	bad("42\n", ERR_INPUT, "line 1", "no count", "\"42\"");
	/* The quote is escaped. */
	bad("a 4\x01\"\\", ERR_INPUT, "line 1, byte 3:",
	    "junk after the count", "\"4\\x01\\\"\\\\\"");
	/* and truncated. */
	bad("a 1xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxx\n", ERR_INPUT, "line 1",
	    "junk after the count", "xxx...\"");
}

static void
test_bad_frames(void)
{
	bad("a;;b 3\n", ERR_INPUT, "line 1, byte 2:",
	    "empty frame name (frame 2)", "\"a;;b 3\"");
	bad("ok 1\n;a 1\n", ERR_INPUT, "line 2, byte 5:",
	    "empty frame name (frame 1)", NULL);
	bad("a; 1\n", ERR_INPUT, "line 1, byte 2:",
	    "empty frame name (frame 2)", NULL);
	bad("; 1\n", ERR_INPUT, "line 1", "empty frame name", NULL);
	bad("a;\xff;c 1\n", ERR_INPUT, "line 1, byte 2:", "invalid UTF-8",
	    "\"\\xff\"");
	bad("a;\xed\xa0\x80 1\n", ERR_INPUT, "line 1, byte 2:",
	    "invalid UTF-8", NULL);
	bad("a;\xc3 1\n", ERR_INPUT, "line 1, byte 2:", "invalid UTF-8",
	    NULL);
	{
		struct error err;
		struct rec r = { 0 };
		static const char nul[] = "a;b\0c 1\n";

		CHECK(decode_full(nul, sizeof nul - 1, NULL, NULL, 0, &r,
		    &err) == -1);
		CHECK(err.kind == ERR_INPUT && HAS(err.msg, "NUL byte") &&
		    HAS(err.msg, "byte 3:"));
		rec_free(&r);
	}
}

static void
test_limits(void)
{
	struct limits lim;
	struct error err;
	struct rec r = { 0 };
	struct buf b = { 0 };
	char name[64];
	size_t i;

	bounds_default(&lim);
	lim.max_string_len = 64;		/* lines up to 256 bytes */
	lim.max_stack_depth = 3;

	CHECK(decode_full("a;b;c 1\n", 8, &lim, NULL, 0, &r, &err) == 0);
	rec_free(&r);

	/* no_quote (spool files): the line and the byte, not the bytes. */
	lim.no_quote = 1;
	CHECK(decode_full("root:$6$salt:19000:0:99999:7:::\n", 32, &lim, NULL,
	    0, &r, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "folded: line 1, byte ") &&
	    HAS(err.msg, "no count") && !HAS(err.msg, "root:") &&
	    !HAS(err.msg, "salt"));
	rec_free(&r);
	CHECK(decode_full("a;\xff;c 1\n", 9, &lim, NULL, 0, &r, &err) == -1);
	CHECK(HAS(err.msg, "line 1, byte 2: invalid UTF-8") &&
	    !HAS(err.msg, "\\xff"));
	rec_free(&r);
	lim.no_quote = 0;
	CHECK(decode_full("a;b;c;d 1\n", 10, &lim, NULL, 0, &r, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE && HAS(err.msg, "line 1, byte 6:") &&
	    HAS(err.msg, "deeper than 3 frames"));
	rec_free(&r);

	/* A name longer than max_string_len. */
	buf_add(&b, "ok 1\nx;", 7);
	for (i = 0; i < 65; i++)
		buf_add(&b, "n", 1);
	buf_add(&b, " 1\n", 3);
	CHECK(decode_full(b.p, b.n, &lim, NULL, 0, &r, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE && HAS(err.msg, "line 2, byte 7:") &&
	    HAS(err.msg, "frame name of 65 bytes (limit 64)"));
	rec_free(&r);
	buf_free(&b);

	/* A line longer than 256 bytes, with and without its newline. */
	buf_add(&b, "ok 1\n", 5);
	for (i = 0; i < 300; i++)
		buf_add(&b, "y", 1);
	CHECK(decode_full(b.p, b.n, &lim, NULL, 0, &r, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE && HAS(err.msg, "line 2, byte 5:") &&
	    HAS(err.msg, "longer than 256 bytes"));
	rec_free(&r);
	buf_add(&b, " 1\n", 3);
	CHECK(decode_full(b.p, b.n, &lim, NULL, 1, &r, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE && HAS(err.msg, "line 2"));
	rec_free(&r);
	buf_free(&b);

	/* Exactly 256 bytes is fine. */
	for (i = 0; i < 254; i++)
		buf_add(&b, i % 2 ? ";" : "z", 1);
	b.n = 252;
	buf_add(&b, "z 12", 4);
	lim.max_stack_depth = 4096;
	CHECK(b.n == 256);
	CHECK(decode_full(b.p, b.n, &lim, NULL, 0, &r, &err) == 0);
	CHECK(r.nsamples == 1 && r.stacks[0].n == 127);
	CHECK(r.samples[0].values[0] == 12 && r.nfuncs == 1);
	rec_free(&r);
	buf_free(&b);

	/* Default limits: a 200 KiB line (past the first read window) is
	 * fine, a 5 MiB one is not. */
	for (i = 0; i < 4000; i++) {
		snprintf(name, sizeof name, "%sframe_number_%04zu_abcdefghij"
		    "klmnopqrstuvwxyz", i ? ";" : "", i % 2000);
		buf_add(&b, name, strlen(name));
	}
	CHECK(b.n > 160 * 1024);
	buf_add(&b, " 3\nshort 1\n", 11);
	CHECK(decode_full(b.p, b.n, NULL, NULL, 0, &r, &err) == 0);
	CHECK(r.nsamples == 2 && r.stacks[0].n == 4000 && r.nfuncs == 2001);
	rec_free(&r);
	buf_free(&b);

	buf_reserve(&b, 5u << 20);
	memset(b.p, 'w', 5u << 20);
	b.n = 5u << 20;
	CHECK(decode_full(b.p, b.n, NULL, NULL, 0, &r, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE && HAS(err.msg, "line 1, byte 0:") &&
	    HAS(err.msg, "longer than 4194304 bytes"));
	rec_free(&r);
	buf_free(&b);
}

static void
test_flat_cum(void)
{
	const char *in =
	    "main;a;b 5\n"
	    "main;a 3\n"
	    "main;b;a;b 2\n"		/* recursion: cum once per stack */
	    "main 1\n"
	    "main;a;b 4\n"
	    "main;c;a 6\n";
	struct fc want = { 0 }, got = { 0 };
	struct error err;
	struct rec r = { 0 };
	size_t i, k;

	CHECK(decode(in, &r, &err) == 0);
	fc_from_text(&want, in);
	fc_from_rec(&got, &r);
	CHECK(want.n == 4 && got.n == want.n);
	for (i = 0; i < want.n; i++) {
		k = fc_slot(&got, want.name[i], strlen(want.name[i]));
		CHECK(got.flat[k] == want.flat[i]);
		CHECK(got.cum[k] == want.cum[i]);
	}
	/* And by hand, in case both sides share a mistake. */
	k = fc_slot(&got, "main", 4);
	CHECK(got.flat[k] == 1 && got.cum[k] == 21);
	k = fc_slot(&got, "a", 1);
	CHECK(got.flat[k] == 9 && got.cum[k] == 20);
	k = fc_slot(&got, "b", 1);
	CHECK(got.flat[k] == 11 && got.cum[k] == 11);
	k = fc_slot(&got, "c", 1);
	CHECK(got.flat[k] == 0 && got.cum[k] == 6);
	fc_free(&want);
	fc_free(&got);
	rec_free(&r);
}

static void
test_opts_and_sink(void)
{
	struct decode_opts opts;
	struct error err;
	struct rec r = { 0 };

	memset(&opts, 0, sizeof opts);
	opts.metric_type = MSTR_LIT("wall");
	opts.metric_unit = MSTR_LIT("nanoseconds");
	CHECK(decode_full("a 1\n", 4, NULL, &opts, 0, &r, &err) == 0);
	CHECK(STREQ(r.mtype[0], "wall") && STREQ(r.munit[0], "nanoseconds"));
	rec_free(&r);
	opts.metric_unit = MSTR_LIT("");
	CHECK(decode_full("a 1\n", 4, NULL, &opts, 0, &r, &err) == 0);
	CHECK(STREQ(r.mtype[0], "wall") && STREQ(r.munit[0], "count"));
	rec_free(&r);

	/* A failing sink: its error is kept. */
	r.fail_on = 'K';
	CHECK(decode("a;b 1\n", &r, &err) == -1);
	CHECK(err.kind == ERR_INTERNAL && HAS(err.msg, "test sink: K"));
	rec_free(&r);
	r.fail_on = 'T';
	CHECK(decode("a;b 1\n", &r, &err) == -1);
	CHECK(err.kind == ERR_INTERNAL && HAS(err.msg, "test sink: T"));
	rec_free(&r);
}

/* The inflated bytes of a gzip file, at most max. */
static uint8_t *
gunzip_file(const char *path, size_t max, size_t *len)
{
	uint8_t in[65536], *out = xmalloc(max);
	z_stream zs;
	size_t n;
	FILE *f;
	int zr = Z_OK;

	CHECK((f = fopen(path, "rb")) != NULL);
	memset(&zs, 0, sizeof zs);
	CHECK(inflateInit2(&zs, 16 + MAX_WBITS) == Z_OK);
	zs.next_out = out;
	zs.avail_out = (uInt)max;
	while (zr != Z_STREAM_END && zs.avail_out > 0 &&
	    (n = fread(in, 1, sizeof in, f)) > 0) {
		zs.next_in = in;
		zs.avail_in = (uInt)n;
		zr = inflate(&zs, Z_NO_FLUSH);
		CHECK(zr == Z_OK || zr == Z_STREAM_END || zr == Z_BUF_ERROR);
	}
	*len = max - zs.avail_out;
	inflateEnd(&zs);
	fclose(f);
	return out;
}

static int
sniff(const char *s)
{
	return folded_sniff((const uint8_t *)s, strlen(s));
}

static void
test_sniff(void)
{
	uint8_t *p, rnd[FORMAT_SNIFF_BYTES];
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	struct buf b = { 0 };
	size_t n, i;
	int seed;
	static const uint8_t perfetto[] = { 0x0a, 0x12, 0x40, 0xe8, 0x07,
	    0x50, 0x01, 0x9a, 0x02, 0x09, 0x0a, 0x07, 'p', 'r', 'o', 'c',
	    '.', 's', 'o' };
	static const uint8_t nul[] = "a;b 1\n\0c 2\n";

	CHECK(sniff("main;serve;parse 42\nmain;serve 8\n"));
	CHECK(sniff("main;serve;parse 42\r\nmain 1\r\n"));
	CHECK(sniff("\n\n  \nmain;serve 8\n"));
	CHECK(sniff("\xef\xbb\xbf" "a;b 3\n"));
	CHECK(sniff("a;b 3"));			/* no final newline */
	CHECK(sniff("solo 3\n"));
	CHECK(sniff("java main;Foo.bar (Foo.java:12) 5\nx_[k];y_[k]\t3\n"));
	CHECK(sniff("na\xc3\xafve;\xe5\x87\xbd 4\n"));
	/* A partial last line is not looked at. */
	CHECK(sniff("a;b 3\nc;d;e"));

	CHECK(!sniff(""));
	CHECK(!sniff("\n \n"));
	CHECK(!sniff("hello world\n"));
	CHECK(!sniff("a;b\n"));
	CHECK(!sniff("a;b 3\nnot folded\n"));
	CHECK(!sniff("a;b 3x\n"));
	CHECK(!sniff(" 42\n"));
	CHECK(!sniff("42\n"));
	CHECK(!sniff("a;b 3\n\x01;c 4\n"));
	CHECK(!sniff("a;\xff 3\n"));
	CHECK(!sniff("{\"version\": 1}\n"));
	CHECK(!folded_sniff(nul, sizeof nul - 1));
	CHECK(!folded_sniff(perfetto, sizeof perfetto));

	/* A first line longer than the head. */
	for (i = 0; b.n < FORMAT_SNIFF_BYTES; i++)
		buf_add(&b, "com.example.Foo.bar;", 20);
	CHECK(folded_sniff(b.p, FORMAT_SNIFF_BYTES));
	memset(b.p, 'q', FORMAT_SNIFF_BYTES);	/* no ';' */
	CHECK(!folded_sniff(b.p, FORMAT_SNIFF_BYTES));
	buf_free(&b);

	/* The real pprof fixture, inflated, whole and its head. */
	p = gunzip_file(FIXTURES_DIR "/cpu.pprof", 1u << 20, &n);
	CHECK(n > 1000);
	CHECK(!folded_sniff(p, n < FORMAT_SNIFF_BYTES ? n :
	    FORMAT_SNIFF_BYTES));
	CHECK(!folded_sniff(p, n));
	free(p);
	/* Its gzipped bytes too. */
	{
		FILE *f = fopen(FIXTURES_DIR "/cpu.pprof", "rb");

		CHECK(f != NULL);
		n = fread(rnd, 1, sizeof rnd, f);
		fclose(f);
		CHECK(n > 100 && !folded_sniff(rnd, n));
	}

	/* Random binary. */
	for (seed = 0; seed < 64; seed++) {
		for (i = 0; i < sizeof rnd; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			rnd[i] = (uint8_t)x;
		}
		CHECK(!folded_sniff(rnd, sizeof rnd));
		CHECK(!folded_sniff(rnd, 1 + (size_t)seed));
	}
}

int
main(void)
{
	test_basic();
	test_names();
	test_lines();
	test_bad_counts();
	test_bad_frames();
	test_limits();
	test_flat_cum();
	test_opts_and_sink();
	test_sniff();
	printf("test_folded: %u checks passed\n", checks);
	return 0;
}
