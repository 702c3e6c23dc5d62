/* fuzz_client_render.c: profctl's text views of a JSON reply (tags,
 * list, status with its progress phrases), which read whatever JSON profd sent: numbers out of range,
 * members missing or of another type.  The first byte picks the view; the
 * rest is the reply.  Beside not crashing: a view either prints or says
 * why not, and of a reply made safe as profctl makes it (termsafe_json)
 * it prints nothing a terminal would obey: its text is what termsafe.c
 * leaves as it is. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "profctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct render_list_opts o = { "/nonexistent", NULL };
	json_t *reply;
	char *cause = NULL, *out = NULL, *safe;
	size_t len = 0, safelen;
	FILE *f;
	int rc;

	if (size < 1 || size > 100000)
		return -1;
	if ((reply = json_loadb((const char *)data + 1, size - 1, 0,
	    NULL)) == NULL)
		return 0;
	termsafe_json(reply);
	if ((f = open_memstream(&out, &len)) == NULL)
		abort();
	if (data[0] % 3 == 0)
		rc = render_tags_json(f, reply, &cause);
	else if (data[0] % 3 == 1)
		rc = render_list(f, reply, &o, &cause);
	else
		rc = render_status_json(f, reply, &cause);
	if (rc != 0 && (cause == NULL || cause[0] == '\0'))
		abort();
	free(cause);
	fclose(f);
	safe = termsafe_mem(out, len, TERMSAFE_TEXT, &safelen);
	if (safelen != len || memcmp(safe, out, len) != 0)
		abort();
	free(safe);
	free(out);
	json_decref(reply);
	return 0;
}
