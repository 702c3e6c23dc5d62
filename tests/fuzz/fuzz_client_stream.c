/* fuzz_client_stream.c: profctl's reading of a reply as it streams in
 * (client/jstream.c under render-json.c and render-query.c), held against
 * the whole-reply path on the same text. The first byte says how the text
 * is cut into pieces (bits 0-3: pieces of 1 + n bytes, 0: whole) and what
 * reads it (bits 4-5: --json, the query table, CSV); the rest is the text.
 * Beside not crashing: the stream takes the text exactly when json_loadb
 * does; then --json prints render_json's text, and the table what the
 * whole-reply table printed (clientref.h), or the same error. Texts with
 * a key twice in an object are left out of the comparison: jansson keeps
 * one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/clientref.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FZ_CHECK(c) do {						\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: fuzz check failed: %s\n",	\
		    __FILE__, __LINE__, #c);				\
		abort();						\
	}								\
} while (0)

/* text in pieces of step bytes (0: whole), then its end. */
static int
fz_feed(client_feed_fn fn, void *arg, const char *text, size_t len,
    size_t step, char **cause)
{
	size_t	 off, k;
	int	 rc = 0;

	for (off = 0; off < len && rc == 0; off += k) {
		k = step == 0 || len - off < step ? len - off : step;
		rc = fn(arg, text + off, k, cause);
	}
	if (rc == 0)
		rc = fn(arg, NULL, 0, cause);
	FZ_CHECK(rc == 0 || rc == -1);
	FZ_CHECK(rc == 0 || (*cause != NULL && **cause != '\0'));
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct render_json_stream	*js;
	struct render_query		*q;
	json_t				*whole, *strict;
	FILE				*f, *g;
	const char			*text = (const char *)data + 1;
	char				*got = NULL, *want = NULL, *cause = NULL;
	char				*wcause = NULL;
	size_t				 len, n, step;
	int				 mode, rc, wrc;

	if (size < 1 || size > 100000)
		return -1;
	step = data[0] & 0xf;
	mode = (data[0] >> 4) % 3;
	len = size - 1;
	whole = json_loadb(text, len, JSON_ALLOW_NUL, NULL);
	strict = json_loadb(text, len, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES,
	    NULL);
	f = open_memstream(&got, &n);
	g = open_memstream(&want, &n);
	FZ_CHECK(f != NULL && g != NULL);
	if (mode == 0) {
		js = render_json_stream_new(f);
		rc = fz_feed(render_json_stream_feed, js, text, len, step,
		    &cause);
		render_json_stream_free(js);
		FZ_CHECK((rc == 0) == (whole != NULL));
		if (strict != NULL)
			ref_json(g, strict);
	} else {
		q = render_query_new(f, mode == 2);
		rc = fz_feed(render_query_feed, q, text, len, step, &cause);
		render_query_free(q);
		/* Not JSON: refused alike; JSON: the table and its error as
		 * before, unless profd's error ends it (nothing printed). */
		if (whole == NULL)
			FZ_CHECK(rc == -1);
		if (strict != NULL && mode == 1 &&
		    !json_is_string(json_object_get(strict, "error"))) {
			wrc = ref_query_table(g, strict, &wcause);
			/* Columns after the rows: profd never writes them
			 * so, and the table cannot wait for them. */
			if (rc == -1 && strstr(cause, "no columns before "
			    "rows") != NULL)
				rc = wrc = 1;
			FZ_CHECK(rc == wrc);
			FZ_CHECK(rc != -1 || strcmp(cause, wcause) == 0);
		}
	}
	fclose(f);
	fclose(g);
	/* jansson does not print what nests 2048 deep; the stream prints
	 * each value on its own, which it can. */
	if (strict != NULL && (mode == 0 || (mode == 1 && rc == 0)) &&
	    json_dumpb(strict, NULL, 0, JSON_INDENT(2)) != 0)
		FZ_CHECK(strcmp(got, want) == 0);
	if (whole != NULL)
		json_decref(whole);
	if (strict != NULL)
		json_decref(strict);
	free(got);
	free(want);
	free(cause);
	free(wcause);
	return 0;
}
