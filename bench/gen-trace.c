/*
 * gen-trace: write a synthetic Perfetto trace of stack samples, of about
 * the size asked, for measuring import speed and memory.
 *
 *   gen-trace OUT BYTES [FUNCTIONS] [STACKS]
 *
 * Two sequences intern FUNCTIONS function names, one frame each and STACKS
 * callstacks (root first, depth 4..24), then emit stack_sample packets
 * (task context, callstack iid, a wall_time primary counter) with
 * increasing timestamps (1 ms apart).  Every 1,000,000 samples a sequence
 * clears its incremental state and interns it again, as a long-running
 * producer does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		if ((b->p = realloc(b->p, b->cap)) == NULL)
			abort();
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void
varint(struct buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	put(b, t, n);
}

static void
fv(struct buf *b, unsigned num, uint64_t v)
{
	varint(b, (uint64_t)num << 3);
	varint(b, v);
}

static void
fb(struct buf *b, unsigned num, const struct buf *sub)
{
	varint(b, (uint64_t)num << 3 | 2);
	varint(b, sub->n);
	put(b, sub->p, sub->n);
}

static void
fs(struct buf *b, unsigned num, const char *s)
{
	struct buf t = { (uint8_t *)(uintptr_t)s, strlen(s), 0 };

	fb(b, num, &t);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The interned data packet of one sequence, clearing its state first. */
static void
interned(struct buf *out, unsigned seq, unsigned nfunc, unsigned nstack)
{
	struct buf pkt = { 0 }, id = { 0 }, e = { 0 }, fr = { 0 };
	char name[64];
	unsigned i, d, depth;

	for (i = 1; i <= nfunc; i++) {
		e.n = 0;
		fv(&e, 1, i);
		snprintf(name, sizeof name, "pkg%u.func%u", i % 97, i);
		fs(&e, 2, name);
		fb(&id, 5, &e);
		e.n = 0;
		fv(&e, 1, i);
		fv(&e, 2, i);
		fv(&e, 4, 0x1000 + i * 16);
		fb(&id, 6, &e);
	}
	rng = 88172645463325252ull + seq;
	for (i = 1; i <= nstack; i++) {
		e.n = 0;
		fr.n = 0;
		fv(&e, 1, i);
		depth = 4 + (unsigned)(rnd() % 21);
		varint(&fr, 1);
		for (d = 1; d < depth; d++)
			varint(&fr, 1 + rnd() % nfunc);
		fb(&e, 2, &fr);
		fb(&id, 7, &e);
	}
	fv(&pkt, 10, seq);
	fv(&pkt, 13, 1);		/* SEQ_INCREMENTAL_STATE_CLEARED */
	fb(&pkt, 12, &id);
	fb(out, 1, &pkt);
	free(pkt.p);
	free(id.p);
	free(e.p);
	free(fr.p);
}

int
main(int argc, char **argv)
{
	struct buf out = { 0 }, pkt = { 0 }, ss = { 0 }, sub = { 0 };
	uint64_t want, written = 0, samples = 0, ts = 1700000000ull * 1000000000;
	unsigned nfunc, nstack, seq;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: gen-trace OUT BYTES [FUNCTIONS] "
		    "[STACKS]\n");
		return 2;
	}
	want = strtoull(argv[2], NULL, 10);
	nfunc = argc > 3 ? (unsigned)atoi(argv[3]) : 5000;
	nstack = argc > 4 ? (unsigned)atoi(argv[4]) : 20000;
	if ((f = fopen(argv[1], "wb")) == NULL) {
		perror(argv[1]);
		return 1;
	}
	for (seq = 1; seq <= 2; seq++)
		interned(&out, seq, nfunc, nstack);
	while (written + out.n < want) {
		seq = 1 + (unsigned)(samples & 1);
		if (samples > 0 && samples % 1000000 == 0)
			interned(&out, seq, nfunc, nstack);
		ss.n = 0;
		sub.n = 0;
		fv(&sub, 2, 1000 + seq);	/* TaskContext pid */
		fv(&sub, 3, 2000 + samples % 8);	/* tid */
		fb(&ss, 1, &sub);
		fv(&ss, 6, 1 + samples * 2654435761u % nstack);
		sub.n = 0;
		fs(&sub, 2, "wall_time");
		fv(&sub, 3, 1);		/* nanoseconds */
		fb(&ss, 9, &sub);
		fv(&ss, 11, 1000000);
		pkt.n = 0;
		fv(&pkt, 8, ts + samples * 1000000);
		fv(&pkt, 10, seq);
		fv(&pkt, 13, 2);	/* SEQ_NEEDS_INCREMENTAL_STATE */
		fb(&pkt, 135, &ss);
		fb(&out, 1, &pkt);
		samples++;
		if (out.n > (1u << 20)) {
			fwrite(out.p, 1, out.n, f);
			written += out.n;
			out.n = 0;
		}
	}
	fwrite(out.p, 1, out.n, f);
	written += out.n;
	if (fclose(f) != 0) {
		perror(argv[1]);
		return 1;
	}
	fprintf(stderr, "gen-trace: %llu bytes, %llu samples\n",
	    (unsigned long long)written, (unsigned long long)samples);
	free(out.p);
	free(pkt.p);
	free(ss.p);
	free(sub.p);
	return 0;
}
