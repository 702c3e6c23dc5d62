/* fuzz_otlp.c: OTLP profiles requests as POST /v1development/profiles reads
 * them, in protobuf and in JSON (every input is tried as both): decoded,
 * each Profile checked, its scope, labels and payload read byte by byte,
 * and each one that passed its check emitted onto fuzz.h's checking sink
 * (every index the decoder follows must have been checked: ASan sees a
 * read out of a table).  Then the format table's way (format=otlp, a
 * request of one Profile), plain and gzipped, which must agree. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "fuzz.h"
#include "otlp-int.h"
#include "otlp.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static uint64_t sum;

static void
label(void *arg, struct mstr k, struct mstr v)
{
	size_t i;

	FZ_CHECK(k.n > 0);
	for (i = 0; i < k.n; i++)
		sum += (uint8_t)k.p[i];
	for (i = 0; i < v.n; i++)
		sum += (uint8_t)v.p[i];
}

static void
walk(const uint8_t *data, size_t size, int json, const struct limits *lim)
{
	struct otlp_req *r;
	struct error err = { 0 };
	struct fz_sink s;
	struct sink k;
	struct mstr a, b;
	size_t i, j;

	if (otlp_req_decode(data, size, json, lim, &r, &err) == -1) {
		FZ_CHECK(err.kind == ERR_INPUT || err.kind == ERR_TOO_LARGE);
		FZ_CHECK(err.msg[0] != '\0');
		return;
	}
	for (i = 0; i < otlp_req_profiles(r); i++) {
		if (otlp_profile_service(r, i, &a) == 0)
			label(NULL, a, a);
		otlp_profile_labels(r, i, label, NULL);
		otlp_profile_payload(r, i, &a, &b);
		for (j = 0; j < b.n; j++)
			sum += (uint8_t)b.p[j];
		memset(&err, 0, sizeof err);
		if (otlp_profile_check(r, i, &err) == -1) {
			FZ_CHECK(err.kind == ERR_INPUT && err.msg[0] != '\0');
			continue;
		}
		k = fz_sink_init(&s, lim);
		FZ_CHECK(otlp_emit(r, i, &k, &err) == 0);
		FZ_CHECK(s.meta && s.nmetrics == 1);
	}
	otlp_req_free(r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct limits lim;
	uint8_t *copy = xmalloc(size ? size : 1);

	/* A copy of its own size, so ASan sees a read past the end. */
	memcpy(copy, data, size);
	fz_limits(&lim);
	walk(copy, size, 0, &lim);
	walk(copy, size, 1, &lim);
	free(copy);
	return fz_decode_both(data, size, "otlp");
}
