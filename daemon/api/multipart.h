/* multipart.h: multipart/form-data bodies (RFC 7578), as pyroscope-go and
 * Pyroscope's other clients send a pprof to /ingest: a "profile" part, an
 * optional "prev_profile" and "sample_type_config".  A parser of outside
 * bytes over a body already in memory: the parts point into it. */
#ifndef PROFD_MULTIPART_H
#define PROFD_MULTIPART_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Parts read from one body at most, and bytes of one part's headers. */
#define MULTIPART_MAX_PARTS	16
#define MULTIPART_MAX_HEAD	8192
/* RFC 2046: a boundary is 1 to 70 characters. */
#define MULTIPART_MAX_BOUNDARY	70

struct mpart {
	char name[64];			/* Content-Disposition's name */
	const uint8_t *data;
	size_t len;
};

/* 1 if the Content-Type value (NULL: none) is multipart/form-data. */
int multipart_is_form(const char *content_type);
/* The boundary parameter of a multipart/form-data Content-Type, quoted or
 * not, into out (MULTIPART_MAX_BOUNDARY + 1 bytes); ERR_INPUT if there is
 * none or it is not a valid boundary. */
int multipart_boundary(const char *content_type, char *out, struct error *);
/* Split body into its parts (at most max): -1 with ERR_INPUT naming what
 * is wrong (no first delimiter, no closing one, a part without a name or
 * with headers past MULTIPART_MAX_HEAD, more than max parts). */
int multipart_parse(const uint8_t *body, size_t n, const char *boundary,
    struct mpart *parts, size_t max, size_t *nparts, struct error *);
/* The part named name, or NULL. */
const struct mpart *multipart_find(const struct mpart *, size_t n,
    const char *name);

#endif
