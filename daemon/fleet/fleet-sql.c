/* fleet-sql.c: fleet queries as SQL for ClickHouse 18.16.  A sample row
 * is selected as the store selects one (store-select.c): its scope, its
 * metric, its profile's time in [since, until] (seconds), and each label
 * filter K=V matched by the row's labels or its profile's push labels
 * (numbers compare as their decimal text, as they were shipped); K!=V
 * is the negation. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fleet-batch.h"
#include "fleet-sql.h"
#include "selection.h"
#include "store.h"

/* DateTime is 32-bit unsigned seconds. */
#define FLEET_TIME_MAX	4294967295LL

#define sql_lit(b, s)	buf_add((b), (s), sizeof(s) - 1)

static void
sql_str(struct buf *b, const char *s)
{
	fleet_quote(b, s, strlen(s));
}

static void
sql_table(struct buf *b, const struct fleet_sql *q, const char *table)
{
	buf_printf(b, "%s.%s%s", q->db, table, q->cluster ? "_all" : "");
}

static void
sql_in(struct buf *b, const char *col, char *const *v, size_t n)
{
	size_t i;

	buf_printf(b, " AND %s IN (", col);
	for (i = 0; i < n; i++) {
		if (i > 0)
			sql_lit(b, ", ");
		sql_str(b, v[i]);
	}
	sql_lit(b, ")");
}

static void
sql_label(struct buf *b, const char *key, const char *value)
{
	sql_lit(b, "arrayExists((lk, lv) -> lk = ");
	sql_str(b, key);
	sql_lit(b, " AND lv = ");
	sql_str(b, value);
	sql_lit(b, ", label_keys, label_values)");
}

/* A time bound, in seconds as the store keeps them (selection_window). */
static void
sql_time(struct buf *b, int64_t s, const char *op)
{
	if (s < 0 || s > FLEET_TIME_MAX) {
		/* Past what DateTime holds: open, or nothing. */
		if ((s < 0) != (op[0] == '>'))
			sql_lit(b, " AND 0");
		return;
	}
	buf_printf(b, " AND date %s toDate(toDateTime(%" PRId64 ")) AND time "
	    "%s toDateTime(%" PRId64 ")", op, s, op, s);
}

/* WHERE for samples, metric aside. */
static void
sql_where(struct buf *b, const struct fleet_sql *q)
{
	const struct selection *sel = q->sel;
	int64_t since_s, until_s;
	size_t i;

	sql_lit(b, " WHERE 1");
	sql_in(b, "scope", sel->scopes, sel->nscopes);
	if (q->nhosts > 0)
		sql_in(b, "host", q->hosts, q->nhosts);
	selection_window(sel, &since_s, &until_s);
	if (sel->has_since)
		sql_time(b, since_s, ">=");
	if (sel->has_until)
		sql_time(b, until_s, "<=");
	for (i = 0; i < sel->nlabels; i++) {
		const struct label_filter *l = &sel->labels[i];

		if (l->negate)
			sql_lit(b, " AND NOT (");
		else
			sql_lit(b, " AND (");
		sql_label(b, l->key, l->value);
		buf_printf(b, " OR (host, profile) %sIN (SELECT host, profile "
		    "FROM ", q->cluster ? "GLOBAL " : "");
		sql_table(b, q, "profiles");
		sql_lit(b, " WHERE ");
		sql_label(b, l->key, l->value);
		sql_lit(b, "))");
	}
}

static char *
sql_done(struct buf *b)
{
	sql_lit(b, " FORMAT TabSeparated");
	buf_add(b, "", 1);
	return (char *)b->p;
}

char *
fleet_sql_default_metric(const struct fleet_sql *q)
{
	struct buf b = { 0 };

	sql_lit(&b, "SELECT metrics[length(metrics)] FROM ");
	sql_table(&b, q, "profiles");
	sql_lit(&b, " WHERE scope = ");
	sql_str(&b, q->sel->scopes[0]);
	if (q->nhosts > 0)
		sql_in(&b, "host", q->hosts, q->nhosts);
	sql_lit(&b, " AND length(metrics) > 0 ORDER BY time_ns DESC, "
	    "profile DESC LIMIT 1");
	return sql_done(&b);
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
	sql_table(&b, q, "samples");
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
		sql_lit(&b, ")");
	}
	sql_lit(&b, " GROUP BY metric ORDER BY metric");
	buf_free(&cond);
	buf_free(&t);
	return sql_done(&b);
}

/* Per stack (and bucket, when by_time) with its frames. */
static char *
sql_stacks(const struct fleet_sql *q, const char *metric, int by_time)
{
	struct buf b = { 0 }, where = { 0 };
	const char *in = q->cluster ? "GLOBAL IN" : "IN";

	sql_where(&where, q);
	sql_lit(&where, " AND metric = ");
	sql_str(&where, metric);
	buf_add(&where, "", 1);
	if (by_time)
		sql_lit(&b, "SELECT bucket, ");
	else
		sql_lit(&b, "SELECT ");
	sql_lit(&b, "v, functions, files, lines, inlined, start_lines, "
	    "mappings FROM (SELECT ");
	if (by_time)
		sql_lit(&b, "bucket, ");
	sql_lit(&b, "stack_hash, v, functions, files, lines FROM (SELECT ");
	if (by_time)
		sql_lit(&b, "toInt64(toUInt32(time)) AS bucket, ");
	sql_lit(&b, "stack_hash, sum(value) AS v FROM ");
	sql_table(&b, q, "samples");
	buf_printf(&b, "%s GROUP BY %sstack_hash) ANY INNER JOIN (SELECT "
	    "stack_hash, any(functions) AS functions, any(files) AS files, "
	    "any(lines) AS lines FROM ", (const char *)where.p, by_time ?
	    "bucket, " : "");
	sql_table(&b, q, "stacks");
	buf_printf(&b, " WHERE stack_hash %s (SELECT stack_hash FROM ", in);
	sql_table(&b, q, "samples");
	buf_printf(&b, "%s) GROUP BY stack_hash) USING stack_hash) ANY LEFT "
	    "JOIN (SELECT stack_hash, any(inlined) AS inlined, any(start_lines) "
	    "AS start_lines, any(mappings) AS mappings FROM ",
	    (const char *)where.p);
	sql_table(&b, q, "stack_frames");
	buf_printf(&b, " WHERE stack_hash %s (SELECT stack_hash FROM ", in);
	sql_table(&b, q, "samples");
	buf_printf(&b, "%s) GROUP BY stack_hash) USING stack_hash",
	    (const char *)where.p);
	if (by_time)
		sql_lit(&b, " ORDER BY bucket");
	buf_free(&where);
	return sql_done(&b);
}

char *
fleet_sql_stacks(const struct fleet_sql *q, const char *metric)
{
	return sql_stacks(q, metric, 0);
}

char *
fleet_sql_buckets(const struct fleet_sql *q, const char *metric, int stacks)
{
	struct buf b = { 0 }, where = { 0 };

	if (stacks)
		return sql_stacks(q, metric, 1);
	/* Every stack counts: the sums per bucket are enough. */
	sql_where(&where, q);
	sql_lit(&where, " AND metric = ");
	sql_str(&where, metric);
	buf_add(&where, "", 1);
	sql_lit(&b, "SELECT toInt64(toUInt32(time)) AS bucket, sum(value), "
	    "[], [], [], [], [], [] FROM ");
	sql_table(&b, q, "samples");
	buf_printf(&b, "%s GROUP BY bucket ORDER BY bucket",
	    (const char *)where.p);
	buf_free(&where);
	return sql_done(&b);
}
