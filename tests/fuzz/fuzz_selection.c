/* fuzz_selection.c: the selection parameters of every query endpoint
 * (scope, metric, since/until, profile, label, focus/ignore/hide/show),
 * through selection_param() as the API hands them over.  The input is
 * lines of KEY=VALUE (a line without '=' is a key with an empty value).
 * Beside not crashing: a parameter is taken (1), refused with a message
 * (-1), or not a selection parameter (0); a time that parses prints back
 * (RFC 3339) to a time that parses to the same instant; the focus,
 * ignore, hide and show regexes compile or are refused as bad input. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "fuzz.h"
#include "rfc3339.h"
#include "selection.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* 2026-11-21T15:04:05Z, so relative times are reproducible. */
#define FZ_NOW	1795273445000000000ll

static void
check_time(const char *value)
{
	struct error err = { 0 };
	char text[64];
	int64_t ns, again;

	if (selection_time(value, FZ_NOW, &ns, &err) == -1) {
		FZ_CHECK(err.kind == ERR_INPUT && err.msg[0] != '\0');
		return;
	}
	format_rfc3339(ns, text, sizeof text);
	FZ_CHECK(selection_time(text, FZ_NOW, &again, &err) == 0);
	FZ_CHECK(again == ns);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct selection sel;
	struct error err;
	char *text, *line, *next, *eq;
	const char *value;
	int rc;

	if (size > 4096)
		return -1;
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&sel, 0, sizeof sel);
	for (line = text; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		value = "";
		if ((eq = strchr(line, '=')) != NULL) {
			*eq = '\0';
			value = eq + 1;
		}
		memset(&err, 0, sizeof err);
		rc = selection_param(&sel, line, value, FZ_NOW, &err);
		FZ_CHECK(rc >= -1 && rc <= 1);
		FZ_CHECK((rc == -1) == (err.kind != ERR_NONE));
		FZ_CHECK(rc != -1 || (err.kind == ERR_INPUT &&
		    err.msg[0] != '\0'));
		if (strcmp(line, "since") == 0 || strcmp(line, "until") == 0)
			check_time(value);
	}
	memset(&err, 0, sizeof err);
	rc = selection_check(&sel, &err);
	FZ_CHECK(rc == 0 || (rc == -1 && err.kind == ERR_INPUT));
	if (rc == 0) {
		FZ_CHECK(sel.nscopes > 0);
		/* As the query worker does: the regexes compile (RE2, bounded
		 * memory) or are refused as bad input, never anything else. */
		memset(&err, 0, sizeof err);
		rc = selection_compile(&sel, &err);
		FZ_CHECK(rc == 0 || (rc == -1 && err.kind == ERR_INPUT &&
		    err.msg[0] != '\0'));
	}
	(void)selection_frame_filters(&sel);
	selection_clear(&sel);
	free(text);
	return 0;
}
