/* test_store_rollup_days.h: days made when they close (store-runs.c,
 * "days"; docs/DESIGN-STORAGE.md, "Days made when they close"), included
 * by test_store_rollup.c after its helpers.  In a store of their own:
 * scope f repeats one trace every hour of a day (its day's keys are
 * those of one hour: the day gets its run at its fourth hour), scope g
 * drifts (another trace every hour: open, then a marker, read from its
 * hours).  Every answer is compared
 * with the blocks' alone at each step. */

#define DAYS_D	(T0 + 10 * DAY)

/* Scope s's rows of span 86400 starting at day: (runs, markers). */
static void
day_rows(const char *s, int64_t day, int64_t *runs, int64_t *markers)
{
	char q[320];
	struct sqlres r;

	memset(&r, 0, sizeof r);
	snprintf(q, sizeof q, "SELECT count(*), ifnull(sum(r.entries >= 0), "
	    "0), ifnull(sum(r.entries < 0), 0) FROM rollup r JOIN scope s ON "
	    "s.id = r.scope_id WHERE s.name = '%s' AND r.span = 86400 AND "
	    "r.start = %lld", s, (long long)day);
	sql(q, &r);
	*runs = r.v[1];
	*markers = r.v[2];
}

/* Top, tree, timeline and export of scope s over [lo, hi] equal the
 * blocks'; and top reads no block when [lo, hi] is whole hours. */
static void
days_compare(const char *s, int64_t lo, int64_t hi)
{
	char scope[32], since[64], until[64];
	const char *kv[] = { scope, since, until, NULL };

	snprintf(scope, sizeof scope, "scope=%s", s);
	snprintf(since, sizeof since, "since@%lld", (long long)lo);
	snprintf(until, sizeof until, "until@%lld", (long long)hi);
	CHECK(compare(kv) > 0);
	top_no_block(kv, 0);
}

/* Hour i of day DAYS_D: f's trace repeats its stacks, g's drifts. */
static void
days_hour(int i)
{
	push_trace("f", 200, DAYS_D + i * HOUR, 600, 7, NULL, 0);
	push_trace("g", 200, DAYS_D + i * HOUR, 600, 20 + (uint64_t)i, NULL,
	    0);
}

static void
days_scenario(void)
{
	int64_t runs, markers, late, open;
	int i;

	open_store();
	for (i = 0; i < 3; i++)
		days_hour(i);
	/* Open: no row of its own, read from its hours. */
	day_rows("f", DAYS_D, &runs, &markers);
	CHECK(runs == 0 && markers == 0);
	days_compare("f", DAYS_D, DAYS_D + DAY - 1);
	referenced_check();
	/* Its fourth hour: f's hours repeat their keys, so the day gets its
	 * run before it closes, and each import after adds one; g's drift
	 * (more than half of its hours' keys are its own), it stays open. */
	for (i = 3; i < 6; i++) {
		days_hour(i);
		day_rows("f", DAYS_D, &runs, &markers);
		CHECK(runs == i - 2 && markers == 0);
		day_rows("g", DAYS_D, &runs, &markers);
		CHECK(runs == 0 && markers == 0);
	}
	days_compare("f", DAYS_D, DAYS_D + DAY - 1);
	days_compare("g", DAYS_D - DAY, DAYS_D + 2 * DAY - 1);
	referenced_check();

	/* An import into the next day closes it: f's runs merged whole
	 * into one, g's a marker (its keys more than half its hours').  A
	 * trace of one seed has the same samples. */
	push_trace("f", 200, DAYS_D + DAY + HOUR, 600, 7, NULL, 0);
	push_trace("g", 200, DAYS_D + DAY + HOUR, 600, 40, NULL, 0);
	day_rows("f", DAYS_D, &runs, &markers);
	CHECK(runs == 1 && markers == 0);
	day_rows("g", DAYS_D, &runs, &markers);
	CHECK(runs == 0 && markers == 1);
	day_rows("f", DAYS_D + DAY, &runs, &markers);
	CHECK(runs == 0 && markers == 0);
	days_compare("f", DAYS_D, DAYS_D + DAY - 1);
	days_compare("f", DAYS_D - DAY, DAYS_D + 2 * DAY - 1);
	days_compare("g", DAYS_D, DAYS_D + 2 * DAY - 1);
	referenced_check();

	/* A late import into the closed day adds a run to it; one into the
	 * open day none; deletes from both. */
	late = push_trace("f", 200, DAYS_D + 7 * HOUR, 600, 8, NULL, 0);
	day_rows("f", DAYS_D, &runs, &markers);
	CHECK(runs == 2 && markers == 0);
	days_compare("f", DAYS_D - DAY, DAYS_D + 2 * DAY - 1);
	/* The next import merges the day left behind into one run. */
	open = push_trace("f", 200, DAYS_D + DAY + 2 * HOUR, 600, 9, NULL, 0);
	day_rows("f", DAYS_D, &runs, &markers);
	CHECK(runs == 1 && markers == 0);
	day_rows("f", DAYS_D + DAY, &runs, &markers);
	CHECK(runs == 0 && markers == 0);
	days_compare("f", DAYS_D - DAY, DAYS_D + 2 * DAY - 1);
	referenced_check();
	delete_profile(late);
	delete_profile(open);
	days_compare("f", DAYS_D - DAY, DAYS_D + 2 * DAY - 1);
	days_compare("f", DAYS_D, DAYS_D + DAY - 1);

	/* Two days on: the latest day with hours before it closes, a run
	 * (three hours of one trace's keys); a day of one hour's keys is a
	 * marker (its run would be that hour's again). */
	push_trace("f", 200, DAYS_D + DAY + 3 * HOUR, 600, 7, NULL, 0);
	push_trace("f", 200, DAYS_D + DAY + 4 * HOUR, 600, 7, NULL, 0);
	push_trace("f", 200, DAYS_D + 3 * DAY, 600, 7, NULL, 0);
	day_rows("f", DAYS_D + DAY, &runs, &markers);
	CHECK(runs == 1 && markers == 0);
	push_trace("f", 200, DAYS_D + 5 * DAY, 600, 7, NULL, 0);
	day_rows("f", DAYS_D + 3 * DAY, &runs, &markers);
	CHECK(runs == 0 && markers == 1);
	days_compare("f", DAYS_D + 3 * DAY, DAYS_D + 4 * DAY - 1);
	days_compare("f", DAYS_D - DAY, DAYS_D + 6 * DAY - 1);
	referenced_check();
	testimport_close(&ti);
}
