/* fuzz_labelsel.c: Prometheus label selectors as Grafana's calls carry
 * them (querier.v1's label_selector and matchers, /pyroscope/render's
 * query), through labelsel_parse(); and profile type IDs through
 * pyrotype_parse().  Beside not crashing: a selector is taken or refused
 * with a message naming where; a taken one's matchers hold no NUL byte,
 * have a name and (=~, !~) a compiled pattern, and make a selection of
 * the scopes they pass; an ID that parses prints back to itself. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "labelsel.h"
#include "pyrotype.h"
#include "selection.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_type(const uint8_t *data, size_t size)
{
	struct pyrotype t;
	struct error err = { 0 };
	char *id = malloc(size + 1), back[5 * PYROTYPE_PART];

	memcpy(id, data, size);
	id[size] = '\0';
	if (pyrotype_parse(id, &t, &err) == 0) {
		pyrotype_id(&t, back, sizeof back);
		FZ_CHECK(strlen(id) != size || strcmp(back, id) == 0);
	} else
		FZ_CHECK(err.kind == ERR_INPUT && err.msg[0] != '\0');
	free(id);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const scopes[] = { "svc-a", "svc-b", "" };
	struct labelsel ls;
	struct selection sel;
	struct error err = { 0 };
	size_t i;

	if (size > 4096)
		return -1;
	check_type(data, size);
	if (labelsel_parse((const char *)data, size, &ls, &err) == -1) {
		FZ_CHECK(err.kind == ERR_INPUT && strstr(err.msg,
		    "label selector") != NULL);
		FZ_CHECK(ls.n == 0 && ls.v == NULL);
		return 0;
	}
	for (i = 0; i < ls.n; i++) {
		FZ_CHECK(ls.v[i].name[0] != '\0');
		FZ_CHECK((ls.v[i].rx != NULL) == (ls.v[i].op == LS_RE ||
		    ls.v[i].op == LS_NRE));
		(void)labelsel_match(&ls.v[i], NULL);
		(void)labelsel_match(&ls.v[i], ls.v[i].value);
	}
	memset(&sel, 0, sizeof sel);
	labelsel_select(&ls, scopes, 3, &sel);
	for (i = 0; i < sel.nscopes; i++)
		FZ_CHECK(labelsel_scope(&ls, sel.scopes[i]));
	selection_clear(&sel);
	labelsel_clear(&ls);
	return 0;
}
