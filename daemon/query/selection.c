/* selection.c: parsing the selection parameters. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "rx.h"
#include "scopename.h"
#include "rfc3339.h"
#include "selection.h"

static const char *const ff_names[FF_COUNT] = {
	"focus", "ignore", "hide", "show",
};

/* Every name selection_param takes. */
static const char *const selection_keys[] = {
	"scope", "metric", "since", "until", "profile", "label", "focus",
	"ignore", "hide", "show", "aggregate",
};

int
selection_key(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof selection_keys / sizeof selection_keys[0]; i++)
		if (strcmp(key, selection_keys[i]) == 0)
			return 1;
	return 0;
}

int
selection_time(const char *s, int64_t now, int64_t *ns, struct error *err)
{
	int y, mo, d, h, mi, sec, n = 0, oh, om;
	long long v;
	int64_t frac = 0, mult;
	const char *p;
	char *end;

	if (*s == '-') {
		errno = 0;
		v = strtoll(s + 1, &end, 10);
		if (end == s + 1 || errno != 0 || v < 0 || end[0] == '\0' ||
		    end[1] != '\0')
			goto bad;
		switch (*end) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		default: goto bad;
		}
		if (v > INT64_MAX / 1000000000 / mult)
			goto bad;
		*ns = now - v * mult * 1000000000;
		return 0;
	}
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec,
	    &n) != 6 || n != 19 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    h > 23 || mi > 59 || sec > 60)
		goto bad;
	p = s + n;
	if (*p == '.') {
		int digits = 0;

		for (p++; isdigit((unsigned char)*p); p++, digits++)
			if (digits < 9)
				frac = frac * 10 + (*p - '0');
		if (digits == 0)
			goto bad;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	mult = (rfc3339_days(y, (unsigned)mo, (unsigned)d) * 86400 +
	    h * 3600 + mi * 60 + sec);
	if (*p == 'Z' || *p == 'z')
		p++;
	else if ((*p == '+' || *p == '-') && sscanf(p + 1, "%2d:%2d%n", &oh,
	    &om, &n) == 2 && n == 5) {
		mult -= (*p == '+' ? 1 : -1) * (oh * 3600 + om * 60);
		p += 6;
	} else
		goto bad;
	if (*p != '\0')
		goto bad;
	/* Years 0000 to 9999 fit in int64 seconds, not all in ns. */
	if (mult < INT64_MIN / 1000000000)
		*ns = INT64_MIN;
	else if (mult > (INT64_MAX - frac) / 1000000000)
		*ns = INT64_MAX;
	else
		*ns = mult * 1000000000 + frac;
	return 0;
bad:
	return error_set(err, ERR_INPUT, "\"%s\" is neither an RFC 3339 time "
	    "(2026-11-21T15:04:05Z) nor relative to now (-30s, -15m, -1h, "
	    "-2d)", s);
}

int
selection_param(struct selection *sel, const char *key, const char *value,
    int64_t now, struct error *err)
{
	struct label_filter *lf;
	const char *op;
	long long id;
	char *end;
	size_t n;
	int i;

	if (strcmp(key, "scope") == 0) {
		if (!scope_name_valid(value))
			return error_set(err, ERR_INPUT, "scope: \"%s\" is not "
			    "a valid scope name", value);
		sel->scopes = xreallocarray(sel->scopes, sel->nscopes + 1,
		    sizeof *sel->scopes);
		sel->scopes[sel->nscopes++] = xstrdup(value);
		return 1;
	}
	if (strcmp(key, "aggregate") == 0) {
		if (aggregate_parse(value, &sel->aggregate) == -1)
			return error_set(err, ERR_INPUT, "aggregate: \"%.64s\" "
			    "is not delta, sum, avg, last or max", value);
		return 1;
	}
	if (strcmp(key, "metric") == 0) {
		free(sel->metric);
		sel->metric = *value ? xstrdup(value) : NULL;
		return 1;
	}
	if (strcmp(key, "since") == 0 || strcmp(key, "until") == 0) {
		if (selection_time(value, now, key[0] == 's' ?
		    &sel->since_ns : &sel->until_ns, err) == -1) {
			char msg[sizeof err->msg];

			snprintf(msg, sizeof msg, "%s", err->msg);
			error_clear(err);
			return error_set(err, ERR_INPUT, "%s: %.400s", key,
			    msg);
		}
		if (key[0] == 's')
			sel->has_since = 1;
		else
			sel->has_until = 1;
		return 1;
	}
	if (strcmp(key, "profile") == 0) {
		errno = 0;
		id = strtoll(value, &end, 10);
		if (*value == '\0' || *end != '\0' || errno != 0 || id <= 0)
			return error_set(err, ERR_INPUT, "profile: \"%s\" is "
			    "not a profile id", value);
		sel->profiles = xreallocarray(sel->profiles,
		    sel->nprofiles + 1, sizeof *sel->profiles);
		sel->profiles[sel->nprofiles++] = id;
		return 1;
	}
	for (i = 0; i < FF_COUNT; i++) {
		if (strcmp(key, ff_names[i]) != 0)
			continue;
		/* pprof's rule: an empty expression is no filter. */
		if (*value == '\0')
			return 1;
		if (sel->have_re[i])
			return error_set(err, ERR_INPUT, "%s: given twice "
			    "(join the expressions with |)", key);
		if ((n = strlen(value)) > RX_MAX_PATTERN)
			return error_set(err, ERR_INPUT, "%s: a regular "
			    "expression of %zu bytes, longer than the limit "
			    "of %d", key, n, RX_MAX_PATTERN);
		sel->re_src[i] = xstrdup(value);
		sel->have_re[i] = 1;
		return 1;
	}
	if (strcmp(key, "label") == 0) {
		/* The first "=" or "!=" / "!~": keys have neither. */
		for (op = value; *op != '\0'; op++)
			if (*op == '=' || (op[0] == '!' && (op[1] == '=' ||
			    op[1] == '~')))
				break;
		if (*op == '\0' || op == value)
			return error_set(err, ERR_INPUT, "label: \"%s\" is "
			    "neither KEY=VALUE, KEY!=VALUE, KEY=~REGEX nor "
			    "KEY!~REGEX", value);
		sel->labels = xreallocarray(sel->labels, sel->nlabels + 1,
		    sizeof *sel->labels);
		lf = &sel->labels[sel->nlabels++];
		memset(lf, 0, sizeof *lf);
		lf->negate = op[0] == '!';
		lf->regex = op[1] == '~';
		lf->key = xstrndup(value, (size_t)(op - value));
		lf->value = xstrdup(op + 1 + (lf->negate || lf->regex));
		if (lf->regex && (n = strlen(lf->value)) > RX_MAX_PATTERN)
			return error_set(err, ERR_INPUT, "label %s: a regular "
			    "expression of %zu bytes, longer than the limit "
			    "of %d", lf->key, n, RX_MAX_PATTERN);
		return 1;
	}
	return 0;
}

int
selection_compile(struct selection *sel, struct error *err)
{
	char why[256];
	struct rx *rx;
	size_t j;
	int i;

	/* The label patterns are compiled where they are matched (the
	 * store, the fleet's SQL): checked here, off the loop, so that a
	 * bad one is a 400 before any read. */
	for (j = 0; j < sel->nlabels; j++) {
		const struct label_filter *lf = &sel->labels[j];

		if (!lf->regex)
			continue;
		if ((rx = rx_new(lf->value, strlen(lf->value), 1, why,
		    sizeof why)) == NULL)
			return error_set(err, ERR_INPUT, "label %s: \"%.200s\" "
			    "is not a regular expression (RE2 syntax): %s",
			    lf->key, lf->value, why);
		rx_free(rx);
	}
	for (i = 0; i < FF_COUNT; i++) {
		if (!sel->have_re[i] || sel->re[i] != NULL)
			continue;
		sel->re[i] = rx_new(sel->re_src[i], strlen(sel->re_src[i]), 0,
		    why, sizeof why);
		if (sel->re[i] == NULL)
			return error_set(err, ERR_INPUT, "%s: \"%.200s\" is "
			    "not a regular expression (Go syntax, as pprof's "
			    "-%s): %s", ff_names[i], sel->re_src[i],
			    ff_names[i], why);
	}
	return 0;
}

int
selection_frame_filters(const struct selection *sel)
{
	int k;

	for (k = 0; k < FF_COUNT; k++)
		if (sel->have_re[k])
			return 1;
	return 0;
}

/* Floor division by 10^9: the second a time falls in (1969-12-31T23:59:59.5Z
 * is second -1, as the store's time buckets count). */
static int64_t
selection_secs(int64_t ns)
{
	return ns / 1000000000 - (ns % 1000000000 < 0);
}

void
selection_window(const struct selection *sel, int64_t *since_s,
    int64_t *until_s)
{
	*since_s = sel->has_since ? selection_secs(sel->since_ns) : INT64_MIN;
	*until_s = sel->has_until ? selection_secs(sel->until_ns) : INT64_MAX;
}

int
selection_check(const struct selection *sel, struct error *err)
{
	if (sel->nscopes == 0)
		return error_set(err, ERR_INPUT, "scope: missing (scope=NAME, "
		    "repeatable)");
	/* Both past the same end of the range (clamped equal) select
	 * nothing, and are no mistake of the caller's. */
	if (sel->has_since && sel->has_until &&
	    sel->since_ns >= sel->until_ns && !(sel->since_ns ==
	    sel->until_ns && (sel->since_ns == INT64_MAX ||
	    sel->since_ns == INT64_MIN)))
		return error_set(err, ERR_INPUT, "since: not before until");
	return 0;
}

void
selection_clear(struct selection *sel)
{
	size_t i;

	for (i = 0; i < sel->nscopes; i++)
		free(sel->scopes[i]);
	free(sel->scopes);
	free(sel->metric);
	free(sel->profiles);
	for (i = 0; i < sel->nlabels; i++) {
		free(sel->labels[i].key);
		free(sel->labels[i].value);
	}
	free(sel->labels);
	for (i = 0; i < FF_COUNT; i++) {
		rx_free(sel->re[i]);
		free(sel->re_src[i]);
	}
	memset(sel, 0, sizeof *sel);
}
