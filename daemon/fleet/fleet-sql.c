/* fleet-sql.c: fleet queries as SQL for ClickHouse 18.16.  A sample row
 * is selected as the store selects one (store-select.c): its scope, its
 * metric, its profile's time in [since, until] (seconds), and each label
 * filter K=V matched by the row's labels or its profile's push labels
 * (numbers compare as their decimal text, as they were shipped); K!=V
 * is the negation; K=~RE and K!~RE match whole with match(), and a
 * label neither has reads as "".  A window's rows are combined as its aggregate says
 * (docs/TIME.md), in ClickHouse: summed (what each profile counts, or the
 * values as given), or per series, (host, scope, series) from
 * profile_metrics, averaged, the newest taken or the largest, as
 * query/aggregate.c does from a store, then summed across series. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "buf.h"
#include "fleet-batch.h"
#include "fleet-sql-int.h"
#include "fleet-sql.h"
#include "rx.h"
#include "selection.h"
#include "store.h"

/* Has a row (a sample's labels, or a profile's push labels) label l's
 * key with a value it takes?  A pattern is matched whole, with
 * ClickHouse's match() (RE2, as profd's store matches it). */
static void
sql_label(struct buf *b, const struct label_filter *l)
{
	struct buf pat;

	sql_lit(b, "arrayExists((lk, lv) -> lk = ");
	sql_str(b, l->key);
	if (l->regex) {
		memset(&pat, 0, sizeof pat);
		buf_printf(&pat, "^(?:%s)$", l->value);
		buf_add(&pat, "", 1);
		sql_lit(b, " AND match(lv, ");
		sql_str(b, (const char *)pat.p);
		sql_lit(b, ")");
		buf_free(&pat);
	} else {
		sql_lit(b, " AND lv = ");
		sql_str(b, l->value);
	}
	sql_lit(b, ", label_keys, label_values)");
}

/* Does l's pattern match "", the value of a label a sample lacks? */
static int
sql_label_empty_ok(const struct label_filter *l)
{
	struct rx *rx;
	char why[64];
	int m;

	if (!l->regex || (rx = rx_new(l->value, strlen(l->value), 1, why,
	    sizeof why)) == NULL)
		return 0;
	m = rx_match(rx, "", 0);
	rx_free(rx);
	return m;
}

/* WHERE for samples, metric aside. */
static void
sql_where(struct buf *b, const struct fleet_sql *q)
{
	const struct selection *sel = q->sel;
	size_t i;

	sql_lit(b, " WHERE 1");
	sql_window(b, q);
	for (i = 0; i < sel->nlabels; i++) {
		const struct label_filter *l = &sel->labels[i];

		if (l->negate)
			sql_lit(b, " AND NOT (");
		else
			sql_lit(b, " AND (");
		sql_label(b, l);
		buf_printf(b, " OR (host, profile) %sIN (SELECT host, profile "
		    "FROM ", q->cluster ? "GLOBAL " : "");
		sql_table(b, q, "profiles");
		sql_lit(b, " WHERE ");
		sql_label(b, l);
		sql_lit(b, ")");
		if (sql_label_empty_ok(l)) {
			/* Neither the sample nor its profile has the key. */
			sql_lit(b, " OR (NOT has(label_keys, ");
			sql_str(b, l->key);
			buf_printf(b, ") AND (host, profile) %sNOT IN (SELECT "
			    "host, profile FROM ", q->cluster ? "GLOBAL " : "");
			sql_table(b, q, "profiles");
			sql_lit(b, " WHERE has(label_keys, ");
			sql_str(b, l->key);
			sql_lit(b, ")))");
		}
		sql_lit(b, ")");
	}
}

/* The table a profile count reads: samples_profiles, a row per profile
 * and metric, where it has what the selection asks (schema 6, no label
 * filter: a label is the sample's or its profile's, which it has not);
 * else the rows.  Either has a (host, profile) for every profile with
 * a row of a metric in the window, and nothing else. */
static const char *
sql_counted(const struct fleet_sql *q)
{
	return q->profile_rows && q->sel->nlabels == 0 ? "samples_profiles" :
	    "samples";
}

/* The rows of q->metric a read of table (samples, or samples_profiles
 * for a count) takes, after sql_where: what each profile counts, or
 * (raw) its values as given: the raw rows (FLEET_RAW_SUFFIX) where its
 * profile has them, else its rows. */
static void
sql_rows_of(struct buf *b, const struct fleet_sql *q, int raw,
    const char *table)
{
	if (!raw) {
		sql_metric(b, q);
		return;
	}
	sql_lit(b, " AND (metric = ");
	fleet_quote_raw(b, q->metric);
	sql_lit(b, " OR (metric = ");
	sql_str(b, q->metric);
	buf_printf(b, " AND (host, profile) %sNOT IN (SELECT host, profile "
	    "FROM ", q->cluster ? "GLOBAL " : "");
	sql_table(b, q, table);
	sql_lit(b, " WHERE metric = ");
	fleet_quote_raw(b, q->metric);
	sql_window(b, q);
	sql_lit(b, ")))");
}

/* SELECT what of the newest profile of the first scope (of the hosts)
 * in table where cond holds. */
static char *
sql_newest(const struct fleet_sql *q, const char *table, const char *what,
    const char *cond)
{
	struct buf b = { 0 };

	sql_lit(&b, "SELECT ");
	buf_add(&b, what, strlen(what));
	sql_lit(&b, " FROM ");
	sql_table(&b, q, table);
	sql_lit(&b, " WHERE scope = ");
	sql_str(&b, q->sel->scopes[0]);
	if (q->nhosts > 0)
		sql_in(&b, "host", q->hosts, q->nhosts);
	sql_lit(&b, " AND ");
	buf_add(&b, cond, strlen(cond));
	sql_lit(&b, " ORDER BY time_ns DESC, profile DESC LIMIT 1");
	return sql_done(&b);
}

char *
fleet_sql_default_metric(const struct fleet_sql *q)
{
	return sql_newest(q, "profiles", "metrics[length(metrics)]",
	    "length(metrics) > 0");
}

char *
fleet_sql_scopes(const struct fleet_sql *q)
{
	struct buf b = { 0 };

	/* A profile shipped again after a crash is a second row until the
	 * merge: counted once by its key. */
	sql_lit(&b, "SELECT scope, uniqExact(host, profile), min(time_ns), "
	    "max(time_ns), arraySort(groupUniqArray(metric)) FROM ");
	sql_table(&b, q, "profiles");
	sql_lit(&b, " ARRAY JOIN metrics AS metric GROUP BY scope "
	    "ORDER BY scope");
	return sql_done(&b);
}

char *
fleet_sql_hosts(const struct fleet_sql *q)
{
	struct buf b = { 0 };

	sql_lit(&b, "SELECT DISTINCT host FROM ");
	sql_table(&b, q, "profiles");
	sql_lit(&b, " ORDER BY host");
	return sql_done(&b);
}

char *
fleet_sql_metrics(const struct fleet_sql *q, const char *metric)
{
	struct buf b = { 0 }, cond = { 0 }, t = { 0 };

	/* The condition of the selection but for scope and metric, which
	 * pick the metrics (at any time, as the store's). */
	sql_where(&cond, q);
	sql_lit(&b, "SELECT metric, uniqExactIf(host, profile, 1");
	buf_add(&b, cond.p + sizeof " WHERE 1" - 1,
	    cond.n - (sizeof " WHERE 1" - 1));
	sql_lit(&b, ") FROM ");
	sql_table(&b, q, sql_counted(q));
	sql_lit(&b, " WHERE 1");
	sql_in(&b, "scope", q->sel->scopes, q->sel->nscopes);
	if (q->nhosts > 0)
		sql_in(&b, "host", q->hosts, q->nhosts);
	if (strchr(metric, '/') != NULL) {
		sql_lit(&b, " AND metric = ");
		sql_str(&b, metric);
	} else {
		buf_printf(&t, "%s/", metric);
		buf_add(&t, "", 1);
		sql_lit(&b, " AND startsWith(metric, ");
		sql_str(&b, (const char *)t.p);
		sql_lit(&b, ") AND NOT endsWith(metric, '" FLEET_RAW_SUFFIX
		    "')");
	}
	sql_lit(&b, " GROUP BY metric ORDER BY metric");
	buf_free(&cond);
	buf_free(&t);
	return sql_done(&b);
}

/* ---- a window's values, as its aggregate combines them ---- */

/* The window's profiles of q->metric (profile_metrics), a row each:
 * host, scope, profile, its series (sr), time (t in seconds, tn in ns),
 * the metric's total as given and its timeline step (st, 0 without
 * steps): the profiles aggregate.c reads (store_series_window). */
static void
sql_profiles(struct buf *b, const struct fleet_sql *q)
{
	sql_lit(b, "SELECT host, scope, profile, any(series) AS sr, "
	    "any(toInt64(toUInt32(time))) AS t, any(time_ns) AS tn, "
	    "any(raw_totals[indexOf(metrics, ");
	sql_str(b, q->metric);
	sql_lit(b, ")]) AS total, ");
	if (q->step_s > 0)
		buf_printf(b, "intDiv(t - %" PRId64 ", %" PRId64 ")",
		    q->first_s, q->step_s);
	else
		sql_lit(b, "0");
	sql_lit(b, " AS st FROM ");
	sql_table(b, q, "profile_metrics");
	sql_lit(b, " WHERE has(metrics, ");
	sql_str(b, q->metric);
	sql_lit(b, ")");
	sql_window(b, q);
	sql_lit(b, " GROUP BY host, scope, profile");
}

/* Per series (and step) the profile aggregate=last or max reads, as
 * aggregate.c's agg_pick: the newest, or the one of the largest total
 * (the oldest of equals).  Profiles of one time are told apart by key,
 * where the store takes the later stored. */
static void
sql_pick(struct buf *b, const struct fleet_sql *q)
{
	sql_lit(b, "SELECT host, profile FROM (");
	sql_profiles(b, q);
	if (q->aggregate == AGG_LAST)
		sql_lit(b, ") ORDER BY host, scope, sr, st, tn DESC, "
		    "profile DESC");
	else
		sql_lit(b, ") ORDER BY host, scope, sr, st, total DESC, tn, "
		    "profile");
	sql_lit(b, " LIMIT 1 BY host, scope, sr, st");
}

/* Each profile's series (host, profile, sr) and, per step, how many
 * profiles its series has in its step (cnt). */
static void
sql_series(struct buf *b, const struct fleet_sql *q, int by_time)
{
	sql_lit(b, "SELECT host, profile, sr");
	if (by_time)
		sql_lit(b, ", cnt");
	sql_lit(b, " FROM (");
	sql_profiles(b, q);
	sql_lit(b, ")");
	if (!by_time)
		return;
	sql_lit(b, " ANY INNER JOIN (SELECT host, scope, sr, st, count() AS "
	    "cnt FROM (");
	sql_profiles(b, q);
	sql_lit(b, ") GROUP BY host, scope, sr, st) USING host, scope, sr, st");
}

/* A row's time bucket: its second, or the start of its step. */
static void
sql_bucket(struct buf *b, const struct fleet_sql *q)
{
	if (q->step_s > 0)
		buf_printf(b, "%" PRId64 " + intDiv(toInt64(toUInt32(time)) - "
		    "%" PRId64 ", %" PRId64 ") * %" PRId64, q->first_s,
		    q->first_s, q->step_s, q->step_s);
	else
		sql_lit(b, "toInt64(toUInt32(time))");
	sql_lit(b, " AS bucket, ");
}

/* GROUP BY [bucket][, stack_hash]. */
static void
sql_group(struct buf *b, int by_time, int stacks)
{
	sql_lit(b, " GROUP BY ");
	if (by_time && stacks)
		sql_lit(b, "bucket, stack_hash");
	else if (by_time)
		sql_lit(b, "bucket");
	else
		sql_lit(b, "stack_hash");
}

/* [bucket,] [stack_hash,] v: the sum of the rows `where` selects; for
 * aggregate=last and max, of those of the profile each series (and
 * step) reads. */
static void
sql_sums(struct buf *b, const struct fleet_sql *q, const char *where,
    int by_time, int stacks)
{
	sql_lit(b, "SELECT ");
	if (by_time)
		sql_bucket(b, q);
	if (stacks)
		sql_lit(b, "stack_hash, ");
	sql_lit(b, "sum(value) AS v FROM ");
	sql_table(b, q, "samples");
	buf_add(b, where, strlen(where));
	if (AGGREGATE_PER_SERIES(q->aggregate)) {
		buf_printf(b, " AND (host, profile) %sIN (", q->cluster ?
		    "GLOBAL " : "");
		sql_pick(b, q);
		sql_lit(b, ")");
	}
	sql_group(b, by_time, stacks);
}

/* The same for aggregate=avg: per series (and step) the sums divided by
 * its profiles, rounded as aggregate.c's agg_div (halves away from
 * zero), then added up across series.  A window's series is divided by
 * its profiles with a row selected, a step's by its profiles in the
 * step, as aggregate_select and aggregate_buckets do. */
static void
sql_avg(struct buf *b, const struct fleet_sql *q, const char *where,
    int by_time, int stacks)
{
	sql_lit(b, "SELECT ");
	if (by_time)
		sql_lit(b, "bucket, ");
	if (stacks)
		sql_lit(b, "k AS stack_hash, ");
	sql_lit(b, "sum(intDiv(s, n) + if(abs(s % n) * 2 >= n, if(s < 0, -1, "
	    "1), 0)) AS v FROM (SELECT ");
	if (by_time)
		sql_bucket(b, q);
	if (by_time)
		sql_lit(b, "toInt64(any(cnt)) AS n, ");
	else
		sql_lit(b, "toInt64(uniqExact(profile)) AS n, ");
	if (stacks)
		sql_lit(b, "sumMap([stack_hash], [value]) AS m FROM ");
	else
		sql_lit(b, "sum(value) AS s FROM ");
	sql_table(b, q, "samples");
	buf_printf(b, " %sANY INNER JOIN (", q->cluster ? "GLOBAL " : "");
	sql_series(b, q, by_time);
	sql_lit(b, ") USING host, profile");
	buf_add(b, where, strlen(where));
	sql_lit(b, " GROUP BY host, scope, sr");
	if (by_time)
		sql_lit(b, ", bucket");
	sql_lit(b, ")");
	if (stacks)
		sql_lit(b, " ARRAY JOIN tupleElement(m, 1) AS k, "
		    "tupleElement(m, 2) AS s");
	sql_group(b, by_time, stacks);
}

/* The values of the selection into v ([bucket,] [stack_hash,] v) and
 * the hashes of its stacks into hs (SELECT stack_hash ...), each
 * NUL-terminated: the rows q->aggregate reads, combined as it says, of
 * samples_hourly where it sums (a few times smaller than samples). */
static void
sql_parts(const struct fleet_sql *q, int by_time, int stacks, struct buf *v,
    struct buf *hs)
{
	struct buf where = { 0 };
	int hourly = fleet_sql_hourly_ok(q, by_time);

	sql_where(&where, q);
	sql_rows_of(&where, q, q->aggregate != AGG_DELTA, "samples");
	buf_add(&where, "", 1);
	if (hourly) {
		fleet_sql_hourly_sums(v, q, FSQL_SUMS);
		fleet_sql_hourly_sums(hs, q, FSQL_HASHES);
	} else if (q->aggregate == AGG_AVG)
		sql_avg(v, q, (const char *)where.p, by_time, stacks);
	else
		sql_sums(v, q, (const char *)where.p, by_time, stacks);
	if (!hourly) {
		sql_lit(hs, "SELECT stack_hash FROM ");
		sql_table(hs, q, "samples");
		buf_add(hs, where.p, where.n - 1);
	}
	buf_add(v, "", 1);
	buf_add(hs, "", 1);
	buf_free(&where);
}

/* The values of the selection (per stack with its frames, or per bucket
 * summed over stacks); the frames of the stacks it has, read of stacks
 * and stack_frames by the hashes of the same source. */
static char *
sql_read(const struct fleet_sql *q, int by_time, int stacks)
{
	struct buf b = { 0 }, v = { 0 }, hs = { 0 };
	const char *in = q->cluster ? "GLOBAL IN" : "IN";

	sql_parts(q, by_time, stacks, &v, &hs);
	if (!stacks) {
		/* Every stack counts: the sums per bucket are enough. */
		buf_printf(&b, "SELECT bucket, v, [], [], [], [], [], [] FROM "
		    "(%s) ORDER BY bucket", (const char *)v.p);
		goto out;
	}
	if (by_time)
		sql_lit(&b, "SELECT bucket, ");
	else
		sql_lit(&b, "SELECT ");
	sql_lit(&b, "v, functions, files, lines, inlined, start_lines, "
	    "mappings FROM (SELECT ");
	if (by_time)
		sql_lit(&b, "bucket, ");
	/* ANY JOIN takes one row of the right side per hash: the copies
	 * of a stack not merged away yet cost no GROUP BY of arrays. */
	buf_printf(&b, "stack_hash, v, functions, files, lines FROM (%s) ANY "
	    "INNER JOIN (SELECT stack_hash, functions, files, lines FROM ",
	    (const char *)v.p);
	sql_table(&b, q, "stacks");
	buf_printf(&b, " WHERE stack_hash %s (%s)) USING stack_hash) ANY LEFT "
	    "JOIN (SELECT stack_hash, inlined, start_lines, mappings FROM ",
	    in, (const char *)hs.p);
	sql_table(&b, q, "stack_frames");
	buf_printf(&b, " WHERE stack_hash %s (%s)) USING stack_hash", in,
	    (const char *)hs.p);
	if (by_time)
		sql_lit(&b, " ORDER BY bucket");
out:
	buf_free(&v);
	buf_free(&hs);
	return sql_done(&b);
}

char *
fleet_sql_sums(const struct fleet_sql *q)
{
	struct buf b = { 0 }, v = { 0 }, hs = { 0 };

	sql_parts(q, 0, 1, &v, &hs);
	buf_printf(&b, "SELECT stack_hash, v FROM (%s)", (const char *)v.p);
	buf_free(&v);
	buf_free(&hs);
	return sql_done(&b);
}

/* The hashes as a list, or the selection's (GLOBAL) IN subquery. */
static void
sql_hashes(struct buf *b, const struct fleet_sql *q, const uint64_t *h,
    size_t n, const char *hs)
{
	size_t i;

	if (n == 0) {
		buf_printf(b, "%s (%s)", q->cluster ? "GLOBAL IN" : "IN", hs);
		return;
	}
	sql_lit(b, "IN (");
	for (i = 0; i < n; i++)
		buf_printf(b, "%s%" PRIu64, i ? "," : "", h[i]);
	sql_lit(b, ")");
}

char *
fleet_sql_frames(const struct fleet_sql *q, const uint64_t *h, size_t n)
{
	struct buf b = { 0 }, v = { 0 }, hs = { 0 };

	if (n == 0)
		sql_parts(q, 0, 1, &v, &hs);
	sql_lit(&b, "SELECT stack_hash, functions, files, lines, inlined, "
	    "start_lines, mappings FROM (SELECT stack_hash, functions, files, "
	    "lines FROM ");
	sql_table(&b, q, "stacks");
	sql_lit(&b, " WHERE stack_hash ");
	sql_hashes(&b, q, h, n, (const char *)hs.p);
	sql_lit(&b, ") ANY LEFT JOIN (SELECT stack_hash, inlined, "
	    "start_lines, mappings FROM ");
	sql_table(&b, q, "stack_frames");
	sql_lit(&b, " WHERE stack_hash ");
	sql_hashes(&b, q, h, n, (const char *)hs.p);
	sql_lit(&b, ") USING stack_hash");
	buf_free(&v);
	buf_free(&hs);
	return sql_done(&b);
}

char *
fleet_sql_stacks(const struct fleet_sql *q)
{
	return sql_read(q, 0, 1);
}

char *
fleet_sql_buckets(const struct fleet_sql *q, int stacks)
{
	return sql_read(q, 1, stacks);
}

char *
fleet_sql_kind(const struct fleet_sql *q)
{
	struct buf what = { 0 }, cond = { 0 };
	char *sql;

	sql_lit(&what, "kinds[indexOf(metrics, ");
	sql_str(&what, q->metric);
	sql_lit(&what, ")]");
	sql_lit(&cond, "has(metrics, ");
	sql_str(&cond, q->metric);
	sql_lit(&cond, ")");
	buf_add(&what, "", 1);
	buf_add(&cond, "", 1);
	sql = sql_newest(q, "profile_metrics", (const char *)what.p,
	    (const char *)cond.p);
	buf_free(&what);
	buf_free(&cond);
	return sql;
}

char *
fleet_sql_count(const struct fleet_sql *q)
{
	struct buf b = { 0 };

	if (q->aggregate == AGG_LAST || q->aggregate == AGG_MAX) {
		/* Every profile of the window, as aggregate.c counts. */
		sql_lit(&b, "SELECT count() FROM (");
		sql_profiles(&b, q);
		sql_lit(&b, ")");
		return sql_done(&b);
	}
	/* The profiles with a row of the values as given selected. */
	sql_lit(&b, "SELECT uniqExact(host, profile) FROM ");
	sql_table(&b, q, sql_counted(q));
	sql_where(&b, q);
	sql_rows_of(&b, q, 1, sql_counted(q));
	if (q->aggregate == AGG_AVG) {
		buf_printf(&b, " AND (host, profile) %sIN (SELECT host, "
		    "profile FROM (", q->cluster ? "GLOBAL " : "");
		sql_profiles(&b, q);
		sql_lit(&b, "))");
	}
	return sql_done(&b);
}

char *
fleet_sql_range(const struct fleet_sql *q)
{
	struct buf b = { 0 };

	sql_lit(&b, "SELECT min(t), max(t), count() FROM (");
	sql_profiles(&b, q);
	sql_lit(&b, ")");
	return sql_done(&b);
}
