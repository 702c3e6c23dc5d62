/* test_pprof.c: the pprof decoder against hand-built profiles and, when it
 * is there, a real gzipped one.  A recording sink keeps every call so the
 * tests can compare what was emitted, in which order. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "buf.h"
#include "error.h"
#include "bounds.h"
#include "model.h"
#include "nitems.h"
#include "pprof.h"
#include "pbw.h"
#include "stream.h"
#include "testrec.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

/* "leaf;mid^;root": function names leaf first; ^ inlined, ~ folded,
 * @0x... for a frame without a function. */
static const char *
stack_str(const struct rec *r, size_t sample, char *buf, size_t size)
{
	const struct rstack *s;
	const struct model_frame *f;
	size_t i, n = 0;

	buf[0] = '\0';
	CHECK(sample < r->nsamples);
	if (r->samples[sample].stack == 0)
		return buf;
	s = &r->stacks[r->samples[sample].stack - 1];
	for (i = 0; i < s->n; i++) {
		f = &r->frames[s->ids[i] - 1];
		if (f->function != 0)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
			    i ? ";" : "", r->funcs[f->function - 1].name);
		else
			n += (size_t)snprintf(buf + n, size - n,
			    "%s@0x%" PRIx64, i ? ";" : "", f->address);
		if (f->flags & FRAME_INLINED)
			n += (size_t)snprintf(buf + n, size - n, "^");
		if (f->flags & FRAME_FOLDED)
			n += (size_t)snprintf(buf + n, size - n, "~");
		CHECK(n < size);
	}
	return buf;
}

/* "k=v,n=5unit" in the order given to the sink. */
static const char *
labels_str(const struct rec *r, size_t sample, char *buf, size_t size)
{
	const struct rlabelset *ls;
	const struct rlabel *l;
	size_t i, n = 0;

	buf[0] = '\0';
	if (r->samples[sample].labelset == 0)
		return buf;
	ls = &r->labelsets[r->samples[sample].labelset - 1];
	for (i = 0; i < ls->n; i++) {
		l = &ls->l[i];
		if (l->is_num)
			n += (size_t)snprintf(buf + n, size - n, "%s%s=%" PRId64
			    "%s", i ? "," : "", l->key, l->num, l->unit);
		else
			n += (size_t)snprintf(buf + n, size - n, "%s%s=%s",
			    i ? "," : "", l->key, l->str);
		CHECK(n < size);
	}
	return buf;
}

/* ---- a profile builder ---- */

struct prof {
	struct buf	 body;
	const char	*strs[256];
	size_t		 nstrs;
};

/* The index of s in the string table, added if new. */
static int64_t
S(struct prof *b, const char *s)
{
	size_t i;

	for (i = 0; i < b->nstrs; i++) {
		if (STREQ(b->strs[i], s))
			return (int64_t)i;
	}
	CHECK(b->nstrs < NITEMS(b->strs));
	b->strs[b->nstrs] = s;
	return (int64_t)b->nstrs++;
}

static void
prof_init(struct prof *b)
{
	memset(b, 0, sizeof *b);
	S(b, "");
}

static void
prof_vt(struct prof *b, uint32_t num, const char *type, const char *unit)
{
	size_t m = pbw_begin(&b->body, num);

	pbw_int(&b->body, 1, S(b, type));
	pbw_int(&b->body, 2, S(b, unit));
	pbw_end(&b->body, m);
}

struct lab {
	const char	*key, *str;
	int64_t		 num;
	const char	*unit;
};

#define PACKED		1
#define UNPACKED	0

static void
prof_sample(struct prof *b, const uint64_t *locs, size_t nloc,
    const int64_t *vals, size_t nval, const struct lab *labs, size_t nlab,
    int packed)
{
	uint64_t uv[16];
	size_t m, lm, i;

	CHECK(nval <= NITEMS(uv));
	for (i = 0; i < nval; i++)
		uv[i] = (uint64_t)vals[i];
	m = pbw_begin(&b->body, 2);
	if (packed) {
		pbw_packed(&b->body, 1, locs, nloc);
		pbw_packed(&b->body, 2, uv, nval);
	} else {
		pbw_unpacked(&b->body, 1, locs, nloc);
		pbw_unpacked(&b->body, 2, uv, nval);
	}
	for (i = 0; i < nlab; i++) {
		lm = pbw_begin(&b->body, 3);
		pbw_int(&b->body, 1, S(b, labs[i].key));
		if (labs[i].str != NULL)
			pbw_int(&b->body, 2, S(b, labs[i].str));
		if (labs[i].num != 0)
			pbw_int(&b->body, 3, labs[i].num);
		if (labs[i].unit != NULL)
			pbw_int(&b->body, 4, S(b, labs[i].unit));
		pbw_end(&b->body, lm);
	}
	pbw_end(&b->body, m);
}

#define MF_ALL	0xf

static void
prof_mapping(struct prof *b, uint64_t id, uint64_t start, uint64_t limit,
    uint64_t offset, const char *file, const char *build, unsigned flags)
{
	size_t m = pbw_begin(&b->body, 3);
	unsigned i;

	pbw_uint(&b->body, 1, id);
	pbw_uint(&b->body, 2, start);
	pbw_uint(&b->body, 3, limit);
	pbw_uint(&b->body, 4, offset);
	pbw_int(&b->body, 5, S(b, file));
	pbw_int(&b->body, 6, S(b, build));
	for (i = 0; i < 4; i++) {
		if (flags & (1u << i))
			pbw_uint(&b->body, 7 + i, 1);
	}
	pbw_end(&b->body, m);
}

struct ln {
	uint64_t	 fn;
	int64_t		 line, column;
};

static void
prof_location(struct prof *b, uint64_t id, uint64_t mapping, uint64_t addr,
    const struct ln *lines, size_t nlines, int folded)
{
	size_t m = pbw_begin(&b->body, 4), lm, i;

	pbw_uint(&b->body, 1, id);
	if (mapping != 0)
		pbw_uint(&b->body, 2, mapping);
	pbw_uint(&b->body, 3, addr);
	for (i = 0; i < nlines; i++) {
		lm = pbw_begin(&b->body, 4);
		pbw_uint(&b->body, 1, lines[i].fn);
		pbw_int(&b->body, 2, lines[i].line);
		if (lines[i].column != 0)
			pbw_int(&b->body, 3, lines[i].column);
		pbw_end(&b->body, lm);
	}
	if (folded)
		pbw_uint(&b->body, 5, 1);
	pbw_end(&b->body, m);
}

static void
prof_function(struct prof *b, uint64_t id, const char *name,
    const char *system_name, const char *file, int64_t start_line)
{
	size_t m = pbw_begin(&b->body, 5);

	pbw_uint(&b->body, 1, id);
	pbw_int(&b->body, 2, S(b, name));
	pbw_int(&b->body, 3, S(b, system_name));
	pbw_int(&b->body, 4, S(b, file));
	pbw_int(&b->body, 5, start_line);
	pbw_end(&b->body, m);
}

/* A function whose name and file are both name (a common test need). */
static void
prof_fn(struct prof *b, uint64_t id, const char *name)
{
	prof_function(b, id, name, name, "x.c", 1);
}

/* A location with one line of function fn. */
static void
prof_loc(struct prof *b, uint64_t id, uint64_t fn)
{
	struct ln l = { fn, (int64_t)id * 10, 0 };

	prof_location(b, id, 0, 0x1000 * id, &l, 1, 0);
}

#define STRINGS_LAST	0
#define STRINGS_FIRST	1

static void
prof_strings(struct prof *b, struct buf *out)
{
	size_t i;

	for (i = 0; i < b->nstrs; i++)
		pbw_str(out, 6, b->strs[i]);
}

/* The finished blob in out (which the caller frees). */
static void
prof_finish(struct prof *b, struct buf *out, int where)
{
	memset(out, 0, sizeof *out);
	if (where == STRINGS_FIRST)
		prof_strings(b, out);
	buf_add(out, b->body.p, b->body.n);
	if (where == STRINGS_LAST)
		prof_strings(b, out);
	buf_free(&b->body);
}

/* Decode blob into r; returns pprof_decode's result. */
static int
decode(const struct buf *blob, const struct limits *lim, struct rec *r,
    struct error *err)
{
	struct sink s = rec_sink(r);

	error_clear(err);
	return pprof_decode(blob->p, blob->n, lim, &s, err);
}

/* Build, decode and expect an error of kind whose message holds a and
 * b (and "byte"); the sink may have been given the samples before a bad
 * one (samples are read once: the importer rolls back), never meta. */
static void
expect_error(struct prof *b, const struct limits *lim, enum error_kind kind,
    const char *a, const char *bb, int line)
{
	struct buf blob;
	struct rec r;
	struct error err;
	int rc;

	prof_finish(b, &blob, STRINGS_LAST);
	rc = decode(&blob, lim, &r, &err);
	if (rc != -1 || err.kind != kind || strstr(err.msg, a) == NULL ||
	    (bb != NULL && strstr(err.msg, bb) == NULL) ||
	    strstr(err.msg, "byte") == NULL ||
	    strncmp(err.msg, "pprof: ", 7) != 0 || r.seen_meta) {
		fprintf(stderr, "%s:%d: expected error (%d) with \"%s\", "
		    "\"%s\": rc %d kind %d calls %zu msg \"%s\"\n", __FILE__,
		    line, kind, a, bb ? bb : "", rc, err.kind, r.calls,
		    err.msg);
		exit(1);
	}
	checks++;
	rec_free(&r);
	buf_free(&blob);
}

#define EXPECT_ERROR(b, lim, kind, a, bb) \
	expect_error((b), (lim), (kind), (a), (bb), __LINE__)

static void
decode_ok(struct prof *b, int where, struct rec *r)
{
	struct buf blob;
	struct error err;

	prof_finish(b, &blob, where);
	if (decode(&blob, NULL, r, &err) != 0) {
		fprintf(stderr, "unexpected error: %s\n", err.msg);
		CHECK(0);
	}
	CHECK(err.kind == ERR_NONE);
	CHECK(r->has_meta && !r->bad_order);
	buf_free(&blob);
}

/* ---- tests ---- */

/* A profile with every field once; both string table positions. */
static void
build_full(struct prof *b)
{
	struct ln inl[] = { { 3, 30, 7 }, { 4, 40, 0 }, { 2, 21, 2 } };
	struct ln one[] = { { 1, 11, 5 } };
	struct ln two[] = { { 2, 22, 0 } };
	struct lab labs[] = {
		{ "thread", "main", 0, NULL },
		{ "bytes", NULL, 512, "bytes" },
		{ "count", NULL, -3, NULL },
	};

	prof_init(b);
	prof_vt(b, 1, "samples", "count");
	prof_vt(b, 1, "cpu", "nanoseconds");
	prof_mapping(b, 1, 0x400000, 0x500000, 0x1000, "/bin/app", "abc123",
	    MF_ALL);
	prof_mapping(b, 2, 0x7f0000, 0x7f8000, 0, "libc.so", "",
	    MAPPING_HAS_FUNCTIONS | MAPPING_HAS_LINE_NUMBERS);
	prof_function(b, 1, "main", "_main", "main.c", 5);
	prof_function(b, 2, "work", "_work", "work.c", 15);
	prof_function(b, 3, "leaf", "_leaf", "leaf.h", 25);
	prof_function(b, 4, "helper", "_helper", "helper.h", 35);
	prof_location(b, 1, 1, 0x401000, one, 1, 0);
	prof_location(b, 2, 1, 0x402000, two, 1, 0);
	/* Inlining: leaf into helper into work. */
	prof_location(b, 3, 1, 0x403000, inl, 3, 0);
	/* Unsymbolized, in libc. */
	prof_location(b, 4, 2, 0x7f1234, NULL, 0, 0);
	prof_sample(b, (uint64_t[]){ 3, 1 }, 2, (int64_t[]){ 1, 10 }, 2,
	    labs, 3, PACKED);
	prof_sample(b, (uint64_t[]){ 4, 2, 1 }, 3, (int64_t[]){ 2, 20 }, 2,
	    NULL, 0, UNPACKED);
	prof_sample(b, NULL, 0, (int64_t[]){ -1, INT64_MIN }, 2, NULL, 0,
	    PACKED);
	pbw_int(&b->body, 7, S(b, ""));		/* drop_frames: none */
	pbw_int(&b->body, 9, 1700000000123456789);
	pbw_int(&b->body, 10, 10000000000);
	prof_vt(b, 11, "cpu", "nanoseconds");
	pbw_int(&b->body, 12, 10000000);
	pbw_packed(&b->body, 13, (uint64_t[]){ (uint64_t)S(b, "first"),
	    (uint64_t)S(b, "second") }, 2);
	pbw_uint(&b->body, 13, (uint64_t)S(b, "third"));
	pbw_int(&b->body, 14, S(b, "samples"));
	pbw_int(&b->body, 15, S(b, "https://example.com/doc"));
}

static void
check_full(const struct rec *r)
{
	const struct model_frame *f;
	char buf[256];

	CHECK(r->nmetrics == 2);
	CHECK(STREQ(r->mtype[0], "samples") && STREQ(r->munit[0], "count"));
	CHECK(STREQ(r->mtype[1], "cpu") && STREQ(r->munit[1], "nanoseconds"));

	/* Samples and stacks, leaf first, inlined frames marked. */
	CHECK(r->nsamples == 3);
	CHECK(STREQ(stack_str(r, 0, buf, sizeof buf),
	    "leaf^;helper^;work;main"));
	CHECK(STREQ(stack_str(r, 1, buf, sizeof buf), "@0x7f1234;work;main"));
	CHECK(STREQ(stack_str(r, 2, buf, sizeof buf), ""));
	CHECK(r->samples[2].stack == 0);
	CHECK(r->samples[0].values[0] == 1 && r->samples[0].values[1] == 10);
	CHECK(r->samples[1].values[0] == 2 && r->samples[1].values[1] == 20);
	CHECK(r->samples[2].values[0] == -1 &&
	    r->samples[2].values[1] == INT64_MIN);
	CHECK(r->samples[0].time_ns == 0);
	CHECK(STREQ(labels_str(r, 0, buf, sizeof buf),
	    "thread=main,bytes=512bytes,count=-3"));
	CHECK(r->samples[1].labelset == 0 && r->samples[2].labelset == 0);
	CHECK(r->nlabelsets == 1);

	/* Frames: each location once, main and work shared. */
	CHECK(r->nframes == 6);
	CHECK(r->nstacks == 2);
	f = &r->frames[r->stacks[0].ids[0] - 1];
	CHECK(STREQ(r->funcs[f->function - 1].name, "leaf"));
	CHECK(f->line == 30 && f->column == 7 && f->address == 0x403000);
	CHECK(f->flags == FRAME_INLINED);
	CHECK(STREQ(r->maps[f->mapping - 1].file, "/bin/app"));
	f = &r->frames[r->stacks[0].ids[2] - 1];
	CHECK(STREQ(r->funcs[f->function - 1].name, "work"));
	CHECK(f->line == 21 && f->column == 2 && f->address == 0x403000);
	CHECK(f->flags == 0);
	f = &r->frames[r->stacks[0].ids[3] - 1];
	CHECK(f->line == 11 && f->column == 5 && f->address == 0x401000);
	CHECK(r->stacks[0].ids[3] == r->stacks[1].ids[2]);
	f = &r->frames[r->stacks[1].ids[0] - 1];
	CHECK(f->function == 0 && f->address == 0x7f1234 && f->line == 0);
	CHECK(STREQ(r->maps[f->mapping - 1].file, "libc.so"));

	/* Mappings and functions, every field. */
	CHECK(r->nmaps == 2);
	CHECK(STREQ(r->maps[0].file, "/bin/app") &&
	    STREQ(r->maps[0].build_id, "abc123"));
	CHECK(r->maps[0].m.start == 0x400000 &&
	    r->maps[0].m.limit == 0x500000 && r->maps[0].m.offset == 0x1000);
	CHECK(r->maps[0].m.flags == (MAPPING_HAS_FUNCTIONS |
	    MAPPING_HAS_FILENAMES | MAPPING_HAS_LINE_NUMBERS |
	    MAPPING_HAS_INLINE_FRAMES));
	CHECK(STREQ(r->maps[1].file, "libc.so") &&
	    STREQ(r->maps[1].build_id, ""));
	CHECK(r->maps[1].m.flags == (MAPPING_HAS_FUNCTIONS |
	    MAPPING_HAS_LINE_NUMBERS));
	CHECK(r->nfuncs == 4);
	f = &r->frames[r->stacks[0].ids[1] - 1];
	CHECK(STREQ(r->funcs[f->function - 1].name, "helper"));
	CHECK(STREQ(r->funcs[f->function - 1].system_name, "_helper"));
	CHECK(STREQ(r->funcs[f->function - 1].file, "helper.h"));
	CHECK(r->funcs[f->function - 1].start_line == 35);
	CHECK(f->flags == FRAME_INLINED && f->line == 40 && f->column == 0);

	/* Meta. */
	CHECK(r->has_meta);
	CHECK(r->meta.time_ns == 1700000000123456789);
	CHECK(r->meta.duration_ns == 10000000000);
	CHECK(r->meta.period == 10000000);
	CHECK(STREQ(r->period_type, "cpu") &&
	    STREQ(r->period_unit, "nanoseconds"));
	CHECK(r->meta.ncomments == 3);
	CHECK(STREQ(r->comments[0], "first") &&
	    STREQ(r->comments[1], "second") && STREQ(r->comments[2], "third"));
	CHECK(r->meta.default_metric == 0);
	CHECK(STREQ(r->doc_url, "https://example.com/doc"));
	CHECK(r->meta.samples == 3 && r->meta.dropped_samples == 0);
	CHECK(!r->bad_order);
	CHECK(r->log[0] == 'T' && r->log[1] == 'T');
	CHECK(r->log[r->nlog - 1] == 'X');
}

static void
test_full(void)
{
	struct prof b;
	struct rec r;

	build_full(&b);
	decode_ok(&b, STRINGS_LAST, &r);
	check_full(&r);
	rec_free(&r);

	build_full(&b);
	decode_ok(&b, STRINGS_FIRST, &r);
	check_full(&r);
	rec_free(&r);
}

/* The same profile written in another order, with strings in the middle
 * and unknown fields at every level. */
static void
test_order_and_unknown(void)
{
	struct prof b;
	struct buf blob, tail;
	struct rec r;
	struct error err;
	char buf[128];
	size_t m, lm;

	prof_init(&b);
	/* Samples before anything they refer to. */
	m = pbw_begin(&b.body, 2);
	pbw_fixed64(&b.body, 9, 1);			/* unknown */
	pbw_uint(&b.body, 2, 5);
	pbw_uint(&b.body, 1, 2);
	lm = pbw_begin(&b.body, 3);
	pbw_str(&b.body, 9, "unknown in label");
	pbw_uint(&b.body, 2, 5);			/* "v" below */
	pbw_uint(&b.body, 1, 6);			/* "k" below */
	pbw_end(&b.body, lm);
	pbw_packed(&b.body, 1, (uint64_t[]){ 1 }, 1);
	pbw_end(&b.body, m);
	pbw_fixed32(&b.body, 100, 7);			/* unknown */
	pbw_str(&b.body, 6, "");	/* string table split in two parts */
	pbw_str(&b.body, 6, "a");
	pbw_str(&b.body, 6, "b");
	m = pbw_begin(&b.body, 4);
	pbw_uint(&b.body, 99, 1);
	lm = pbw_begin(&b.body, 4);
	pbw_uint(&b.body, 9, 1);
	pbw_uint(&b.body, 1, 20);
	pbw_end(&b.body, lm);
	pbw_uint(&b.body, 1, 1);
	pbw_end(&b.body, m);
	m = pbw_begin(&b.body, 4);
	pbw_uint(&b.body, 1, 2);
	lm = pbw_begin(&b.body, 4);
	pbw_uint(&b.body, 1, 10);
	pbw_end(&b.body, lm);
	pbw_end(&b.body, m);
	m = pbw_begin(&b.body, 5);
	pbw_str(&b.body, 8, "unknown");
	pbw_uint(&b.body, 2, 2);			/* "b" */
	pbw_uint(&b.body, 1, 20);
	pbw_end(&b.body, m);
	m = pbw_begin(&b.body, 5);
	pbw_uint(&b.body, 1, 10);
	pbw_uint(&b.body, 2, 1);			/* "a" */
	pbw_end(&b.body, m);
	m = pbw_begin(&b.body, 1);
	pbw_uint(&b.body, 3, 3);
	pbw_uint(&b.body, 2, 4);			/* "t" below */
	pbw_uint(&b.body, 1, 3);			/* "s" below */
	pbw_end(&b.body, m);
	pbw_str(&b.body, 200, "trailing unknown");

	/* The rest of the string table last, by hand. */
	memset(&tail, 0, sizeof tail);
	pbw_str(&tail, 6, "s");
	pbw_str(&tail, 6, "t");
	pbw_str(&tail, 6, "v");
	pbw_str(&tail, 6, "k");
	memset(&blob, 0, sizeof blob);
	buf_add(&blob, b.body.p, b.body.n);
	buf_add(&blob, tail.p, tail.n);
	CHECK(decode(&blob, NULL, &r, &err) == 0);
	CHECK(r.nmetrics == 1 && STREQ(r.mtype[0], "s") &&
	    STREQ(r.munit[0], "t"));
	CHECK(r.nsamples == 1 && r.samples[0].values[0] == 5);
	/* location_id 2 then 1: a is leaf-side. */
	CHECK(STREQ(stack_str(&r, 0, buf, sizeof buf), "a;b"));
	CHECK(STREQ(labels_str(&r, 0, buf, sizeof buf), "k=v"));
	CHECK(r.meta.default_metric == 0);
	rec_free(&r);
	buf_free(&blob);
	buf_free(&tail);
	buf_free(&b.body);
}

/* Packed, unpacked and split repeated fields give the same sample. */
static void
test_packed_unpacked(void)
{
	static const char *fns[] = { "", "f1", "f2", "f3", "f4" };
	struct prof b;
	struct rec r;
	char buf[128];
	size_t m, i;
	int variant;

	for (variant = 0; variant < 4; variant++) {
		prof_init(&b);
		prof_vt(&b, 1, "a", "count");
		prof_vt(&b, 1, "b", "count");
		prof_vt(&b, 1, "c", "count");
		for (i = 1; i <= 4; i++) {
			prof_fn(&b, i, fns[i]);
			prof_loc(&b, i, i);
		}
		m = pbw_begin(&b.body, 2);
		switch (variant) {
		case 0:
			pbw_packed(&b.body, 1,
			    (uint64_t[]){ 1, 2, 3, 4 }, 4);
			pbw_packed(&b.body, 2, (uint64_t[]){ 7, 8,
			    (uint64_t)-9 }, 3);
			break;
		case 1:
			pbw_unpacked(&b.body, 1,
			    (uint64_t[]){ 1, 2, 3, 4 }, 4);
			pbw_unpacked(&b.body, 2, (uint64_t[]){ 7, 8,
			    (uint64_t)-9 }, 3);
			break;
		case 2:
			/* Mixed and interleaved. */
			pbw_uint(&b.body, 1, 1);
			pbw_uint(&b.body, 2, 7);
			pbw_packed(&b.body, 1, (uint64_t[]){ 2, 3 }, 2);
			pbw_packed(&b.body, 2, (uint64_t[]){ 8 }, 1);
			pbw_uint(&b.body, 1, 4);
			pbw_uint(&b.body, 2, (uint64_t)-9);
			break;
		case 3:
			/* Empty packed runs count for nothing. */
			pbw_packed(&b.body, 1, NULL, 0);
			pbw_packed(&b.body, 1,
			    (uint64_t[]){ 1, 2, 3, 4 }, 4);
			pbw_packed(&b.body, 2, NULL, 0);
			pbw_packed(&b.body, 2, (uint64_t[]){ 7, 8,
			    (uint64_t)-9 }, 3);
			break;
		}
		pbw_end(&b.body, m);
		decode_ok(&b, STRINGS_LAST, &r);
		CHECK(r.nsamples == 1);
		CHECK(STREQ(stack_str(&r, 0, buf, sizeof buf),
		    "f1;f2;f3;f4"));
		CHECK(r.samples[0].values[0] == 7 &&
		    r.samples[0].values[1] == 8 &&
		    r.samples[0].values[2] == -9);
		/* pprof's rule: no default_sample_type, the last one. */
		CHECK(r.meta.default_metric == 2);
		rec_free(&r);
	}
}

static void
test_inline(void)
{
	struct ln lines[] = { { 1, 100, 1 }, { 2, 200, 2 }, { 3, 300, 3 } };
	struct prof b;
	struct rec r;
	char buf[128];
	const struct model_frame *f;
	size_t i;

	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	prof_fn(&b, 1, "inner");
	prof_fn(&b, 2, "middle");
	prof_fn(&b, 3, "outer");
	prof_fn(&b, 4, "main");
	prof_location(&b, 10, 0, 0xabc, lines, 3, 0);
	prof_loc(&b, 20, 4);
	/* Folded and inlined at once. */
	prof_location(&b, 30, 0, 0xdef, lines + 1, 2, 1);
	prof_sample(&b, (uint64_t[]){ 10, 20 }, 2, (int64_t[]){ 1 }, 1,
	    NULL, 0, PACKED);
	prof_sample(&b, (uint64_t[]){ 10, 10, 20 }, 3, (int64_t[]){ 2 }, 1,
	    NULL, 0, PACKED);
	prof_sample(&b, (uint64_t[]){ 30, 20 }, 2, (int64_t[]){ 3 }, 1,
	    NULL, 0, UNPACKED);
	decode_ok(&b, STRINGS_LAST, &r);
	CHECK(STREQ(stack_str(&r, 0, buf, sizeof buf),
	    "inner^;middle^;outer;main"));
	CHECK(STREQ(stack_str(&r, 1, buf, sizeof buf),
	    "inner^;middle^;outer;inner^;middle^;outer;main"));
	CHECK(STREQ(stack_str(&r, 2, buf, sizeof buf),
	    "middle^~;outer~;main"));
	/* 3 + 1 + 2 frames, each emitted once. */
	CHECK(r.nframes == 6);
	for (i = 0; i < 3; i++) {
		f = &r.frames[r.stacks[0].ids[i] - 1];
		CHECK(f->address == 0xabc);
		CHECK(f->line == (int64_t)(i + 1) * 100);
		CHECK(f->column == (int64_t)i + 1);
	}
	CHECK(r.stacks[1].ids[0] == r.stacks[0].ids[0]);
	CHECK(r.stacks[1].ids[3] == r.stacks[0].ids[0]);
	rec_free(&r);
}

static void
test_unsymbolized(void)
{
	struct prof b;
	struct rec r;
	char buf[128];
	const struct model_frame *f;

	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	prof_mapping(&b, 7, 0x1000, 0x2000, 0, "/lib/x.so", "bid", 0);
	prof_location(&b, 1, 7, 0x1234, NULL, 0, 0);
	prof_location(&b, 2, 0, 0x5678, NULL, 0, 1);
	prof_sample(&b, (uint64_t[]){ 1, 2 }, 2, (int64_t[]){ 1 }, 1, NULL,
	    0, PACKED);
	decode_ok(&b, STRINGS_LAST, &r);
	CHECK(STREQ(stack_str(&r, 0, buf, sizeof buf), "@0x1234;@0x5678~"));
	f = &r.frames[r.stacks[0].ids[0] - 1];
	CHECK(f->function == 0 && f->line == 0 && f->mapping == 1);
	CHECK(r.nmaps == 1 && STREQ(r.maps[0].build_id, "bid"));
	CHECK(r.maps[0].m.flags == 0);
	f = &r.frames[r.stacks[0].ids[1] - 1];
	CHECK(f->function == 0 && f->mapping == 0 && f->flags == FRAME_FOLDED);
	CHECK(r.nfuncs == 0);
	rec_free(&r);
}

static void
test_labels(void)
{
	struct lab labs[] = {
		{ "s", "v", 0, NULL },		/* string */
		{ "n", NULL, 42, "ms" },	/* number with unit */
		{ "m", NULL, 7, NULL },		/* number, no unit */
		{ "z", NULL, 0, "u" },		/* 0 with a unit: kept */
		{ "k", NULL, 0, NULL },		/* key only: dropped */
		{ "both", "str", 9, NULL },	/* str wins, as Go */
	};
	struct prof b;
	struct rec r;
	char buf[256];
	const struct rlabel *l;

	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	prof_sample(&b, NULL, 0, (int64_t[]){ 1 }, 1, labs, NITEMS(labs),
	    PACKED);
	prof_sample(&b, NULL, 0, (int64_t[]){ 1 }, 1, labs + 4, 1, PACKED);
	prof_sample(&b, NULL, 0, (int64_t[]){ 1 }, 1, NULL, 0, PACKED);
	decode_ok(&b, STRINGS_LAST, &r);
	CHECK(STREQ(labels_str(&r, 0, buf, sizeof buf),
	    "s=v,n=42ms,m=7,z=0u,both=str"));
	l = r.labelsets[0].l;
	CHECK(!l[0].is_num && l[1].is_num && STREQ(l[1].unit, "ms"));
	CHECK(l[4].is_num == 0 && STREQ(l[4].str, "str"));
	/* Nothing left: no labelset call. */
	CHECK(r.samples[1].labelset == 0 && r.samples[2].labelset == 0);
	CHECK(r.nlabelsets == 1);
	rec_free(&r);
}

static void
test_default_metric(void)
{
	struct prof b;
	struct rec r;

	/* Names the second of three. */
	prof_init(&b);
	prof_vt(&b, 1, "alloc_objects", "count");
	prof_vt(&b, 1, "alloc_space", "bytes");
	prof_vt(&b, 1, "inuse_space", "bytes");
	pbw_int(&b.body, 14, S(&b, "alloc_space"));
	decode_ok(&b, STRINGS_LAST, &r);
	CHECK(r.meta.default_metric == 1 && r.meta.samples == 0);
	rec_free(&r);

	/* No sample types at all. */
	prof_init(&b);
	pbw_int(&b.body, 9, 5);
	decode_ok(&b, STRINGS_FIRST, &r);
	CHECK(r.meta.default_metric == -1 && r.nmetrics == 0);
	CHECK(r.meta.time_ns == 5 && STREQ(r.period_type, ""));
	CHECK(r.meta.ncomments == 0 && STREQ(r.doc_url, ""));
	rec_free(&r);

	/* Not a sample type. */
	prof_init(&b);
	prof_vt(&b, 1, "cpu", "nanoseconds");
	pbw_int(&b.body, 14, S(&b, "nanoseconds"));
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Profile.default_sample_type at "
	    "byte 6", "\"nanoseconds\" is not a sample type");
	/* no_quote (spool files): the offset and the length, not the
	 * bytes. */
	{
		struct limits nq;
		struct buf blob;
		struct rec nr;
		struct error err;

		bounds_default(&nq);
		nq.no_quote = 1;
		prof_init(&b);
		prof_vt(&b, 1, "cpu", "nanoseconds");
		pbw_int(&b.body, 14, S(&b, "root:secret"));
		prof_finish(&b, &blob, STRINGS_LAST);
		CHECK(decode(&blob, &nq, &nr, &err) == -1);
		CHECK(err.kind == ERR_INPUT && strstr(err.msg,
		    "Profile.default_sample_type at byte 6: a string of 11 "
		    "bytes is not a sample type") != NULL);
		CHECK(strstr(err.msg, "root") == NULL);
		rec_free(&nr);
		buf_free(&blob);
	}
}

/* drop_frames/keep_frames as pprof's Prune applies them. */
struct prune_case {
	const char	*drop, *keep;
	const char	*want[4];	/* per sample, "" for empty */
};

static void
run_prune(const struct prune_case *pc)
{
	/* Locations: 1 main, 2 user, 3 malloc, 4 mallocx, 5 inlined
	 * [inner, malloc, outer], 6 unsymbolized, 7 ".free" (PPC dot),
	 * 8 "ns::Foo::operator()(int)", 9 "(anonymous namespace)::bar(x)",
	 * 10 "std::vector<int>::push(int)", 11 unnamed function. */
	struct ln inl[] = { { 5, 1, 0 }, { 3, 2, 0 }, { 6, 3, 0 } };
	struct prof b;
	struct rec r;
	char buf[256];
	size_t i;

	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	prof_fn(&b, 1, "main");
	prof_fn(&b, 2, "user");
	prof_fn(&b, 3, "malloc");
	prof_fn(&b, 4, "mallocx");
	prof_fn(&b, 5, "inner");
	prof_fn(&b, 6, "outer");
	prof_fn(&b, 7, ".free");
	prof_fn(&b, 8, "ns::Foo::operator()(int)");
	prof_fn(&b, 9, "(anonymous namespace)::bar(x)");
	prof_fn(&b, 10, "std::vector<int>::push(int)");
	prof_fn(&b, 11, "");
	for (i = 1; i <= 4; i++)
		prof_loc(&b, i, i);
	prof_location(&b, 5, 0, 0x5000, inl, 3, 0);
	prof_location(&b, 6, 0, 0x6000, NULL, 0, 0);
	for (i = 7; i <= 11; i++)
		prof_loc(&b, i, i);
	if (pc->drop != NULL)
		pbw_int(&b.body, 7, S(&b, pc->drop));
	if (pc->keep != NULL)
		pbw_int(&b.body, 8, S(&b, pc->keep));
	/* 0: malloc under user: the classic. */
	prof_sample(&b, (uint64_t[]){ 4, 3, 2, 1 }, 4, (int64_t[]){ 1 }, 1,
	    NULL, 0, PACKED);
	/* 1: the inlined location under user; malloc at the root. */
	prof_sample(&b, (uint64_t[]){ 6, 5, 2, 3 }, 4, (int64_t[]){ 1 }, 1,
	    NULL, 0, PACKED);
	/* 2: the odd names. */
	prof_sample(&b, (uint64_t[]){ 7, 8, 9, 10, 2, 1 }, 6,
	    (int64_t[]){ 1 }, 1, NULL, 0, PACKED);
	/* 3: an unnamed function is a user frame, never a match. */
	prof_sample(&b, (uint64_t[]){ 3, 11, 4, 1 }, 4, (int64_t[]){ 1 }, 1,
	    NULL, 0, PACKED);
	decode_ok(&b, STRINGS_LAST, &r);
	CHECK(r.nsamples == 4);
	for (i = 0; i < 4; i++) {
		if (!STREQ(stack_str(&r, i, buf, sizeof buf), pc->want[i])) {
			fprintf(stderr, "drop \"%s\" keep \"%s\" sample %zu: "
			    "got \"%s\", want \"%s\"\n",
			    pc->drop ? pc->drop : "", pc->keep ? pc->keep : "",
			    i, buf, pc->want[i]);
			CHECK(0);
		}
		checks++;
	}
	rec_free(&r);
}

static void
test_drop_keep(void)
{
	static const struct prune_case cases[] = {
		/* Nothing to drop: stacks as they are. */
		{ NULL, NULL, { "mallocx;malloc;user;main",
		    "@0x6000;inner^;malloc^;outer;user;malloc",
		    ".free;ns::Foo::operator()(int);"
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    "malloc;;mallocx;main" } },
		/* keep_frames alone does nothing. */
		{ NULL, "user", { "mallocx;malloc;user;main",
		    "@0x6000;inner^;malloc^;outer;user;malloc",
		    ".free;ns::Foo::operator()(int);"
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    "malloc;;mallocx;main" } },
		/* malloc and everything under it goes; the root malloc of
		 * sample 1 stays (no user frame above it); in the inlined
		 * location only outer (above malloc) remains. */
		{ "malloc", NULL, { "user;main", "outer;user;malloc",
		    ".free;ns::Foo::operator()(int);"
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    ";mallocx;main" } },
		/* Anchored: "malloc" does not match "mallocx". */
		{ "mall", NULL, { "mallocx;malloc;user;main",
		    "@0x6000;inner^;malloc^;outer;user;malloc",
		    ".free;ns::Foo::operator()(int);"
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    "malloc;;mallocx;main" } },
		{ "malloc.*", "mallocx", { "user;main",
		    "outer;user;malloc",
		    ".free;ns::Foo::operator()(int);"
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    ";mallocx;main" } },
		/* Alternation is anchored as a whole. */
		{ "mallocx|user", NULL, { "main", "malloc", "main",
		    "main" } },
		/* Simplified names: a leading dot, argument lists. */
		{ "free", NULL, { "mallocx;malloc;user;main",
		    "@0x6000;inner^;malloc^;outer;user;malloc",
		    "ns::Foo::operator()(int);(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    "malloc;;mallocx;main" } },
		{ "ns::Foo::operator\\(\\)", NULL, {
		    "mallocx;malloc;user;main",
		    "@0x6000;inner^;malloc^;outer;user;malloc",
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    "malloc;;mallocx;main" } },
		{ "\\(anonymous namespace\\)::bar", NULL, {
		    "mallocx;malloc;user;main",
		    "@0x6000;inner^;malloc^;outer;user;malloc",
		    "std::vector<int>::push(int);user;main",
		    "malloc;;mallocx;main" } },
		{ "std::vector<int>::push", NULL, {
		    "mallocx;malloc;user;main",
		    "@0x6000;inner^;malloc^;outer;user;malloc",
		    "user;main", "malloc;;mallocx;main" } },
		/* The full name with its arguments is not what is matched. */
		{ "std::vector<int>::push\\(int\\)", NULL, {
		    "mallocx;malloc;user;main",
		    "@0x6000;inner^;malloc^;outer;user;malloc",
		    ".free;ns::Foo::operator()(int);"
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    "malloc;;mallocx;main" } },
		/* Everything named matches: only unnamed and unsymbolized
		 * frames are user frames; stacks of only matches stay. */
		{ ".*", NULL, { "mallocx;malloc;user;main",
		    "@0x6000;inner^;malloc^;outer;user;malloc",
		    ".free;ns::Foo::operator()(int);"
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    ";mallocx;main" } },
		/* The inner line of the inlined location only. */
		{ "inner", NULL, { "mallocx;malloc;user;main",
		    "malloc^;outer;user;malloc",
		    ".free;ns::Foo::operator()(int);"
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    "malloc;;mallocx;main" } },
		/* The outer line: the whole location is pruned. */
		{ "outer", NULL, { "mallocx;malloc;user;main", "user;malloc",
		    ".free;ns::Foo::operator()(int);"
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    "malloc;;mallocx;main" } },
		{ "main", NULL, { "mallocx;malloc;user;main",
		    "@0x6000;inner^;malloc^;outer;user;malloc",
		    ".free;ns::Foo::operator()(int);"
		    "(anonymous namespace)::bar(x);"
		    "std::vector<int>::push(int);user;main",
		    "malloc;;mallocx;main" } },
	};
	size_t i;

	for (i = 0; i < NITEMS(cases); i++)
		run_prune(&cases[i]);
}

/* drop_frames and keep_frames as legacy tcmalloc heap profiles carry
 * them (pprof's allocRxStr and allocSkipRxStr, shortened): Go's syntax,
 * which POSIX ERE reads the same. */
static void
test_drop_realistic(void)
{
	static const char *drop = "calloc|cfree|malloc|free|memalign|"
	    "do_memalign|(__)?posix_memalign|pvalloc|valloc|realloc|"
	    "tcmalloc::.*|tc_calloc|tc_malloc|tc_new|tc_newarray|"
	    "runtime\\..*|BaseArena::.*|(::)?do_malloc_no_errno|"
	    "(::)?do_malloc|__builtin_(vec_)?new|operator new(\\[\\])?|"
	    "simple_alloc::allocate";
	static const char *keep = "runtime\\.panic|runtime\\.reflectcall|"
	    "runtime\\.call[0-9]*";
	struct prof b;
	struct rec r;
	char buf[256];
	size_t i;
	static const char *names[] = { "", "main", "Foo::Bar(int)",
	    "operator new[](unsigned long)", "tcmalloc::Alloc", "tc_newarray",
	    "runtime.mallocgc", "runtime.call32", "::do_malloc",
	    "runtime.newobject", "operator new" };

	prof_init(&b);
	prof_vt(&b, 1, "alloc_space", "bytes");
	for (i = 1; i < NITEMS(names); i++) {
		prof_fn(&b, i, names[i]);
		prof_loc(&b, i, i);
	}
	pbw_int(&b.body, 7, S(&b, drop));
	pbw_int(&b.body, 8, S(&b, keep));
	prof_sample(&b, (uint64_t[]){ 4, 5, 3, 2, 1 }, 5, (int64_t[]){ 1 }, 1,
	    NULL, 0, PACKED);
	prof_sample(&b, (uint64_t[]){ 6, 9, 7, 1 }, 4, (int64_t[]){ 2 }, 1,
	    NULL, 0, PACKED);
	prof_sample(&b, (uint64_t[]){ 8, 10, 2, 1 }, 4, (int64_t[]){ 3 }, 1,
	    NULL, 0, PACKED);
	decode_ok(&b, STRINGS_LAST, &r);
	CHECK(STREQ(stack_str(&r, 0, buf, sizeof buf), "Foo::Bar(int);main"));
	/* runtime.call32 is kept, so the cut is at runtime.newobject. */
	CHECK(STREQ(stack_str(&r, 1, buf, sizeof buf), "runtime.call32;main"));
	CHECK(STREQ(stack_str(&r, 2, buf, sizeof buf), "Foo::Bar(int);main"));
	rec_free(&r);
}

static void
test_bad_regex(void)
{
	static const struct {
		const char	*re, *why;
	} slow[] = {
		{ "(a*)\\1", "invalid escape sequence: \\1" },
		{ "a{1,1001}", "invalid repetition size: {1,1001}" },
		{ "(a{1,100}){1,100}", "invalid repetition size: {1,100}" },
		{ "((((a{1,100}){1,100}){1,100}){1,100}){1,100}",
		    "invalid repetition size: {1,100}" },
		{ "\\pL{1000}", "too large to compile within" },
	};
	struct prof b;
	size_t i;

	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	pbw_int(&b.body, 7, S(&b, "a(b"));
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Profile.drop_frames at byte 6",
	    "bad regular expression \"a(b\"");

	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	pbw_int(&b.body, 7, S(&b, "a"));
	pbw_int(&b.body, 8, S(&b, "x[y"));
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Profile.keep_frames at byte 8",
	    "bad regular expression \"x[y\"");

	/* What glibc was slow on, refused as Go's regexp refuses it; and a
	 * program larger than the memory budget. */
	for (i = 0; i < NITEMS(slow); i++) {
		prof_init(&b);
		pbw_int(&b.body, 7, S(&b, slow[i].re));
		EXPECT_ERROR(&b, NULL, ERR_INPUT,
		    "Profile.drop_frames at byte 0", slow[i].why);
	}
	{
		static char big[5000];

		memset(big, 'a', sizeof big - 1);
		prof_init(&b);
		pbw_int(&b.body, 7, S(&b, big));
		EXPECT_ERROR(&b, NULL, ERR_INPUT,
		    "Profile.drop_frames at byte 0",
		    "regular expression of 4999 bytes, more than 4096");
	}
	/* Brackets, classes and escapes that only look risky are fine. */
	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	pbw_int(&b.body, 7, S(&b, "[\\\\1{]x{2}[[:alpha:]{]{3}|a{100}|"
	    "\\{5000\\}|\\pL+"));
	{
		struct rec r;

		decode_ok(&b, STRINGS_LAST, &r);
		rec_free(&r);
	}

	/* keep_frames is not even compiled without drop_frames. */
	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	pbw_int(&b.body, 8, S(&b, "x[y"));
	{
		struct rec r;

		decode_ok(&b, STRINGS_LAST, &r);
		rec_free(&r);
	}
}

/* A small valid base for the error tests: sample type, mapping 1,
 * function 1, location 1, one sample. */
static void
base(struct prof *b)
{
	prof_init(b);
	prof_vt(b, 1, "samples", "count");
	prof_mapping(b, 1, 0, 0x1000, 0, "m", "", 0);
	prof_fn(b, 1, "f");
	prof_loc(b, 1, 1);
	prof_sample(b, (uint64_t[]){ 1 }, 1, (int64_t[]){ 1 }, 1, NULL, 0,
	    PACKED);
}

/* Append a raw message field num whose contents are varint pairs. */
static void
raw_msg(struct prof *b, uint32_t num, const uint64_t *kv, size_t n)
{
	size_t m = pbw_begin(&b->body, num), i;

	for (i = 0; i < n; i += 2)
		pbw_uint(&b->body, (uint32_t)kv[i], kv[i + 1]);
	pbw_end(&b->body, m);
}

#define RAW(b, num, ...) raw_msg((b), (num), (uint64_t[]){ __VA_ARGS__ }, \
	sizeof((uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

static void
test_string_errors(void)
{
	struct prof b;
	size_t at;
	char want[64];

	/* Each string-index field out of range (the table has < 50). */
	base(&b);
	RAW(&b, 1, 1, 50, 2, 1);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "ValueType.type at byte",
	    "string index 50 out of range");
	base(&b);
	RAW(&b, 1, 1, 1, 2, (uint64_t)-1);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "ValueType.unit at byte",
	    "string index -1 out of range");
	base(&b);
	RAW(&b, 11, 1, 0, 2, 99);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "ValueType.unit at byte", "99");
	base(&b);
	RAW(&b, 3, 1, 2, 5, 50);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Mapping.filename at byte", "50");
	base(&b);
	RAW(&b, 3, 1, 2, 6, 50);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Mapping.build_id at byte", "50");
	base(&b);
	RAW(&b, 5, 1, 2, 2, 50);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Function.name at byte", "50");
	base(&b);
	RAW(&b, 5, 1, 2, 3, 50);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Function.system_name at byte",
	    "50");
	base(&b);
	RAW(&b, 5, 1, 2, 4, 50);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Function.filename at byte", "50");
	base(&b);
	pbw_int(&b.body, 7, 50);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Profile.drop_frames at byte",
	    "50");
	base(&b);
	pbw_int(&b.body, 8, 50);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Profile.keep_frames at byte",
	    "50");
	base(&b);
	pbw_int(&b.body, 14, 50);
	EXPECT_ERROR(&b, NULL, ERR_INPUT,
	    "Profile.default_sample_type at byte", "50");
	base(&b);
	pbw_int(&b.body, 15, 50);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Profile.doc_url at byte", "50");

	/* A comment, packed: the offset of the bad element itself. */
	base(&b);
	at = b.body.n;
	pbw_packed(&b.body, 13, (uint64_t[]){ 0, 1, 50 }, 3);
	snprintf(want, sizeof want, "Profile.comment at byte %zu", at + 4);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, want, "string index 50");
	base(&b);
	pbw_uint(&b.body, 13, 1);
	at = b.body.n;
	pbw_uint(&b.body, 13, 51);
	snprintf(want, sizeof want, "Profile.comment at byte %zu", at);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, want, "string index 51");

	/* Labels: key, str, num_unit, with the exact offset of the field:
	 * sample tag, length, label tag, length, then key (2 bytes). */
	base(&b);
	at = b.body.n;
	{
		size_t m = pbw_begin(&b.body, 2), lm;

		pbw_uint(&b.body, 2, 1);
		lm = pbw_begin(&b.body, 3);
		pbw_uint(&b.body, 1, 1);
		pbw_uint(&b.body, 2, 77);
		pbw_end(&b.body, lm);
		pbw_end(&b.body, m);
	}
	snprintf(want, sizeof want, "Label.str at byte %zu", at + 2 + 2 + 2 +
	    2);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, want, "string index 77");
	base(&b);
	prof_sample(&b, NULL, 0, (int64_t[]){ 1 }, 1,
	    (struct lab[]){ { "k", NULL, 1, NULL } }, 1, PACKED);
	{
		size_t m = pbw_begin(&b.body, 2), lm;

		pbw_uint(&b.body, 2, 1);
		lm = pbw_begin(&b.body, 3);
		pbw_uint(&b.body, 1, 60);
		pbw_end(&b.body, lm);
		pbw_end(&b.body, m);
	}
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Label.key at byte",
	    "string index 60");
	base(&b);
	{
		size_t m = pbw_begin(&b.body, 2), lm;

		pbw_uint(&b.body, 2, 1);
		lm = pbw_begin(&b.body, 3);
		pbw_uint(&b.body, 1, 1);
		pbw_uint(&b.body, 3, 5);
		pbw_uint(&b.body, 4, 61);
		pbw_end(&b.body, lm);
		pbw_end(&b.body, m);
	}
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Label.num_unit at byte",
	    "string index 61");

	/* string_table[0] must be "". */
	prof_init(&b);
	b.strs[0] = "notempty";
	prof_vt(&b, 1, "samples", "count");
	{
		struct buf blob;
		struct rec r;
		struct error err;

		prof_finish(&b, &blob, STRINGS_FIRST);
		CHECK(decode(&blob, NULL, &r, &err) == -1);
		CHECK(err.kind == ERR_INPUT);
		CHECK(strstr(err.msg, "pprof: Profile.string_table at byte 0: "
		    "string_table[0] must be \"\"") != NULL);
		CHECK(r.calls == 0);
		buf_free(&blob);
	}

	/* No string table at all. */
	{
		struct buf blob;
		struct rec r;
		struct error err;

		memset(&blob, 0, sizeof blob);
		pbw_int(&blob, 9, 1);
		CHECK(decode(&blob, NULL, &r, &err) == -1);
		CHECK(strstr(err.msg, "Profile.string_table at byte") != NULL);
		CHECK(strstr(err.msg, "missing") != NULL);
		buf_free(&blob);

		/* And an empty blob. */
		CHECK(decode(&blob, NULL, &r, &err) == -1);
		CHECK(err.kind == ERR_INPUT &&
		    STREQ(err.msg, "pprof: empty profile"));
	}
}

static void
test_id_errors(void)
{
	struct prof b;
	size_t at;
	char want[80];

	base(&b);
	RAW(&b, 3, 2, 5);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Mapping.id at byte",
	    "mapping id missing or 0");
	base(&b);
	at = b.body.n;
	RAW(&b, 3, 1, 1);
	snprintf(want, sizeof want, "Mapping.id at byte %zu", at + 2);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, want, "duplicate mapping id 1");
	base(&b);
	RAW(&b, 5, 1, 0);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Function.id at byte",
	    "function id missing or 0");
	base(&b);
	RAW(&b, 5, 1, 1);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Function.id at byte",
	    "duplicate function id 1");
	base(&b);
	RAW(&b, 4, 3, 5);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Location.id at byte",
	    "location id missing or 0");
	base(&b);
	RAW(&b, 4, 1, 1);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Location.id at byte",
	    "duplicate location id 1");
	base(&b);
	at = b.body.n;
	RAW(&b, 4, 1, 2, 2, 9);
	snprintf(want, sizeof want, "Location.mapping_id at byte %zu", at + 4);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, want, "mapping id 9 is not defined");

	/* Line.function_id undefined, and missing. */
	base(&b);
	at = b.body.n;
	prof_location(&b, 2, 0, 0, (struct ln[]){ { 1, 1, 0 }, { 8, 1, 0 } },
	    2, 0);
	/* loc tag, len, id (2), address (2), line 1 (2 + 4), line 2 tag,
	 * len, then function_id. */
	snprintf(want, sizeof want, "Line.function_id at byte %zu",
	    at + 2 + 2 + 2 + 6 + 2);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, want,
	    "function id 8 is not defined");
	base(&b);
	prof_location(&b, 2, 0, 0, (struct ln[]){ { 0, 1, 0 } }, 1, 0);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Line.function_id at byte",
	    "function id missing or 0");

	/* Sample.location_id: the offset of the bad element, packed... */
	base(&b);
	at = b.body.n;
	prof_sample(&b, (uint64_t[]){ 1, 1, 99 }, 3, (int64_t[]){ 1 }, 1,
	    NULL, 0, PACKED);
	snprintf(want, sizeof want, "pprof: Sample.location_id at byte %zu: "
	    "location id 99 is not defined", at + 2 + 2 + 2);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, want, NULL);
	/* ...and unpacked. */
	base(&b);
	at = b.body.n;
	prof_sample(&b, (uint64_t[]){ 1, 1, 99 }, 3, (int64_t[]){ 1 }, 1,
	    NULL, 0, UNPACKED);
	snprintf(want, sizeof want, "pprof: Sample.location_id at byte %zu: "
	    "location id 99 is not defined", at + 2 + 2 + 2);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, want, NULL);
	base(&b);
	prof_sample(&b, (uint64_t[]){ 0 }, 1, (int64_t[]){ 1 }, 1, NULL, 0,
	    UNPACKED);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Sample.location_id at byte",
	    "location id 0 is not defined");

	/* Values: one per sample type. */
	base(&b);
	at = b.body.n;
	prof_sample(&b, (uint64_t[]){ 1 }, 1, (int64_t[]){ 1, 2 }, 2, NULL, 0,
	    PACKED);
	snprintf(want, sizeof want, "Sample.value at byte %zu", at);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, want, "2 values for 1 sample types");
	base(&b);
	prof_sample(&b, (uint64_t[]){ 1 }, 1, NULL, 0, NULL, 0, PACKED);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Sample.value at byte",
	    "0 values for 1 sample types");
	prof_init(&b);
	prof_sample(&b, NULL, 0, NULL, 0, NULL, 0, PACKED);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Profile.sample at byte 0",
	    "no sample_type");
}

static void
test_wire_errors(void)
{
	struct prof b;

	/* A known field with the wrong wire type. */
	base(&b);
	pbw_uint(&b.body, 2, 1);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Profile.sample at byte",
	    "wire type 0, expected length-delimited");
	base(&b);
	pbw_str(&b.body, 9, "x");
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Profile.time_nanos at byte",
	    "expected varint");
	base(&b);
	{
		size_t m = pbw_begin(&b.body, 4);

		pbw_uint(&b.body, 1, 5);
		pbw_uint(&b.body, 4, 5);	/* a Line as a varint */
		pbw_end(&b.body, m);
	}
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Location.line at byte",
	    "expected length-delimited");
	base(&b);
	{
		size_t m = pbw_begin(&b.body, 2);

		pbw_fixed64(&b.body, 1, 1);	/* location_id fixed64 */
		pbw_end(&b.body, m);
	}
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Sample.location_id at byte",
	    "wire type 1");

	/* Broken wire inside nested messages: named and placed. */
	base(&b);
	{
		size_t m = pbw_begin(&b.body, 5);
		char want[64];

		pbw_uint(&b.body, 1, 3);
		snprintf(want, sizeof want, "pprof: Function: field 1 at byte "
		    "%zu:", b.body.n + 1);	/* + the length byte */
		pbw_byte(&b.body, 0x0b);		/* a group */
		pbw_end(&b.body, m);
		EXPECT_ERROR(&b, NULL, ERR_INPUT, want, "group wire type");
	}
	base(&b);
	{
		size_t m = pbw_begin(&b.body, 2);

		pbw_key(&b.body, 1, PB_LEN);
		pbw_byte(&b.body, 2);
		pbw_byte(&b.body, 0x80);
		pbw_byte(&b.body, 0x80);
		pbw_end(&b.body, m);
	}
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Sample.location_id at byte",
	    "truncated varint in packed field");
	base(&b);
	pbw_key(&b.body, 3, PB_LEN);
	pbw_byte(&b.body, 100);		/* past the end */
	{
		struct buf blob;
		struct rec r;
		struct error err;

		prof_finish(&b, &blob, STRINGS_FIRST);
		CHECK(decode(&blob, NULL, &r, &err) == -1);
		CHECK(strstr(err.msg, "pprof: Profile: field 3 length at byte")
		    != NULL);
		CHECK(strstr(err.msg, "past the end") != NULL);
		CHECK(r.calls == 0);
		buf_free(&blob);
	}

	/* Two time_nanos: concatenated profiles, refused as Go does. */
	base(&b);
	pbw_int(&b.body, 9, 1);
	pbw_int(&b.body, 9, 2);
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Profile.time_nanos at byte",
	    "concatenated");
}

static void
test_limits(void)
{
	struct limits lim;
	struct prof b;
	struct rec r;
	struct ln inl[] = { { 1, 1, 0 }, { 1, 2, 0 }, { 1, 3, 0 } };

	bounds_default(&lim);
	lim.max_strings = 4;
	prof_init(&b);			/* "", samples, count, x */
	prof_vt(&b, 1, "samples", "count");
	S(&b, "x");
	{
		struct buf blob;
		struct error err;

		prof_finish(&b, &blob, STRINGS_LAST);
		CHECK(decode(&blob, &lim, &r, &err) == 0);
		rec_free(&r);
		buf_free(&blob);
	}
	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	S(&b, "x");
	S(&b, "y");
	EXPECT_ERROR(&b, &lim, ERR_TOO_LARGE, "Profile.string_table at byte",
	    "more than 4 strings");

	bounds_default(&lim);
	lim.max_string_len = 7;			/* "samples" fits */
	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	S(&b, "1234567");
	S(&b, "12345678");
	EXPECT_ERROR(&b, &lim, ERR_TOO_LARGE, "Profile.string_table at byte",
	    "string of 8 bytes exceeds max_string_len 7");

	/* Depth counts frames after inline expansion: 2 locations, 4
	 * frames. */
	bounds_default(&lim);
	lim.max_stack_depth = 4;
	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	prof_fn(&b, 1, "f");
	prof_loc(&b, 1, 1);
	prof_location(&b, 2, 0, 0, inl, 3, 0);
	prof_sample(&b, (uint64_t[]){ 2, 1 }, 2, (int64_t[]){ 1 }, 1, NULL, 0,
	    PACKED);
	{
		struct buf blob;
		struct error err;

		prof_finish(&b, &blob, STRINGS_LAST);
		CHECK(decode(&blob, &lim, &r, &err) == 0);
		CHECK(r.nsamples == 1 && r.stacks[0].n == 4);
		rec_free(&r);
		lim.max_stack_depth = 3;
		CHECK(decode(&blob, &lim, &r, &err) == -1);
		CHECK(err.kind == ERR_TOO_LARGE);
		CHECK(strstr(err.msg, "pprof: Sample.location_id at byte ") !=
		    NULL);
		CHECK(strstr(err.msg, "stack of 4 frames exceeds "
		    "max_stack_depth 3") != NULL);
		/* Found as the sample is read: after the metrics, before
		 * anything of the sample. */
		CHECK(!r.seen_meta && r.nsamples == 0 && r.nstacks == 0);
		rec_free(&r);
		buf_free(&blob);
	}
}

/* Ids far apart take the hash path; the answer must not change. */
static void
test_sparse_ids(void)
{
	static const uint64_t ids[] = { 7, 1ull << 40, 123456789,
	    UINT64_MAX, 3 };
	static const char *maps[] = { "m0", "m1", "m2", "m3", "m4" };
	static const char *fns[] = { "f0", "f1", "f2", "f3", "f4" };
	struct prof b;
	struct rec r;
	char buf[256];
	size_t i;

	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	for (i = 0; i < NITEMS(ids); i++) {
		prof_mapping(&b, ids[i], 0, 1, 0, maps[i], "", 0);
		prof_fn(&b, ids[NITEMS(ids) - 1 - i], fns[i]);
		prof_location(&b, ids[i], ids[i], i,
		    (struct ln[]){ { ids[i], 1, 0 } }, 1, 0);
	}
	prof_sample(&b, ids, NITEMS(ids), (int64_t[]){ 1 }, 1, NULL, 0,
	    PACKED);
	decode_ok(&b, STRINGS_LAST, &r);
	/* Location ids[i] has function ids[i], named f(4 - i). */
	CHECK(STREQ(stack_str(&r, 0, buf, sizeof buf), "f4;f3;f2;f1;f0"));
	for (i = 0; i < NITEMS(ids); i++)
		CHECK(STREQ(r.maps[r.frames[r.stacks[0].ids[i] - 1].mapping -
		    1].file, maps[i]));
	rec_free(&r);

	/* A duplicate is still found on the hash path. */
	prof_init(&b);
	prof_vt(&b, 1, "samples", "count");
	prof_fn(&b, 1ull << 50, "a");
	prof_fn(&b, 5, "b");
	prof_fn(&b, 1ull << 50, "c");
	EXPECT_ERROR(&b, NULL, ERR_INPUT, "Function.id at byte",
	    "duplicate function id 1125899906842624");
}

static void
test_sink_failure(void)
{
	struct prof b;
	struct buf blob;
	struct rec r;
	struct sink s;
	struct error err;
	const char *kinds = "TMFRKLSX";
	size_t i;

	build_full(&b);
	prof_finish(&b, &blob, STRINGS_LAST);
	for (i = 0; kinds[i] != '\0'; i++) {
		s = rec_sink(&r);
		r.fail_on = kinds[i];
		error_clear(&err);
		CHECK(pprof_decode(blob.p, blob.n, NULL, &s, &err) == -1);
		CHECK(err.kind == ERR_INTERNAL);
		CHECK(strstr(err.msg, "test sink") != NULL);
		rec_free(&r);
	}
	buf_free(&blob);
}

static void
test_sniff(void)
{
	static const uint8_t perfetto[] = { 0x0a, 0x06, 0x40, 0x01, 0x50, 0x02,
	    0x08, 0x01 };
	struct prof b;
	struct buf blob;
	size_t i;

	build_full(&b);
	prof_finish(&b, &blob, STRINGS_LAST);
	CHECK(pprof_sniff(blob.p, blob.n) == 1);
	/* A prefix still looks like one. */
	for (i = 2; i < 40; i++)
		CHECK(pprof_sniff(blob.p, i) == 1);
	buf_free(&blob);

	CHECK(pprof_sniff(NULL, 0) == 0);
	CHECK(pprof_sniff((const uint8_t *)"", 0) == 0);
	CHECK(pprof_sniff(perfetto, sizeof perfetto) == 0);
	CHECK(pprof_sniff((const uint8_t *)"\x1f\x8b\x08\x00", 4) == 0);
	CHECK(pprof_sniff((const uint8_t *)"main;foo;bar 12\n", 16) == 0);
	CHECK(pprof_sniff((const uint8_t *)"HELLO world", 11) == 0);
	CHECK(pprof_sniff((const uint8_t *)"\x80\x01\x00", 3) == 0);
	/* Field 16+ and wrong wire types. */
	CHECK(pprof_sniff((const uint8_t *)"\x80\x01\x01", 3) == 0);
	CHECK(pprof_sniff((const uint8_t *)"\x08\x01", 2) == 0);
	CHECK(pprof_sniff((const uint8_t *)"\x48\x01", 2) == 1);
	CHECK(pprof_sniff((const uint8_t *)"\x6a\x01\x01", 3) == 1);
	CHECK(pprof_sniff((const uint8_t *)"\x68\x01", 2) == 1);
	CHECK(pprof_sniff((const uint8_t *)"\x32\x00\x32\x01\x61", 5) == 1);
}

/* Read and gunzip a fixture into raw; 0 if it is not there. */
static int
read_fixture(const char *name, struct buf *raw)
{
	char path[4096];
	struct buf gz = { NULL, 0, 0 };
	z_stream zs;
	FILE *fp;
	char buf[65536];
	size_t n;
	int zr;

	snprintf(path, sizeof path, "%s/%s", FIXTURES_DIR, name);
	if ((fp = fopen(path, "rb")) == NULL) {
		printf("test_pprof: %s missing, skipped\n", path);
		return 0;
	}
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		buf_add(&gz, buf, n);
	fclose(fp);

	memset(raw, 0, sizeof *raw);
	memset(&zs, 0, sizeof zs);
	CHECK(inflateInit2(&zs, 15 + 32) == Z_OK);	/* gzip or zlib */
	zs.next_in = gz.p;
	zs.avail_in = (uInt)gz.n;
	do {
		zs.next_out = (Bytef *)buf;
		zs.avail_out = sizeof buf;
		zr = inflate(&zs, Z_NO_FLUSH);
		CHECK(zr == Z_OK || zr == Z_STREAM_END);
		buf_add(raw, buf, sizeof buf - zs.avail_out);
	} while (zr != Z_STREAM_END);
	inflateEnd(&zs);
	buf_free(&gz);
	return 1;
}

static int
has_metric(const struct rec *r, const char *type, const char *unit)
{
	size_t i;

	for (i = 0; i < r->nmetrics; i++) {
		if (STREQ(r->mtype[i], type) && STREQ(r->munit[i], unit))
			return 1;
	}
	return 0;
}

/* The real thing: profiles written by Go's runtime/pprof, gzipped. */
static void
test_fixtures(void)
{
	static const char *names[] = { "cpu.pprof", "heap.pprof",
	    "mutex.pprof", "block.pprof" };
	struct buf raw;
	struct rec r;
	struct sink s;
	struct error err;
	size_t i, j, k, inlined;
	int num_labels, str_labels;

	for (i = 0; i < NITEMS(names); i++) {
		if (!read_fixture(names[i], &raw))
			continue;
		CHECK(pprof_sniff(raw.p, raw.n) == 1);
		s = rec_sink(&r);
		error_clear(&err);
		if (pprof_decode(raw.p, raw.n, NULL, &s, &err) != 0)
			fprintf(stderr, "%s: %s\n", names[i], err.msg);
		CHECK(err.kind == ERR_NONE);
		CHECK(r.nsamples > 0 && r.meta.samples == r.nsamples);
		CHECK(r.nmetrics >= 1 && r.has_meta && !r.bad_order);
		CHECK(r.meta.default_metric >= 0 &&
		    (size_t)r.meta.default_metric < r.nmetrics);
		CHECK(r.meta.time_ns > 0);
		for (j = inlined = 0; j < r.nframes; j++) {
			if (r.frames[j].flags & FRAME_INLINED)
				inlined++;
		}
		for (j = num_labels = str_labels = 0; j < r.nlabelsets; j++) {
			for (k = 0; k < r.labelsets[j].n; k++) {
				if (r.labelsets[j].l[k].is_num)
					num_labels++;
				else
					str_labels++;
			}
		}
		if (i == 0) {
			CHECK(has_metric(&r, "samples", "count"));
			CHECK(has_metric(&r, "cpu", "nanoseconds"));
			CHECK(STREQ(r.period_type, "cpu") &&
			    STREQ(r.period_unit, "nanoseconds"));
			CHECK(r.meta.period == 10000000);
			CHECK(r.meta.default_metric == 1);
			CHECK(inlined > 0 && str_labels > 0);
		}
		if (i == 1) {
			CHECK(r.nmetrics == 4);
			CHECK(has_metric(&r, "inuse_space", "bytes"));
			CHECK(num_labels > 0);
		}
		printf("test_pprof: %s: %zu samples, %zu frames (%zu inlined), "
		    "%zu functions\n", names[i], r.nsamples, r.nframes, inlined,
		    r.nfuncs);
		rec_free(&r);
		buf_free(&raw);
	}
}

/* A pprof the decoder owns (pprof_decode_stream) gives back the input
 * its walk has passed, the string table kept: with the strings between
 * two runs of samples, many MiB each, the decode is the one of a buffer
 * kept whole. */
static void
test_release(void)
{
	struct buf blob = { 0 }, one = { 0 };
	struct rec a, b;
	struct sink s;
	struct limits lim;
	struct error err;
	struct stream *in;
	char x[64], y[64];
	size_t i, m, lm, half = 700000;
	uint64_t locs[2];
	int64_t sa = 0, sb = 0;

	/* sample type (1, 2) = ("s", "t"); functions "a" (3), "b" (4). */
	m = pbw_begin(&blob, 1);
	pbw_uint(&blob, 1, 1);
	pbw_uint(&blob, 2, 2);
	pbw_end(&blob, m);
	for (i = 0; i < 2; i++) {
		m = pbw_begin(&blob, 5);
		pbw_uint(&blob, 1, i + 1);
		pbw_uint(&blob, 2, i + 3);
		pbw_end(&blob, m);
		m = pbw_begin(&blob, 4);
		pbw_uint(&blob, 1, i + 1);
		one.n = 0;
		pbw_uint(&one, 1, i + 1);
		pbw_bytes(&blob, 4, one.p, one.n);
		pbw_end(&blob, m);
	}
	for (i = 0; i < 2 * half; i++) {
		if (i == half) {
			pbw_str(&blob, 6, "");
			pbw_str(&blob, 6, "s");
			pbw_str(&blob, 6, "t");
			pbw_str(&blob, 6, "a");
			pbw_str(&blob, 6, "b");
			pbw_str(&blob, 6, "k");
			pbw_str(&blob, 6, "v");
		}
		m = pbw_begin(&blob, 2);
		if (i + 1 == 2 * half) {
			/* Strings first read at the very end. */
			lm = pbw_begin(&blob, 3);
			pbw_uint(&blob, 1, 5);
			pbw_uint(&blob, 2, 6);
			pbw_end(&blob, lm);
		}
		locs[0] = 1 + i % 2;
		locs[1] = 2 - i % 2;
		pbw_packed(&blob, 1, locs, 1 + i % 3 / 2);
		pbw_packed(&blob, 2, (uint64_t[]){ i + 1 }, 1);
		pbw_end(&blob, m);
	}
	CHECK(blob.n > (10u << 20));	/* releases of 4 MiB, both sides */
	s = rec_sink(&a);
	CHECK(pprof_decode(blob.p, blob.n, NULL, &s, &err) == 0);
	bounds_default(&lim);
	s = rec_sink(&b);
	in = stream_mem(blob.p, blob.n);
	CHECK(pprof_decode_stream(in, NULL, &lim, &s, &err) == 0);
	stream_free(in);
	CHECK(a.nsamples == 2 * half && b.nsamples == a.nsamples);
	for (i = 0; i < a.nsamples; i++) {
		sa += a.samples[i].values[0];
		sb += b.samples[i].values[0];
	}
	CHECK(sa == sb && sa == (int64_t)(2 * half * (2 * half + 1) / 2));
	for (i = 0; i < a.nsamples; i += half / 2 + 1)
		CHECK(STREQ(stack_str(&a, i, x, sizeof x),
		    stack_str(&b, i, y, sizeof y)));
	CHECK(STREQ(stack_str(&b, 2 * half - 1, y, sizeof y), "b"));
	CHECK(STREQ(labels_str(&b, 2 * half - 1, y, sizeof y), "k=v"));
	CHECK(STREQ(stack_str(&b, 2 * half - 3, y, sizeof y), "b;a"));
	rec_free(&a);
	rec_free(&b);
	buf_free(&blob);
	buf_free(&one);
}

int
main(void)
{
	test_release();
	test_full();
	test_order_and_unknown();
	test_packed_unpacked();
	test_inline();
	test_unsymbolized();
	test_labels();
	test_default_metric();
	test_drop_keep();
	test_drop_realistic();
	test_bad_regex();
	test_string_errors();
	test_id_errors();
	test_wire_errors();
	test_limits();
	test_sparse_ids();
	test_sink_failure();
	test_sniff();
	test_fixtures();
	printf("test_pprof: %u checks passed\n", checks);
	return 0;
}
