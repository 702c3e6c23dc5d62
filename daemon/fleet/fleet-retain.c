/* fleet-retain.c: which day partitions of samples, samples_hourly,
 * samples_profiles, samples_daily, profiles, profile_metrics and the
 * function sums (functions_hourly, _daily, _profiles) are past
 * the host's max-age, and the ALTER … DROP PARTITION of each.
 *
 * A partition goes only when all of it is past the age: its last day is
 * before the day of the cutoff.  Both days are ClickHouse's (toDate in
 * the server's time zone, the one that made the partition's date), so a
 * day partition that still holds rows in the age stays.
 *
 * Several profd shipping to one node list the same old partitions and
 * may all drop them: dropping a partition that is gone is a no-op in
 * ClickHouse (no error, nothing else touched), and what is dropped is
 * past every such host's age if they share the max-age.  A host with a
 * shorter max-age drops the others' rows too: the rows of all hosts share
 * a day partition (docs/FLEET.md says to give them one max-age).
 *
 * stacks is not partitioned and keeps the stacks no sample names any
 * more: docs/FLEET.md ("Retention in ClickHouse") says why and how to
 * collect them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "clock.h"
#include "config.h"
#include "fleet-batch.h"
#include "fleet-retain.h"
#include "log.h"
#include "nitems.h"

const char *const fleet_retain_tables[] = {
	"samples", "profiles", "profile_metrics", "samples_hourly",
	"samples_profiles", "samples_daily", "functions_hourly",
	"functions_daily", "functions_profiles"
};
const size_t fleet_retain_ntables = NITEMS(fleet_retain_tables);

void
fleet_retain_set(struct fleet_retain *r, const struct retention *pol)
{
	size_t i;

	r->interval = pol->interval > 0 ? pol->interval : 1;
	r->max_age = pol->max_age;
	if (r->max_age == 0)
		return;
	/* A scope's override is another age, never "forever" (0 there is
	 * the default): the longest wins. */
	for (i = 0; i < pol->nscopes; i++)
		if (pol->scopes[i].max_age > r->max_age)
			r->max_age = pol->scopes[i].max_age;
}

static void
fleet_retain_free_list(struct fleet_retain *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->tables[i]);
		free(r->parts[i]);
	}
	free(r->tables);
	free(r->parts);
	r->tables = r->parts = NULL;
	r->n = r->next = 0;
	r->listed = 0;
}

char *
fleet_retain_start(struct fleet_retain *r, const char *db, int64_t now)
{
	struct buf q = { 0 };
	size_t i;
	char *s;

	if (r->max_age <= 0 || (r->last_pass_ns != 0 && now - r->last_pass_ns <
	    r->interval * INT64_C(1000000000)))
		return NULL;
	fleet_retain_free_list(r);
	r->last_pass_ns = now;
	r->cutoff_s = now / 1000000000 - r->max_age;
	buf_printf(&q, "SELECT table, partition FROM system.parts WHERE "
	    "database = ");
	fleet_quote(&q, db, strlen(db));
	buf_printf(&q, " AND table IN (");
	for (i = 0; i < fleet_retain_ntables; i++)
		buf_printf(&q, "%s'%s'", i ? ", " : "", fleet_retain_tables[i]);
	buf_printf(&q, ") AND active AND max_date < toDate(toDateTime(%"
	    PRId64 ")) GROUP BY table, partition ORDER BY partition, table "
	    "FORMAT TabSeparated", r->cutoff_s < 0 ? 0 : r->cutoff_s);
	s = xstrndup((const char *)q.p, q.n);
	buf_free(&q);
	return s;
}

/* "YYYY-MM-DD", what a Date partition key reads as. */
static int
fleet_retain_is_day(const char *p, size_t n)
{
	size_t i;

	if (n != 10)
		return 0;
	for (i = 0; i < n; i++)
		if (i == 4 || i == 7 ? p[i] != '-' : p[i] < '0' || p[i] > '9')
			return 0;
	return 1;
}

static int
fleet_retain_is_table(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < fleet_retain_ntables; i++)
		if (strlen(fleet_retain_tables[i]) == n &&
		    strncmp(p, fleet_retain_tables[i], n) == 0)
			return 1;
	return 0;
}

/* The list: "table\tpartition" lines. */
static int
fleet_retain_parse(struct fleet_retain *r, const char *reply, size_t n,
    struct error *err)
{
	const char *p = reply, *end = reply + n, *nl, *tab;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		tab = memchr(p, '\t', (size_t)(nl - p));
		if (tab == NULL || !fleet_retain_is_table(p,
		    (size_t)(tab - p)) ||
		    !fleet_retain_is_day(tab + 1, (size_t)(nl - tab - 1)))
			return error_set(err, ERR_INPUT, "ClickHouse: not a "
			    "table and a day partition: \"%.*s\"",
			    (int)(nl - p > 40 ? 40 : nl - p), p);
		r->tables = xreallocarray(r->tables, r->n + 1,
		    sizeof *r->tables);
		r->parts = xreallocarray(r->parts, r->n + 1, sizeof *r->parts);
		r->tables[r->n] = xstrndup(p, (size_t)(tab - p));
		r->parts[r->n++] = xstrndup(tab + 1, (size_t)(nl - tab - 1));
	}
	return 0;
}

char *
fleet_retain_next(struct fleet_retain *r, const char *db, const char *reply,
    size_t n, struct error *err)
{
	struct buf q = { 0 };
	char *s;

	if (!r->listed) {
		r->listed = 1;
		if (fleet_retain_parse(r, reply, n, err) == -1) {
			fleet_retain_free_list(r);
			return NULL;
		}
	} else {
		/* The previous DROP was acknowledged. */
		r->dropped++;
		r->last_drop_ns = now_ns();
		log_info("fleet: dropped partition %s of %s.%s: all of it "
		    "older than max-age (%" PRId64 " s)", r->parts[r->next - 1],
		    db, r->tables[r->next - 1], r->max_age);
	}
	if (r->next == r->n) {
		fleet_retain_free_list(r);
		return NULL;
	}
	buf_printf(&q, "ALTER TABLE %s.%s DROP PARTITION ", db,
	    r->tables[r->next]);
	fleet_quote(&q, r->parts[r->next], strlen(r->parts[r->next]));
	r->next++;
	s = xstrndup((const char *)q.p, q.n);
	buf_free(&q);
	return s;
}

/* A pass drops a day whose last date is before the cutoff's date, in
 * ClickHouse's time zone, which profd does not know.  A time more than
 * 26 hours before the cutoff is on an earlier date in any zone: a day is
 * at most 25 hours (a DST change), and both dates are of one zone. */
int64_t
fleet_retain_unsent_before(const struct fleet_retain *r, int64_t now)
{
	if (r->max_age <= 0)
		return INT64_MIN;
	return now / 1000000000 - r->max_age - 26 * 3600;
}

void
fleet_retain_clear(struct fleet_retain *r)
{
	fleet_retain_free_list(r);
}
