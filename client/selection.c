/* selection.c: the selection flags every query command shares (--scope,
 * --metric, --since, --until, --profile, --label, --focus, --ignore,
 * --hide, --show, --aggregate, and their --base-… twins for a diff's base) and the
 * query string they make. The option table fragment is SELECTION_OPTIONS
 * and SELECTION_BASE_OPTIONS in profctl.h. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

/* The parameter of each option, by its index (code - SELECTION_OPT). */
static const char *selection_keys[SELECTION_NKEYS] = {
	"scope", "metric", "since", "until", "profile", "label", "focus",
	"ignore", "hide", "show", "aggregate"
};

void
selection_clear(struct selection *s)
{
	size_t	 i;

	for (i = 0; i < s->n; i++)
		free(s->params[i].key);
	free(s->params);
	memset(s, 0, sizeof *s);
}

static void
selection_add(struct selection *s, const char *key, const char *value)
{
	s->params = xreallocarray(s->params, s->n + 1, sizeof *s->params);
	s->params[s->n].key = xstrdup(key);
	s->params[s->n].value = value;
	s->n++;
}

/* The index of a selection option's code, whether of the current or the
 * base selection (*base set), or -1 if ch is not one. */
static int
selection_index(int ch, int *base)
{
	*base = 0;
	if (ch == 's')
		return 0;
	if (ch == 'm')
		return 1;
	if (ch >= SELECTION_OPT && ch < SELECTION_OPT + SELECTION_NKEYS)
		return ch - SELECTION_OPT;
	if (ch >= SELECTION_BASE_OPT &&
	    ch < SELECTION_BASE_OPT + SELECTION_NKEYS) {
		*base = 1;
		return ch - SELECTION_BASE_OPT;
	}
	return -1;
}

/*
 * Take option ch with argument arg if it is a selection option. Returns 0
 * when taken, 1 when ch is not a selection option, -1 when arg is bad
 * (*cause says why). arg is kept, not copied: it must outlive s (optarg
 * points into argv).
 */
/* KEY=V, KEY!=V, KEY=~RE or KEY!~RE, KEY not empty (profd's rule). */
static int
label_ok(const char *arg)
{
	const char *op;

	for (op = arg; *op != '\0'; op++)
		if (*op == '=' || (op[0] == '!' && (op[1] == '=' ||
		    op[1] == '~')))
			break;
	return *op != '\0' && op != arg;
}

int
selection_option(struct selection *s, int ch, const char *arg, char **cause)
{
	const char	*key;
	char		*k;
	int		 i, base;

	if (ch == FLEET_OPT) {
		selection_add(s, "fleet", "1");
		return 0;
	}
	if (ch == FLEET_OPT + 1) {
		if (*arg == '\0') {
			*cause = xstrdup("--host must not be empty");
			return -1;
		}
		selection_add(s, "host", arg);
		return 0;
	}
	if ((i = selection_index(ch, &base)) == -1)
		return 1;
	key = selection_keys[i];
	if (*arg == '\0') {
		xasprintf(cause, "--%s%s must not be empty", base ? "base-" : "",
		    key);
		return -1;
	}
	if (strcmp(key, "label") == 0 && !label_ok(arg)) {
		xasprintf(cause, "--%slabel \"%s\" is not K=V, K!=V, K=~RE "
		    "or K!~RE", base ? "base-" : "", arg);
		return -1;
	}
	if (base) {
		xasprintf(&k, "base.%s", key);
		selection_add(s, k, arg);
		free(k);
		s->has_base = 1;
	} else {
		selection_add(s, key, arg);
		if (i == 0)
			s->has_scope = 1;
	}
	if (base && i == 0)
		s->has_base_scope = 1;
	return 0;
}

/* Append the selection's parameters to the query of *url, in the order
 * they were given. */
void
selection_query(const struct selection *s, char **url)
{
	size_t	 i;

	for (i = 0; i < s->n; i++)
		http_query_add(url, s->params[i].key, s->params[i].value);
}

/* The value of the first parameter named key, or NULL. */
const char *
selection_get(const struct selection *s, const char *key)
{
	size_t	 i;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->params[i].key, key) == 0)
			return s->params[i].value;
	}
	return NULL;
}
