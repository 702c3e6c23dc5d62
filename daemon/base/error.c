/* error.c: filling and mapping struct error. */
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

int
error_set(struct error *e, enum error_kind kind, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL || e->kind != ERR_NONE)
		return -1;
	e->kind = kind;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return -1;
}

void
error_clear(struct error *e)
{
	e->kind = ERR_NONE;
	e->msg[0] = '\0';
}

int
error_http_status(const struct error *e)
{
	switch (e->kind) {
	case ERR_NONE:
		return 200;
	case ERR_INPUT:
		return 400;
	case ERR_TOO_LARGE:
		return 413;
	case ERR_NOT_FOUND:
		return 404;
	case ERR_BUSY:
		return 503;
	case ERR_CONFLICT:
		return 409;
	case ERR_NO_SPACE:
		return 507;
	case ERR_TIMEOUT:
		return 503;
	case ERR_DEADLINE:
		return 504;
	case ERR_UNSUPPORTED:
		return 501;
	case ERR_INTERNAL:
		break;
	}
	return 500;
}

const char *
error_kind_name(enum error_kind kind)
{
	switch (kind) {
	case ERR_NONE:
		return "ok";
	case ERR_INPUT:
		return "invalid input";
	case ERR_TOO_LARGE:
		return "too large";
	case ERR_NOT_FOUND:
		return "not found";
	case ERR_BUSY:
		return "busy";
	case ERR_CONFLICT:
		return "conflict";
	case ERR_NO_SPACE:
		return "insufficient storage";
	case ERR_TIMEOUT:
		return "timeout";
	case ERR_DEADLINE:
		return "deadline exceeded";
	case ERR_UNSUPPORTED:
		return "not implemented";
	case ERR_INTERNAL:
		break;
	}
	return "internal error";
}
