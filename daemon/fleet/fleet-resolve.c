/* fleet-resolve.c: the questions a fleet view asks before its values,
 * as the store's source resolves them (query_resolve): the schema
 * version the reads may use, the selection's metric (the default one:
 * the newest profile of the first scope's), the metrics it matches with
 * their profile counts, the metric's kind when no aggregate is named
 * (kind_aggregate) and, for an aggregate other than delta, the profiles
 * it combines.  Each question is a round trip to ClickHouse, so those
 * that need no other's answer go at once, and with them the values the
 * view wants, for the aggregate the metric resolved last (asked again
 * when it resolves otherwise now). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ch-select.h"
#include "fleet-source-int.h"
#include "fleet-sql.h"
#include "fleet-tsv.h"
#include "selection.h"

/* ---- the replies' lines ---- */

static int
fs_default_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_source *x = arg;
	size_t len;

	(void)err;
	if (n >= 1 && x->metric == NULL)
		x->metric = xstrdup(fleet_tsv_str(&v[0], &len));
	return 0;
}

static int
fs_metrics_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_source *x = arg;
	size_t len;

	if (n != 2)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 2 (metric, profiles)", n);
	if (x->nmetrics++ == 0) {
		/* A name asked whole stays the string a query built
		 * before this reply points at. */
		if (x->metric == NULL ||
		    strcmp(x->metric, fleet_tsv_str(&v[0], &len)) != 0) {
			free(x->metric);
			x->metric = xstrdup(fleet_tsv_str(&v[0], &len));
		}
		return fleet_tsv_int(&v[1], &x->nprofiles, err);
	}
	return 0;
}

/* A reply of up to 3 numbers on one line into x->range: a kind, a
 * count, or a range's first, last and count. */
int
fleet_resolve_ints_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_source *x = arg;
	size_t i;

	if (n == 0 || n > 3 || x->nints > 0)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not one line of up to 3 numbers", n);
	for (i = 0; i < n; i++)
		if (fleet_tsv_int(&v[i], &x->range[i], err) == -1)
			return -1;
	x->nints = (int)n;
	return 0;
}

/* ---- the questions ---- */

int
fleet_resolve_ask(struct fleet_source *x, char *sql,
    int (*row)(void *, struct fleet_tsv_field *, size_t, struct error *),
    struct error *err)
{
	int rc = ch_select(x->r->chs, sql, row, x, err);

	free(sql);
	return rc;
}

/* sql asked, its answer read later (ch_select_read or _drop); small: a
 * question of one or a few rows (the metric's, its kind, the default),
 * one of ClickHouse's threads. */
static struct chs_q *
fs_start(struct fleet_source *x, char *sql, int small)
{
	struct chs_q *q = ch_select_start(x->r->chs, sql, small);

	free(sql);
	return q;
}

struct chs_q *
fleet_resolve_start(struct fleet_source *x, char *sql)
{
	return fs_start(x, sql, 0);
}

static struct chs_q *
fs_start_small(struct fleet_source *x, char *sql)
{
	return fs_start(x, sql, 1);
}

static int
fs_metric_found(struct fleet_source *x, const struct fleet_sql *q,
    struct error *err)
{
	if (x->metric == NULL)
		return error_set(err, ERR_NOT_FOUND, "scope \"%s\" has no "
		    "profiles in the fleet", q->sel->scopes[0]);
	return 0;
}

/* What a view resolved last, by key ("default\tSCOPE": the scope's
 * default metric; "aggregate\tMETRIC": the metric's aggregate, as its
 * number): the guesses fleet_resolve asks with.  A copy, or NULL. */
static char *
fs_memo_get(struct fleet_reader *r, const char *what, const char *of)
{
	char *v = NULL;
	size_t i, nw = strlen(what);

	pthread_mutex_lock(&r->mu);
	for (i = 0; i < FLEET_MEMO && v == NULL; i++)
		if (r->memo[i].key != NULL &&
		    strncmp(r->memo[i].key, what, nw) == 0 &&
		    r->memo[i].key[nw] == '\t' &&
		    strcmp(r->memo[i].key + nw + 1, of) == 0)
			v = xstrdup(r->memo[i].value);
	pthread_mutex_unlock(&r->mu);
	return v;
}

static void
fs_memo_set(struct fleet_reader *r, const char *what, const char *of,
    const char *value)
{
	char *key;
	size_t i;

	xasprintf(&key, "%s\t%s", what, of);
	pthread_mutex_lock(&r->mu);
	for (i = 0; i < FLEET_MEMO; i++)
		if (r->memo[i].key != NULL && strcmp(r->memo[i].key, key) == 0)
			break;
	if (i == FLEET_MEMO) {
		/* A few kept, the oldest replaced. */
		i = r->next_memo++ % FLEET_MEMO;
		free(r->memo[i].key);
		r->memo[i].key = key;
		key = NULL;
	}
	free(r->memo[i].value);
	r->memo[i].value = xstrdup(value);
	pthread_mutex_unlock(&r->mu);
	free(key);
}

/* The selection's metric as named, or the default (the newest profile
 * of the first scope's), into x->metric; fs_metric_check then counts
 * its profiles and checks it, as query_resolve does in a store. */
static int
fs_metric_name(struct fleet_source *x, const struct fleet_sql *q,
    struct error *err)
{
	const struct selection *sel = q->sel;

	free(x->metric);
	x->metric = NULL;
	x->nmetrics = 0;
	x->nprofiles = 0;
	if (sel->metric != NULL)
		x->metric = xstrdup(sel->metric);
	else if (fleet_resolve_ask(x, fleet_sql_default_metric(q),
	    fs_default_row, err) == -1)
		return -1;
	return fs_metric_found(x, q, err);
}

/* The reply of the metrics query (started by the caller, or asked here
 * when qm is NULL): x->metric made TYPE/UNIT, the profile count. */
static int
fs_metric_check(struct fleet_source *x, const struct fleet_sql *q,
    struct chs_q *qm, struct error *err)
{
	if (qm == NULL)
		qm = fs_start_small(x, fleet_sql_metrics(q, x->metric));
	if (ch_select_read(qm, fs_metrics_row, x, err) == -1)
		return -1;
	if (x->nmetrics == 0)
		return error_set(err, ERR_INPUT, "metric: no selected scope "
		    "has metric \"%s\" in the fleet", x->metric);
	if (x->nmetrics > 1)
		return error_set(err, ERR_INPUT, "metric: \"%s\" has several "
		    "units in the selected scopes: name one as %s/UNIT",
		    x->metric, x->metric);
	return 0;
}

/* The numbers of one line of ClickHouse's reply to sql in x->range
 * (x->nints of them: 0 for no line). */
int
fleet_resolve_ints(struct fleet_source *x, char *sql, struct error *err)
{
	x->nints = 0;
	memset(x->range, 0, sizeof x->range);
	return fleet_resolve_ask(x, sql, fleet_resolve_ints_row, err);
}

/* Does the database have samples_hourly (schema version 5 recorded:
 * its rows made whole by the step's backfill), samples_profiles
 * (version 6, the same) and samples_daily (7)?  Asked until it has
 * them all. */
static int
fs_version(struct fleet_source *x, struct fleet_sql *q, struct error *err)
{
	char *sql;
	int v = atomic_load(&x->r->version);

	if (v < FS_VERSION) {
		xasprintf(&sql, "SELECT max(version) FROM %s.schema_version "
		    "FORMAT TabSeparated", x->r->database);
		if (fleet_resolve_ints(x, sql, err) == -1)
			return -1;
		if (x->nints == 1 && x->range[0] > v) {
			v = x->range[0] > FS_VERSION ? FS_VERSION :
			    (int)x->range[0];
			atomic_store(&x->r->version, v);
		}
	}
	q->hourly = v >= 5;
	q->profile_rows = v >= 6;
	q->daily = v >= 7;
	q->fsums = v >= 8;
	return 0;
}

/* How the window combines its profiles (q->aggregate, x->aggregate): as
 * asked, else by the metric's kind in the newest profile of the first
 * scope, as the store's source resolves it (query_resolve), of the reply
 * to qk (the kind's query, started by the caller: NULL when one was
 * named); with count, how many profiles that combines, where it is not
 * what fs_metric_check counted (delta). */
static int
fs_aggregate(struct fleet_source *x, struct fleet_sql *q, struct chs_q *qk,
    int count, struct error *err)
{
	q->metric = x->metric;
	q->aggregate = q->sel->aggregate;
	if (q->aggregate == AGG_DEFAULT) {
		x->nints = 0;
		memset(x->range, 0, sizeof x->range);
		if (ch_select_read(qk, fleet_resolve_ints_row, x, err) == -1)
			return -1;
		if (x->nints == 1 && (x->range[0] < 0 ||
		    x->range[0] >= KIND_COUNT))
			return error_set(err, ERR_INTERNAL, "ClickHouse's "
			    "reply: kind %lld", (long long)x->range[0]);
		/* Profiles shipped before their kinds: as the store read
		 * them before it had kinds. */
		q->aggregate = kind_aggregate(x->nints == 1 ?
		    (enum metric_kind)x->range[0] : KIND_DELTA, 0);
	}
	x->aggregate = q->aggregate;
	if (!count || q->aggregate == AGG_DELTA)
		return 0;
	if (fleet_resolve_ints(x, fleet_sql_count(q), err) == -1)
		return -1;
	x->nprofiles = x->range[0];
	return 0;
}

/* The aggregate the metric's last view resolved (delta before any). */
static enum metric_aggregate
fs_guess(struct fleet_reader *r, const char *metric)
{
	char *v = fs_memo_get(r, "aggregate", metric);
	enum metric_aggregate a = v != NULL ? (enum metric_aggregate)atoi(v) :
	    AGG_DELTA;

	free(v);
	return a;
}

static void
fs_guess_set(struct fleet_reader *r, const char *metric,
    enum metric_aggregate a)
{
	char v[16];

	snprintf(v, sizeof v, "%d", (int)a);
	fs_memo_set(r, "aggregate", metric, v);
}

void
fleet_resolve_drop(struct fleet_asked *a)
{
	ch_select_drop(a->sums);
	ch_select_drop(a->fsums);
	ch_select_drop(a->ends);
	memset(a, 0, sizeof *a);
}

/* The values' questions for q->aggregate, into a. */
static void
fs_ask_values(struct fleet_source *x, const struct fleet_sql *q,
    enum fleet_want want, struct fleet_asked *a)
{
	const struct selection *sel = q->sel;

	if (want == FLEET_WANT_FSUMS && fleet_sql_fsum_ok(q)) {
		a->fsums = fleet_resolve_start(x, fleet_sql_fsums(q));
		if (sel->has_since || sel->has_until)
			a->ends = fleet_resolve_start(x, fleet_sql_sum_ends(q));
	} else if (want != FLEET_WANT_NONE)
		a->sums = fleet_resolve_start(x, fleet_sql_sums(q));
}

/* fleet_resolve's questions once x->metric is named or guessed: qd,
 * when not NULL, the default metric's question, whose answer must be
 * the guess (else *missed, nothing left in flight). */
static int
fs_questions(struct fleet_source *x, struct fleet_sql *q, int count,
    enum fleet_want want, struct fleet_asked *a, struct chs_q *qd,
    int *missed, struct error *err)
{
	struct chs_q *qm = NULL, *qk = NULL;
	enum metric_aggregate guess;
	char *named;
	int rc = 0;

	/* A type alone is made TYPE/UNIT by the metrics' reply first (a
	 * named one: a guess is always whole). */
	if (strchr(x->metric, '/') == NULL) {
		if (fs_metric_check(x, q, NULL, err) == -1) {
			ch_select_drop(qd);
			return -1;
		}
	} else
		qm = fs_start_small(x, fleet_sql_metrics(q, x->metric));
	q->metric = x->metric;
	guess = q->sel->aggregate;
	if (guess == AGG_DEFAULT) {
		guess = fs_guess(x->r, x->metric);
		qk = fs_start_small(x, fleet_sql_kind(q));
	}
	q->aggregate = guess;
	fs_ask_values(x, q, want, a);
	if (qd != NULL) {
		named = x->metric;
		x->metric = NULL;
		if ((rc = ch_select_read(qd, fs_default_row, x, err)) == 0)
			rc = fs_metric_found(x, q, err);
		if (rc == 0 && strcmp(x->metric, named) == 0) {
			/* The strings asked point at it. */
			free(x->metric);
			x->metric = named;
		} else {
			free(named);
			q->metric = NULL;
			ch_select_drop(qm);
			ch_select_drop(qk);
			fleet_resolve_drop(a);
			*missed = rc == 0;
			return rc;
		}
	}
	if (qm != NULL)
		rc = fs_metric_check(x, q, qm, err);
	if (rc == 0)
		rc = fs_aggregate(x, q, qk, count, err);
	else
		ch_select_drop(qk);
	if (rc == 0 && q->sel->aggregate == AGG_DEFAULT)
		fs_guess_set(x->r, x->metric, q->aggregate);
	if (rc == -1 || q->aggregate != guess)
		fleet_resolve_drop(a);
	if (rc == 0 && q->aggregate != guess)
		fs_ask_values(x, q, want, a);
	return rc;
}

/* What a selection's values need asked first: its metric, checked and
 * counted, and how it combines (fs_metric_name, fs_metric_check,
 * fs_aggregate).  The questions that do not wait for each other's
 * answers are asked together, each a round trip to ClickHouse: the
 * values wanted too (a), for the aggregate the metric's last view
 * resolved, and asked again here when it resolves otherwise. */
int
fleet_resolve(struct fleet_source *x, struct fleet_sql *q, int count,
    enum fleet_want want, struct fleet_asked *a, struct error *err)
{
	const struct selection *sel = q->sel;
	struct chs_q *qd = NULL;
	char *guess = NULL;
	int missed = 0, rc;

	memset(a, 0, sizeof *a);
	if (fs_version(x, q, err) == -1)
		return -1;
	/* The default metric the scope's last view resolved, asked with
	 * the rest at once: the default's own question checks it. */
	if (sel->metric == NULL &&
	    (guess = fs_memo_get(x->r, "default", sel->scopes[0])) != NULL) {
		qd = fs_start_small(x, fleet_sql_default_metric(q));
		free(x->metric);
		x->metric = guess;
		x->nmetrics = 0;
		x->nprofiles = 0;
	} else if (fs_metric_name(x, q, err) == -1)
		return -1;
	rc = fs_questions(x, q, count, want, a, qd, &missed, err);
	if (rc == 0 && missed)
		rc = fs_questions(x, q, count, want, a, NULL, &missed, err);
	if (rc == 0 && sel->metric == NULL)
		fs_memo_set(x->r, "default", sel->scopes[0], x->metric);
	return rc;
}
