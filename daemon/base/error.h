/* error.h: what went wrong and where, filled by lower layers and reported by
 * callers (lower layers never log). */
#ifndef PROFD_ERROR_H
#define PROFD_ERROR_H

enum error_kind {
	ERR_NONE = 0,
	ERR_INPUT,		/* bad input: HTTP 400 */
	ERR_TOO_LARGE,		/* a size limit was hit: HTTP 413 */
	ERR_NOT_FOUND,		/* unknown scope, profile, ...: HTTP 404 */
	ERR_BUSY,		/* queue full, store locked: HTTP 503 */
	ERR_CONFLICT,		/* does not fit the current state: HTTP 409 */
	ERR_NO_SPACE,		/* the disk holding the store is full: HTTP 507 */
	ERR_TIMEOUT,		/* a time limit was hit: HTTP 503 */
	ERR_DEADLINE,		/* a request ran past its own: HTTP 504 */
	ERR_UNSUPPORTED,	/* asks what profd does not serve: HTTP 501 */
	ERR_INTERNAL,		/* a bug or an I/O failure: HTTP 500 */
};

struct error {
	enum error_kind kind;
	char msg[512];
};

/* Set the first error only (later ones are consequences); returns -1. */
int error_set(struct error *, enum error_kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void error_clear(struct error *);
int error_http_status(const struct error *);
const char *error_kind_name(enum error_kind);

#endif
