/* fuzz_pushreq.c: push.v1.PushRequest as /push.v1.PusherService/Push reads
 * it, in protobuf and in JSON (every input is tried as both).  A decoded
 * request must hold what it says: counts within the bounds, every string
 * set, every sample's bytes readable to their length. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "fuzz.h"
#include "pushreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check(const struct pushreq *r)
{
	size_t i, j, k, n = 0;
	uint64_t sum = 0;

	FZ_CHECK(r->nseries <= PUSHREQ_MAX_SERIES);
	for (i = 0; i < r->nseries; i++) {
		const struct pushreq_series *s = &r->series[i];

		FZ_CHECK(s->nlabels <= PUSHREQ_MAX_LABELS);
		for (j = 0; j < s->nlabels; j++) {
			FZ_CHECK(s->labels[j].name != NULL &&
			    s->labels[j].value != NULL);
			sum += strlen(s->labels[j].name) +
			    strlen(s->labels[j].value);
			FZ_CHECK(pushreq_label(s, s->labels[j].name) != NULL);
		}
		for (j = 0; j < s->nsamples; j++) {
			FZ_CHECK(s->samples[j].len == 0 ||
			    s->samples[j].raw != NULL);
			for (k = 0; k < s->samples[j].len; k++)
				sum += s->samples[j].raw[k];
			if (s->samples[j].id != NULL)
				sum += strlen(s->samples[j].id);
		}
		n += s->nsamples;
	}
	FZ_CHECK(n == r->nsamples && n <= PUSHREQ_MAX_SAMPLES);
	(void)sum;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pushreq r;
	struct error err = { 0 };
	uint8_t *copy = xmalloc(size ? size : 1);

	/* A copy of its own size, so ASan sees a read past the end. */
	memcpy(copy, data, size);
	if (pushreq_decode(copy, size, &r, &err) == 0) {
		check(&r);
		pushreq_clear(&r);
	} else
		FZ_CHECK(err.kind == ERR_INPUT || err.kind == ERR_TOO_LARGE);
	memset(&err, 0, sizeof err);
	if (pushreq_decode_json(copy, size, &r, &err) == 0) {
		check(&r);
		pushreq_clear(&r);
	} else
		FZ_CHECK(err.kind == ERR_INPUT || err.kind == ERR_TOO_LARGE);
	free(copy);
	return 0;
}
