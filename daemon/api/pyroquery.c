/* pyroquery.c: Pyroscope's render parameters: the query (a profile
 * type and a label selector), times, maxNodes, the timeline's step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api-pyro.h"
#include "pyroquery.h"
#include "scopename.h"

static int
render_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The metric of APP.SUFFIX into q (the scope APP). */
static int
render_app(const char *field, const char *name, struct pyroquery *q,
    struct error *err)
{
	const char *dot = strrchr(name, '.'), *type, *unit;

	if (dot == NULL || api_pyro_suffix(dot + 1, &type, &unit) == -1)
		return error_set(err, ERR_INPUT, "%s: \"%.200s\" names no "
		    "profile type: PROFILE_TYPE_ID{selector} "
		    "(process_cpu:cpu:nanoseconds:cpu:nanoseconds{...}) or "
		    "APP.SUFFIX{selector} (APP.cpu, APP.inuse_space, "
		    "APP.alloc_objects, ...)", field, name);
	q->scope = xstrndup(name, (size_t)(dot - name));
	if (!scope_name_valid(q->scope))
		return error_set(err, ERR_INPUT, "%s: the application name "
		    "\"%.200s\" is not a valid scope name ([A-Za-z0-9._-], 1 "
		    "to 128 characters)", field, q->scope);
	if (pyrotype_of(type, unit, &q->type) == -1)
		return error_set(err, ERR_INPUT, "%s: no profile type for "
		    "%s/%s", field, type, unit);
	return 0;
}

int
pyroquery_parse(const char *field, const char *s,
    struct pyroquery *q, struct error *err)
{
	size_t n = strlen(s), at, b, e;
	const char *brace, *id;
	char *name = NULL;
	int rc = -1;

	memset(q, 0, sizeof *q);
	if (n == 0)
		return error_set(err, ERR_INPUT, "%s is required: "
		    "PROFILE_TYPE_ID{selector} or APP.SUFFIX{selector}",
		    field);
	if (n > LABELSEL_MAX)
		return error_set(err, ERR_INPUT, "%s: %zu bytes, longer than "
		    "the limit of %d", field, n, LABELSEL_MAX);
	brace = strchr(s, '{');
	at = brace != NULL ? (size_t)(brace - s) : n;
	for (b = 0; b < at && render_space(s[b]); b++)
		;
	for (e = at; e > b && render_space(s[e - 1]); e--)
		;
	name = xstrndup(s + b, e - b);
	if (brace != NULL && labelsel_parse(brace, n - at, &q->ls, err) == -1) {
		/* Its offsets are the selector's: say where it begins. */
		char what[sizeof err->msg];

		snprintf(what, sizeof what, "%s", err->msg);
		error_clear(err);
		error_set(err, ERR_INPUT, "%s: %s (the selector begins at "
		    "offset %zu)", field, what, at);
		goto out;
	}
	if (*name == '\0') {
		/* {__name__="ID", ...}, as Prometheus writes a name. */
		if ((id = labelsel_get(&q->ls, "__name__")) == NULL) {
			error_set(err, ERR_INPUT, "%s: \"%.200s\" names no "
			    "profile type (PROFILE_TYPE_ID{selector})", field,
			    s);
			goto out;
		}
		free(name);
		name = xstrdup(id);
	}
	if (strchr(name, ':') != NULL) {
		if (pyrotype_parse(name, &q->type, err) == -1) {
			char what[sizeof err->msg];

			snprintf(what, sizeof what, "%s", err->msg);
			error_clear(err);
			error_set(err, ERR_INPUT, "%s: %s", field, what);
			goto out;
		}
	} else if (render_app(field, name, q, err) == -1)
		goto out;
	rc = 0;
out:
	free(name);
	if (rc == -1)
		pyroquery_clear(q);
	return rc;
}

void
pyroquery_clear(struct pyroquery *q)
{
	free(q->scope);
	labelsel_clear(&q->ls);
	memset(q, 0, sizeof *q);
}

/* Seconds per unit of attime's offsets, by the unit's prefix as it reads
 * them; 0 for none. */
static int64_t
render_unit(const char *u, size_t n)
{
	if (n >= 1 && u[0] == 's')
		return 1;
	if ((n >= 3 && strncmp(u, "mon", 3) == 0) || (n >= 1 && u[0] == 'M'))
		return 30 * 86400;
	if (n >= 1 && u[0] == 'm')
		return 60;
	if (n >= 1 && u[0] == 'h')
		return 3600;
	if (n >= 1 && u[0] == 'd')
		return 86400;
	if (n >= 1 && u[0] == 'w')
		return 7 * 86400;
	if (n >= 1 && u[0] == 'y')
		return 365 * 86400;
	return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t
render_days(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int
pyroquery_time(const char *field, const char *s, int64_t now_ns, int64_t *ns,
    struct error *err)
{
	char t[64];
	size_t n = 0, i, j;
	int64_t v, sign, total = 0, unit, mul;

	/* attime drops spaces, '_' and ',' first. */
	for (i = 0; s[i] != '\0'; i++) {
		if (render_space(s[i]) || s[i] == '_' || s[i] == ',')
			continue;
		if (n + 1 >= sizeof t)
			goto bad;
		t[n++] = s[i];
	}
	t[n] = '\0';
	if (n == 0) {
		*ns = now_ns;
		return 0;
	}
	if (strspn(t, "0123456789") == n) {
		if (n > 19)
			goto bad;
		v = strtoll(t, NULL, 10);
		if (n == 8 && v / 10000 > 1900 && v / 100 % 100 >= 1 &&
		    v / 100 % 100 <= 12 && v % 100 >= 1 && v % 100 <= 31) {
			v = render_days(v / 10000, (unsigned)(v / 100 % 100),
			    (unsigned)(v % 100)) * 86400;
			/* Past 2262: more than int64 ns hold. */
			if (v > INT64_MAX / 1000000000)
				goto bad;
			*ns = v * 1000000000;
			return 0;
		}
		mul = n == 19 ? 1 : n == 16 ? 1000 : n == 13 ? 1000000 :
		    1000000000;
		if (v > INT64_MAX / mul)
			goto bad;
		*ns = v * mul;
		return 0;
	}
	/* REF[+-]OFFSET: attime knows no reference but now. */
	for (i = 0; i < n && t[i] != '+' && t[i] != '-'; i++)
		;
	if (!(i == 0 || (i == 3 && strncmp(t, "now", 3) == 0)))
		goto bad;
	if (i == n) {
		*ns = now_ns;
		return 0;
	}
	sign = t[i] == '-' ? -1 : 1;
	for (i++; i < n; i = j) {
		for (j = i, v = 0; j < n && t[j] >= '0' && t[j] <= '9'; j++) {
			if (v > 1000000000)
				goto bad;
			v = v * 10 + (t[j] - '0');
		}
		if (j == i)
			goto bad;
		for (i = j; j < n && !(t[j] >= '0' && t[j] <= '9'); j++)
			;
		if ((unit = render_unit(t + i, j - i)) == 0)
			goto bad;
		/* 200 years at most: in int64 ns, now included. */
		total += v * unit;
		if (total > 200LL * 365 * 86400)
			goto bad;
	}
	if (__builtin_add_overflow(now_ns, sign * total * 1000000000, ns))
		goto bad;
	return 0;
bad:
	return error_set(err, ERR_INPUT, "%s: \"%.100s\" is not a time "
	    "(now, now-1h, now-30m, now-7d; Unix time in s, or 13 digits "
	    "of ms, 16 of us, 19 of ns; YYYYMMDD)", field, s);
}

int
pyroquery_max_nodes(const char *field, const char *s, int64_t *v,
    struct error *err)
{
	char *end;
	long long n;

	*v = PYROQUERY_MAX_NODES_DEFAULT;
	if (s == NULL || *s == '\0')
		return 0;
	n = strtoll(s, &end, 10);
	if (*end != '\0' || n < 0 || strspn(s, "0123456789") != strlen(s))
		return error_set(err, ERR_INPUT, "%s: \"%.64s\" is not a "
		    "number of nodes", field, s);
	if (n > PYROQUERY_MAX_NODES_MAX)
		return error_set(err, ERR_INPUT, "%s: %lld nodes, more than "
		    "the limit of %d", field, n, PYROQUERY_MAX_NODES_MAX);
	if (n > 0)
		*v = n;
	return 0;
}

int64_t
pyroquery_step(int64_t from_ms, int64_t until_ms)
{
	/* roundInterval: an interval up to the first of each pair
	 * becomes the second (ms). */
	static const int64_t round[][2] = {
		{ 17500, 15000 }, { 25000, 20000 }, { 45000, 30000 },
		{ 90000, 60000 }, { 210000, 120000 }, { 450000, 300000 },
		{ 750000, 600000 }, { 1050000, 900000 },
		{ 1500000, 1200000 }, { 2700000, 1800000 },
		{ 5400000, 3600000 }, { 9000000, 7200000 },
		{ 16200000, 10800000 }, { 32400000, 21600000 },
		{ 86400000, 43200000 }, { 172800000, 86400000 },
		{ 604800000, 86400000 }, { 1814400000, 604800000 },
		{ 3628800000, 2592000000 },	/* below, not up to */
	};
	int64_t range = until_ms - from_ms, ns;
	size_t i;

	/* In ns, as Go's time.Duration divides (past 9e12 ms, 285 years,
	 * the product would overflow: the last interval anyway). */
	if (range > 9000000000000LL)
		return 31536000;
	ns = range * 1000000 / 1500;
	if (ns < 15000000000LL)
		return 15;
	for (i = 0; i < sizeof round / sizeof round[0]; i++)
		if (ns < round[i][0] * 1000000 || (ns == round[i][0] *
		    1000000 && i + 1 < sizeof round / sizeof round[0]))
			return round[i][1] / 1000;
	return 31536000;
}
