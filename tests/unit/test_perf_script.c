/* test_perf_script.c: the perf script decoder and sniffer, on texts in the
 * forms perf 6.1 prints (perf record -g, without -g, -a with its cpu
 * column, -F +pid, --header, --inline, -F +srcline, two events), and on
 * cut and garbled ones.  A recording sink keeps what was emitted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "alloc.h"
#include "bounds.h"
#include "buf.h"
#include "clock.h"
#include "error.h"
#include "format.h"
#include "model.h"
#include "mstr.h"
#include "perf-script.h"
#include "stream.h"
#include "testrec.h"

static int
decode_lim(const char *text, const struct limits *lim, int drip,
    struct rec *r, struct error *err)
{
	struct sink sink = rec_sink(r);
	struct limits deflim;
	struct decode_opts opts;
	struct drip d = { (const uint8_t *)text, strlen(text), 1 };
	struct stream_source src = { drip_read, NULL, &d };
	struct stream *in;
	int rc;

	if (lim == NULL) {
		bounds_default(&deflim);
		lim = &deflim;
	}
	memset(&opts, 0, sizeof opts);
	error_clear(err);
	in = drip ? stream_new(&src) : stream_mem((const uint8_t *)text,
	    strlen(text));
	rc = perf_script_decode(in, &opts, lim, &sink, err);
	stream_free(in);
	/* A second event's metric is declared where it is first seen, as
	 * model.h allows; nothing comes after meta. */
	CHECK(!r->after_meta && (!r->bad_order || r->nmetrics > 1));
	if (rc == 0) {
		CHECK(err->kind == ERR_NONE);
		CHECK(r->nmeta == 1);
		CHECK(r->meta.samples == r->nsamples);
		CHECK(r->meta.default_metric == 0);
	} else {
		CHECK(rc == -1 && err->kind != ERR_NONE && err->msg[0] != '\0');
		CHECK(r->nmeta == 0 && r->nsamples == 0);
	}
	return rc;
}

static int
decode(const char *text, struct rec *r, struct error *err)
{
	struct rec r2;
	struct error e2;
	int rc = decode_lim(text, NULL, 0, r, err), rc2;
	size_t i;

	/* Read a few bytes at a time, the same calls. */
	rc2 = decode_lim(text, NULL, 1, &r2, &e2);
	CHECK(rc2 == rc && r2.nsamples == r->nsamples &&
	    r2.nframes == r->nframes && r2.nfuncs == r->nfuncs);
	if (rc == 0)
		for (i = 0; i < r->nsamples; i++)
			CHECK(r2.samples[i].stack == r->samples[i].stack);
	else
		CHECK(STREQ(e2.msg, err->msg));
	rec_free(&r2);
	return rc;
}

/* The recorded stack of sample i as "root;...;leaf", a frame without a
 * function as "[FILE]" of its mapping or "?", with "@0xADDR" when asked. */
static char *
stack_text(const struct rec *r, size_t i, int addr)
{
	struct buf b = { 0 };
	const struct rstack *s;
	const struct model_frame *f;
	size_t j;

	if (r->samples[i].stack == 0) {
		buf_add(&b, "", 1);
		return (char *)b.p;
	}
	s = &r->stacks[r->samples[i].stack - 1];
	for (j = s->n; j-- > 0;) {
		f = &r->frames[s->ids[j] - 1];
		if (f->function > 0)
			buf_printf(&b, "%s", r->funcs[f->function - 1].name);
		else if (f->mapping > 0)
			buf_printf(&b, "[%s]", r->maps[f->mapping - 1].file);
		else
			buf_printf(&b, "?");
		if (addr)
			buf_printf(&b, "@%#llx", (unsigned long long)f->address);
		if (j > 0)
			buf_add(&b, ";", 1);
	}
	buf_add(&b, "", 1);
	return (char *)b.p;
}

static void
check_stack(const struct rec *r, size_t i, int addr, const char *want)
{
	char *s = stack_text(r, i, addr);

	CHECK(s != NULL);
	if (s != NULL && !STREQ(s, want))
		fprintf(stderr, "sample %zu: %s, want %s\n", i, s, want);
	CHECK(s != NULL && STREQ(s, want));
	free(s);
}

/* Label key of sample i: its string or number as text, "" if none. */
static const char *
label(const struct rec *r, size_t i, const char *key, char *buf)
{
	const struct rlabelset *ls;
	size_t j;

	buf[0] = '\0';
	if (r->samples[i].labelset == 0)
		return buf;
	ls = &r->labelsets[r->samples[i].labelset - 1];
	for (j = 0; j < ls->n; j++)
		if (STREQ(ls->l[j].key, key)) {
			if (ls->l[j].is_num)
				sprintf(buf, "%lld", (long long)ls->l[j].num);
			else
				snprintf(buf, 64, "%s", ls->l[j].str);
		}
	return buf;
}

#define HDR \
	"# ========\n" \
	"# captured on    : Mon Dec  7 03:37:57 2026\n" \
	"# hostname : vm\n" \
	"# perf version : 6.1.187\n" \
	"# time of first sample : 22167.244294\n" \
	"# time of last sample : 22169.084792\n" \
	"# ========\n" \
	"#\n"
#define S1 \
	"hot 13970/13970 22167.244294:    1001001 cpu-clock:ppp: \n" \
	"\t            1172 burn+0x39 (/tmp/perf42-x/hot)\n" \
	"\t            118e alpha+0xe (/tmp/perf42-x/hot)\n" \
	"\t            11f3 main+0x40 (/tmp/perf42-x/hot)\n" \
	"\t           2724a __libc_start_call_main+0x7a " \
	    "(/usr/lib/x86_64-linux-gnu/libc.so.6)\n" \
	"\n"
#define S2 \
	"hot 13970/13971 22169.084792:    1001002 cpu-clock:ppp: \n" \
	"\t            1176 burn+0x3d (/tmp/perf42-x/hot)\n" \
	"\t            11a0 beta+0xe (/tmp/perf42-x/hot)\n" \
	"\t            cf5c [unknown] (/usr/bin/grep)\n" \
	"\t    55ff734625e0 [unknown] ([unknown])\n" \
	"\n"

static void
test_callchains(void)
{
	struct rec r;
	struct error err;
	char b[64];
	int64_t captured;
	struct tm tm = { .tm_year = 126, .tm_mon = 11, .tm_mday = 7,
	    .tm_hour = 3, .tm_min = 37, .tm_sec = 57, .tm_isdst = -1 };

	CHECK(decode(HDR S1 S2, &r, &err) == 0);
	CHECK(r.nmetrics == 1 && STREQ(r.mtype[0], "cpu-clock") &&
	    STREQ(r.munit[0], "nanoseconds"));
	CHECK(r.nsamples == 2);
	CHECK(r.samples[0].values[0] == 1001001);
	CHECK(r.samples[1].values[0] == 1001002);
	check_stack(&r, 0, 0, "__libc_start_call_main;main;alpha;burn");
	check_stack(&r, 1, 1, "?@0x55ff734625e0;[/usr/bin/grep]@0xcf5c;"
	    "beta@0x11a0;burn@0x1176");
	CHECK(STREQ(label(&r, 0, "comm", b), "hot"));
	CHECK(STREQ(label(&r, 1, "pid", b), "13970"));
	CHECK(STREQ(label(&r, 1, "tid", b), "13971"));
	CHECK(STREQ(label(&r, 1, "cpu", b), ""));
	/* The last sample at the file's time, the first 1.840498 s before. */
	captured = (int64_t)mktime(&tm) * 1000000000;
	CHECK(r.samples[1].time_ns == captured);
	CHECK(r.samples[0].time_ns == captured - 1840498000);
	CHECK(r.meta.time_ns == r.samples[0].time_ns);
	CHECK(r.meta.duration_ns == 1840498000);
	rec_free(&r);

	/* Without the header: the last sample at the import's time. */
	{
		int64_t before = now_ns(), after;

		CHECK(decode(S1 S2, &r, &err) == 0);
		after = now_ns();
		CHECK(r.samples[1].time_ns >= before - 1000000000 &&
		    r.samples[1].time_ns <= after);
		CHECK(r.samples[1].time_ns - r.samples[0].time_ns ==
		    1840498000);
		rec_free(&r);
	}
}

static void
test_one_line(void)
{
	struct rec r;
	struct error err;
	char b[64];
	const char *text =
	    "             hot 17316 [001] 22208.756271:    1001001 "
	    "cpu-clock:ppp:      563d1083216d burn+0x34 (/tmp/perf42-x/hot)\n"
	    "V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:u:  "
	    "   7f00aa std::vector<int>::push_back(int const&)+0x12 "
	    "(/opt/x (new)/lib.so)\n"
	    "  kworker/u4:2    99 [001] 94565.0: 3 cycles:u: \n";

	CHECK(decode(text, &r, &err) == 0);
	CHECK(r.nmetrics == 2 && STREQ(r.mtype[1], "cycles") &&
	    STREQ(r.munit[1], "count"));
	CHECK(r.samples[0].values[0] == 1001001 &&
	    r.samples[0].values[1] == 0);
	CHECK(r.samples[1].values[0] == 0 && r.samples[1].values[1] == 100);
	check_stack(&r, 0, 1, "burn@0x563d1083216d");
	check_stack(&r, 1, 0, "std::vector<int>::push_back(int const&)");
	CHECK(STREQ(r.maps[1].file, "/opt/x (new)/lib.so"));
	check_stack(&r, 2, 0, "");
	CHECK(STREQ(label(&r, 0, "tid", b), "17316"));
	CHECK(STREQ(label(&r, 0, "pid", b), ""));
	CHECK(STREQ(label(&r, 0, "cpu", b), "1"));
	CHECK(STREQ(label(&r, 1, "comm", b), "V8 WorkerThread"));
	CHECK(STREQ(label(&r, 1, "pid", b), "24636"));
	CHECK(STREQ(label(&r, 2, "comm", b), "kworker/u4:2"));
	rec_free(&r);
}

static void
test_variants(void)
{
	struct rec r;
	struct error err;

	/* No period: a sample each; tracepoint names keep their colon; no
	 * time: the profile's; PERF_RECORD lines skipped and counted. */
	CHECK(decode("hot 1 [000] 5.5: PERF_RECORD_MMAP2 1/1: [0x1(0x2) @ 0 "
	    "00:00 0 0]: r-xp /tmp/hot\n"
	    "hot 1 sched:sched_switch: prev_comm=hot prev_pid=1\n"
	    "\t 10 schedule+0x1 ([kernel.kallsyms])\n"
	    "\n", &r, &err) == 0);
	CHECK(STREQ(r.mtype[0], "sched:sched_switch") &&
	    STREQ(r.munit[0], "samples"));
	CHECK(r.nsamples == 1 && r.samples[0].values[0] == 1 &&
	    r.samples[0].time_ns == 0 && r.meta.time_ns == 0);
	CHECK(r.meta.ncounts == 1 && STREQ(r.cname[0], "records_skipped") &&
	    r.cn[0] == 1);
	rec_free(&r);

	/* --inline and -F +srcline. */
	CHECK(decode("inl 5 100.000001: 7 task-clock:\n"
	    "\t            116f inner (inlined)\n"
	    "  inl.c:2\n"
	    "\t            116f outer+0xf (/tmp/inl)\n"
	    "  inl.c:3\n"
	    "\t           2724a main+0x7a (/tmp/inl)\n"
	    "  ??:0\n"
	    "\n", &r, &err) == 0);
	check_stack(&r, 0, 0, "main;outer;inner");
	CHECK(STREQ(r.munit[0], "nanoseconds"));
	CHECK(r.frames[0].flags == FRAME_INLINED && r.frames[0].line == 2 &&
	    r.frames[0].mapping == r.frames[1].mapping &&
	    r.frames[0].mapping > 0);
	CHECK(STREQ(r.funcs[0].file, "inl.c") && r.frames[1].line == 3);
	CHECK(r.frames[2].line == 0 && STREQ(r.funcs[2].file, ""));
	rec_free(&r);

	/* A frame of an address alone (-F ip): no function, no mapping
	 * (fuzz.perf_script's first find: its names' buffer was empty). */
	CHECK(decode("h 1 1.0: 1 c:\n\t 1\n\n", &r, &err) == 0);
	check_stack(&r, 0, 1, "?@0x1");
	rec_free(&r);

	/* Unix times (perf record -k CLOCK_REALTIME) are kept; CRLF read. */
	CHECK(decode("a 1 1796000000.000000001: 1 cpu-clock:\r\n"
	    "\t 1 f (/x)\r\n\r\n", &r, &err) == 0);
	CHECK(r.samples[0].time_ns == 1796000000000000001ll);
	rec_free(&r);
}

static void
bad(const char *text, const char *want)
{
	struct rec r;
	struct error err;

	CHECK(decode(text, &r, &err) == -1);
	if (strstr(err.msg, want) == NULL)
		fprintf(stderr, "error \"%s\", want \"%s\"\n", err.msg, want);
	CHECK(strstr(err.msg, want) != NULL);
	CHECK(err.kind == ERR_INPUT);
	rec_free(&r);
}

static void
test_refused(void)
{
	struct rec r;
	struct error err;
	struct limits lim;
	char *deep;

	/* Cut inside a line, after a frame, garbled, out of place. */
	bad(S1 "hot 13970/13970 22167.2: 1001001 cpu-clock:ppp: \n\t 11 b",
	    "line 8, byte 341: the text ends inside a line");
	bad(S1 "hot 13970 22167.2: 1001001 cpu-clock:ppp: \n\t 11 b (/x)\n",
	    "the text ends inside the sample of line 7");
	bad(S1 "hot 13970/13970 22167.3: 1 cpu-clock:ppp: \n"
	    "\t 11 a (/x)\nhot 1 2.0: 1 cpu-clock:\n",
	    "line 9, byte 341: a sample's frames not ended by a blank line "
	    "(the sample of line 7)");
	bad(S1 "this is not perf\n", "line 7, byte 286: not a sample line");
	bad(S1 "\t 11 a (/x)\n", "line 7, byte 286: a frame line outside a "
	    "sample");
	bad("h 1 1.0: 1 c:\n\tzz a\n\n", "line 2, byte 15: a frame does not "
	    "start with its address");
	bad("h 1 1.0: 1 c: 11 a (/x)\n\t 11 a (/x)\n\n", "line 2, byte 24: a "
	    "frame line outside a sample");
	bad(S1 "# captured on : Mon\n" S1, "line 7, byte 286: a '#' line "
	    "after the samples began");
	bad(HDR, "perf-script: no samples in the input (8 lines)");
	bad("h 1 1.0: 1 c:\n\t 1 a\xff\n\n", "line 2, byte 19: invalid UTF-8");
	{
		static const char nul[] = "h 1 1.0: 1 c:\n\t 1 a\0b\n\n";
		struct sink sink = rec_sink(&r);
		struct stream *in = stream_mem((const uint8_t *)nul,
		    sizeof nul - 1);

		bounds_default(&lim);
		error_clear(&err);
		CHECK(perf_script_decode(in, NULL, &lim, &sink, &err) == -1);
		CHECK(strstr(err.msg, "line 2, byte 19: a NUL byte") != NULL);
		CHECK(r.nsamples == 0 && r.nmeta == 0);
		stream_free(in);
		rec_free(&r);
	}

	bounds_default(&lim);
	lim.max_stack_depth = 3;
	deep = xstrdup("h 1 1.0: 1 c:\n\t 1 a\n\t 2 b\n\t 3 c\n\t 4 d\n\n");
	CHECK(decode_lim(deep, &lim, 0, &r, &err) == -1 &&
	    err.kind == ERR_TOO_LARGE && strstr(err.msg, "line 5") != NULL);
	rec_free(&r);
	free(deep);
}

static void
test_sniff(void)
{
	struct error err;
	const struct format *f;
	static const char *yes[] = {
		HDR S1 S2, S1, "hot 1 [000] 5.5: 1 cycles: 1 f (/x)\n",
		"a b c 1/2 [3] 4.5: 6 ev:", HDR,
		"\n\nhot 1 1.0: 1 c:\nhot 2 1.0: 1 c:\n",
	};
	static const char *no[] = {
		"main;a;b 12\n", "hello world\n", "\t 11 a (/x)\n",
		"hot 1 1.0: 1 c:\nnot perf\n", "# a comment\n",
		"hot 1 1.0 1 c\n", "h 1 1.0: 1 c:\n\x01\n",
	};
	size_t i;

	for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		CHECK(perf_script_sniff((const uint8_t *)yes[i],
		    strlen(yes[i])) == 1);
		f = format_detect((const uint8_t *)yes[i], strlen(yes[i]), &err);
		CHECK(f != NULL && STREQ(f->name, "perf-script"));
	}
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		CHECK(perf_script_sniff((const uint8_t *)no[i],
		    strlen(no[i])) == 0);
	CHECK(format_find("perf-script") != NULL);
}

int
main(void)
{
	/* The header's "captured on" is local time: a known zone. */
	setenv("TZ", "UTC0", 1);
	tzset();
	test_callchains();
	test_one_line();
	test_variants();
	test_refused();
	test_sniff();
	printf("test_perf_script: %u checks passed\n", checks);
	return 0;
}
