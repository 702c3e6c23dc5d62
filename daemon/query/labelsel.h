/* labelsel.h: label selectors in Prometheus' syntax, as Grafana's
 * Pyroscope data source writes them ({service_name="svc-a",
 * env=~"prod|stg"}), made into a selection.  The label service_name is
 * the scope; __profile_type__ names the metric (pyrotype.h) and __name__
 * the part of it before the first ':' ("process_cpu"); every other
 * matcher is a label filter (store.h), =~ and !~ as RE2 patterns matched
 * whole, as Prometheus anchors them.  A label a profile does not have
 * reads as "" (Prometheus' rule): env!="prod" keeps it, env=~".+" not. */
#ifndef PROFD_LABELSEL_H
#define PROFD_LABELSEL_H

#include <stddef.h>

#include "error.h"

struct selection;

enum labelsel_op { LS_EQ, LS_NE, LS_RE, LS_NRE };

struct labelsel_matcher {
	char *name, *value;
	enum labelsel_op op;
	struct rx *rx;			/* =~, !~: compiled whole */
};

struct labelsel {
	struct labelsel_matcher *v;
	size_t n;
};

/* Longest selector taken, in bytes. */
#define LABELSEL_MAX	16384

/* Parse the n bytes at s: "{}" or "" (every series), or "{m, m, ...}"
 * where m is NAME OP "VALUE" (OP one of = != =~ !~; VALUE a Go/Prometheus
 * string in double or single quotes, or backquotes without escapes).
 * Patterns are compiled here: call it off the event loop, or only with
 * a bounded length (LABELSEL_MAX).  -1 with ERR_INPUT saying what and
 * where (the offset) if it is not one. */
int labelsel_parse(const char *s, size_t n, struct labelsel *,
    struct error *);
void labelsel_clear(struct labelsel *);
/* Does value (NULL: the label is absent, read as "") pass m? */
int labelsel_match(const struct labelsel_matcher *m, const char *value);
/* Does a series of scope name pass every service_name matcher? */
int labelsel_scope(const struct labelsel *, const char *scope);
/* The value of the first NAME="VALUE" matcher of name, or NULL. */
const char *labelsel_get(const struct labelsel *, const char *name);
/* Into sel: the scopes among the n names that pass (none may: then
 * sel->nscopes is 0 and the caller answers an empty reply), and every
 * matcher of another label but __name__ and __profile_type__ as a label
 * filter. */
void labelsel_select(const struct labelsel *, const char *const *scopes,
    size_t n, struct selection *);

#endif
