/* test_origin.c: the cross-origin rule (base/origin.c) profd and profctl
 * web apply (issue 25: a page of another site pushed through the socket's
 * forward, to the TCP listener and through profctl web).  What browsers
 * send for their own page passes; another origin, another port of the
 * same host, a sandboxed page, Sec-Fetch-Site cross-site or same-site,
 * any page on the face that serves none, and a browser's write without
 * the UI's header are refused; clients that are not browsers pass. */
#include <string.h>

#include "nitems.h"
#include "origin.h"
#include "testlib.h"

int
main(void)
{
	static const struct {
		struct origin_req r;
		const char *why;		/* NULL: passes */
	} c[] = {
		/* Not a browser: profctl, curl, an agent (Node's fetch sends
		 * Sec-Fetch-Mode, which is not a field here). */
		{ { .write = 1, .serves_ui = 1 }, NULL },
		{ { .write = 1, .serves_ui = 0, .host = "db1:4040" }, NULL },
		/* The page's own calls, through a forward of the socket. */
		{ { .origin = "http://localhost:8080", .fetch_site =
		    "same-origin", .host =
		    "localhost:8080", .ui_header = 1, .write = 1, .serves_ui =
		    1 }, NULL },
		{ { .origin = "HTTP://LOCALHOST:8080", .host = "localhost:8080",
		    .ui_header = 1, .write = 1, .serves_ui = 1 }, NULL },
		{ { .origin = "https://profd.example", .host = "profd.example",
		    .ui_header = 1, .write = 1, .serves_ui = 1 }, NULL },
		/* A navigation typed or bookmarked, a reload. */
		{ { .fetch_site = "none", .host = "localhost:8080",
		    .serves_ui = 1 }, NULL },
		/* A same-origin read without the header (an <img>). */
		{ { .fetch_site = "same-origin", .host = "localhost:8080",
		    .serves_ui = 1 }, NULL },
		/* Other origins. */
		{ { .origin = "http://localhost:8081", .host = "localhost:8080",
		    .ui_header = 1, .write = 1, .serves_ui = 1 },
		    "another origin" },
		{ { .origin = "http://127.0.0.1:8080", .host = "localhost:8080",
		    .serves_ui = 1 }, "another origin" },
		{ { .origin = "http://localhost:8080.evil.example", .host =
		    "localhost:8080", .serves_ui = 1 }, "another origin" },
		{ { .origin = "http://localhost:8080", .host = NULL,
		    .serves_ui = 1 }, "another origin" },
		{ { .origin = "null", .host = "localhost:8080", .serves_ui =
		    1 }, "another origin" },
		{ { .origin = "ftp://localhost:8080", .host = "localhost:8080",
		    .serves_ui = 1 }, "another origin" },
		{ { .fetch_site = "same-site", .host = "localhost:8080",
		    .serves_ui = 1 }, "Sec-Fetch-Site: same-site" },
		{ { .fetch_site = "Cross-Site", .origin =
		    "http://localhost:8080", .host = "localhost:8080",
		    .ui_header = 1, .serves_ui = 1 }, "Sec-Fetch-Site" },
		/* The TCP face serves no page: any Origin is another's. */
		{ { .origin = "http://127.0.0.1:4040", .host = "127.0.0.1:4040",
		    .ui_header = 1, .write = 1 }, "serves no page" },
		/* A browser's write without the header. */
		{ { .origin = "http://localhost:8080", .host = "localhost:8080",
		    .write = 1, .serves_ui = 1 }, "X-Profd-UI" },
		{ { .fetch_site = "same-origin", .host = "localhost:8080",
		    .write = 1, .serves_ui = 1 }, "X-Profd-UI" },
	};
	char why[600];
	size_t i;

	for (i = 0; i < NITEMS(c); i++) {
		const char *w = origin_check(&c[i].r, why, sizeof why);

		if ((w == NULL) != (c[i].why == NULL) ||
		    (w != NULL && !HAS(w, c[i].why)))
			fprintf(stderr, "case %zu: %s\n", i, w ? w :
			    "(passed)");
		CHECK((w == NULL) == (c[i].why == NULL));
		CHECK(w == NULL || HAS(w, c[i].why));
	}
	printf("test_origin: %u checks passed\n", checks);
	return 0;
}
