/* fuzz_querier.c: querier.v1's requests as api-querier.c reads them
 * (querier_req_decode, querier_req_decode_json) and the label selectors
 * they carry (labelsel_parse).  The first byte picks the method; the rest
 * is tried as protobuf and as JSON, then as a selector itself.  A decoded
 * request must hold what it says: lists within their bounds, every
 * string set and within its bound; its selectors parse or are refused as
 * bad input with a message, and a selector that parses has matchers with
 * names and values, and answers labelsel_match and labelsel_get. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "fuzz.h"
#include "labelsel.h"
#include "querier-req.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_selector(const char *s, size_t n)
{
	struct labelsel ls;
	struct error err = { 0 };
	size_t i;

	if (labelsel_parse(s, n, &ls, &err) == -1) {
		FZ_CHECK((err.kind == ERR_INPUT || err.kind == ERR_TOO_LARGE) &&
		    err.msg[0] != '\0');
		return;
	}
	for (i = 0; i < ls.n; i++) {
		FZ_CHECK(ls.v[i].name != NULL && ls.v[i].value != NULL);
		(void)labelsel_match(&ls.v[i], NULL);
		(void)labelsel_match(&ls.v[i], ls.v[i].value);
		(void)labelsel_get(&ls, ls.v[i].name);
	}
	(void)labelsel_scope(&ls, "svc-a");
	labelsel_clear(&ls);
}

static void
check_strs(const struct querier_strs *l)
{
	size_t i;

	FZ_CHECK(l->n <= QUERIER_REQ_MAX_LIST);
	for (i = 0; i < l->n; i++)
		FZ_CHECK(l->v[i] != NULL &&
		    strlen(l->v[i]) <= QUERIER_REQ_MAX_STR);
}

static void
check(const struct querier_req *r)
{
	size_t i;

	check_strs(&r->matchers);
	check_strs(&r->label_names);
	check_strs(&r->group_by);
	if (r->profile_type != NULL)
		FZ_CHECK(strlen(r->profile_type) <= QUERIER_REQ_MAX_STR);
	if (r->name != NULL)
		FZ_CHECK(strlen(r->name) <= QUERIER_REQ_MAX_STR);
	if (r->label_selector != NULL)
		check_selector(r->label_selector, strlen(r->label_selector));
	for (i = 0; i < r->matchers.n; i++)
		check_selector(r->matchers.v[i], strlen(r->matchers.v[i]));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct querier_req r;
	struct error err = { 0 };
	enum querier_method m;
	uint8_t *copy;

	if (size < 1)
		return 0;
	m = (enum querier_method)(data[0] % QM_COUNT);
	data++;
	size--;
	/* A copy of its own size, so ASan sees a read past the end. */
	copy = xmalloc(size ? size : 1);
	memcpy(copy, data, size);
	if (querier_req_decode(m, copy, size, &r, &err) == 0) {
		FZ_CHECK(r.method == m);
		check(&r);
		querier_req_clear(&r);
	} else
		FZ_CHECK(err.kind == ERR_INPUT || err.kind == ERR_TOO_LARGE);
	memset(&err, 0, sizeof err);
	if (querier_req_decode_json(m, copy, size, &r, &err) == 0) {
		FZ_CHECK(r.method == m);
		check(&r);
		querier_req_clear(&r);
	} else
		FZ_CHECK(err.kind == ERR_INPUT || err.kind == ERR_TOO_LARGE);
	if (size <= LABELSEL_MAX)
		check_selector((const char *)copy, size);
	free(copy);
	return 0;
}
