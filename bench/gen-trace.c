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

#include "buf.h"
#include "pbw.h"

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
		pbw_uint(&e, 1, i);
		snprintf(name, sizeof name, "pkg%u.func%u", i % 97, i);
		pbw_str(&e, 2, name);
		pbw_msg(&id, 5, &e);
		e.n = 0;
		pbw_uint(&e, 1, i);
		pbw_uint(&e, 2, i);
		pbw_uint(&e, 4, 0x1000 + i * 16);
		pbw_msg(&id, 6, &e);
	}
	rng = 88172645463325252ull + seq;
	for (i = 1; i <= nstack; i++) {
		e.n = 0;
		fr.n = 0;
		pbw_uint(&e, 1, i);
		depth = 4 + (unsigned)(rnd() % 21);
		pbw_varint(&fr, 1);
		for (d = 1; d < depth; d++)
			pbw_varint(&fr, 1 + rnd() % nfunc);
		pbw_msg(&e, 2, &fr);
		pbw_msg(&id, 7, &e);
	}
	pbw_uint(&pkt, 10, seq);
	pbw_uint(&pkt, 13, 1);		/* SEQ_INCREMENTAL_STATE_CLEARED */
	pbw_msg(&pkt, 12, &id);
	pbw_msg(out, 1, &pkt);
	buf_free(&pkt);
	buf_free(&id);
	buf_free(&e);
	buf_free(&fr);
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
		pbw_uint(&sub, 2, 1000 + seq);	/* TaskContext pid */
		pbw_uint(&sub, 3, 2000 + samples % 8);	/* tid */
		pbw_msg(&ss, 1, &sub);
		pbw_uint(&ss, 6, 1 + samples * 2654435761u % nstack);
		sub.n = 0;
		pbw_str(&sub, 2, "wall_time");
		pbw_uint(&sub, 3, 1);		/* nanoseconds */
		pbw_msg(&ss, 9, &sub);
		pbw_uint(&ss, 11, 1000000);
		pkt.n = 0;
		pbw_uint(&pkt, 8, ts + samples * 1000000);
		pbw_uint(&pkt, 10, seq);
		pbw_uint(&pkt, 13, 2);	/* SEQ_NEEDS_INCREMENTAL_STATE */
		pbw_msg(&pkt, 135, &ss);
		pbw_msg(&out, 1, &pkt);
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
	buf_free(&out);
	buf_free(&pkt);
	buf_free(&ss);
	buf_free(&sub);
	return 0;
}
