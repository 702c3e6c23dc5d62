/* test_webasset.c: which file a /ui/ path names and how it is answered:
 * ETag lists (weak, *, spaces), Accept-Encoding (q=0 refuses), redirects,
 * and the embedded bytes against web/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "http-accept.h"
#include "webasset.h"

static int
answer(const char *path, const char *inm, const char *ae,
    struct webasset_reply *r)
{
	webasset_answer(path, inm, http_accept_gzip(ae), r);
	return r->status;
}

int
main(void)
{
	struct webasset_reply	 r;
	const struct webasset	*a;
	char			 tag[64], list[160], path[512];
	FILE			*f;
	unsigned char		*buf;
	long			 n;
	int			 i;

	CHECK(nwebassets >= 3);
	CHECK(webasset_find("") == webasset_find("index.html"));
	CHECK(webasset_find("index.html") != NULL);
	CHECK(webasset_find("../index.html") == NULL);
	CHECK(webasset_find("nope") == NULL);

	CHECK(answer("/", NULL, NULL, &r) == 302);
	CHECK(strcmp(r.location, "/ui/") == 0);
	CHECK(answer("/ui", NULL, NULL, &r) == 302);
	CHECK(answer("/ui/nope", NULL, NULL, &r) == 404);
	CHECK(answer("/v1/top", NULL, NULL, &r) == 404);
	CHECK(answer("/uiapp.js", NULL, NULL, &r) == 404);

	a = webasset_find("app.js");
	CHECK(a != NULL && a->gzlen < a->len);
	CHECK(strncmp(a->type, "text/javascript", 15) == 0);
	CHECK(answer("/ui/app.js", NULL, NULL, &r) == 200);
	CHECK(r.asset == a && !r.gzip && r.body == a->data && r.len == a->len);
	CHECK(answer("/ui/app.js", NULL, "gzip", &r) == 200 && r.gzip &&
	    r.body == a->gz && r.len == a->gzlen);
	CHECK(answer("/ui/app.js", NULL, "deflate, GZIP ;q=0.5", &r) == 200 &&
	    r.gzip);
	CHECK(answer("/ui/app.js", NULL, "*", &r) == 200 && r.gzip);
	CHECK(answer("/ui/app.js", NULL, "gzip;q=0", &r) == 200 && !r.gzip);
	CHECK(answer("/ui/app.js", NULL, "gzip; q=0.0", &r) == 200 && !r.gzip);
	CHECK(answer("/ui/app.js", NULL, "br, deflate", &r) == 200 && !r.gzip);
	CHECK(answer("/ui/app.js", NULL, "xgzip", &r) == 200 && !r.gzip);

	CHECK(answer("/ui/app.js", a->etag, NULL, &r) == 304 && r.len == 0);
	snprintf(tag, sizeof tag, "W/%s", a->etag);
	CHECK(answer("/ui/app.js", tag, NULL, &r) == 304);
	snprintf(list, sizeof list, "\"x\" ,  %s , \"y\"", a->etag);
	CHECK(answer("/ui/app.js", list, NULL, &r) == 304);
	CHECK(answer("/ui/app.js", "*", NULL, &r) == 304);
	CHECK(answer("/ui/app.js", "\"x\", \"y\"", NULL, &r) == 200);
	CHECK(answer("/ui/app.js", "", NULL, &r) == 200);
	/* A prefix of the tag is not the tag. */
	snprintf(tag, sizeof tag, "%.*s", (int)strlen(a->etag) - 2, a->etag);
	CHECK(answer("/ui/app.js", tag, NULL, &r) == 200);

	/* Each embedded file is web/'s, byte for byte; ETags differ. */
	for (i = 0; i < nwebassets; i++) {
		snprintf(path, sizeof path, "%s/../../web/%s", FIXTURES_DIR,
		    webassets[i].name);
		CHECK((f = fopen(path, "rb")) != NULL);
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		CHECK(n == (long)webassets[i].len);
		buf = malloc((size_t)n + 1);
		CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n);
		CHECK(memcmp(buf, webassets[i].data, (size_t)n) == 0);
		free(buf);
		fclose(f);
		CHECK(webassets[i].gz[0] == 0x1f && webassets[i].gz[1] == 0x8b);
		if (i > 0)
			CHECK(strcmp(webassets[i].etag,
			    webassets[i - 1].etag) != 0);
	}
	printf("test_webasset: %u checks, %d assets\n", checks, nwebassets);
	return 0;
}
