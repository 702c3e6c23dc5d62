/* test_rate.c: the recent rate a backlog drains at (daemon/base/rate.c),
 * on a clock the test moves: no rate before two completions in the
 * window, the bytes after the first over the time since it, lower while
 * nothing completes, none once all are past the window; the newest
 * RATE_SLOTS when more came; the time left rounded up, never 0 while
 * something waits. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rate.h"
#include "testlib.h"

#define S	INT64_C(1000000000)

static int
near(double a, double b)
{
	return a > b - 1e-6 && a < b + 1e-6;
}

static void
test_window(void)
{
	struct rate r;
	int64_t t = 1000 * S;		/* the fake clock */

	memset(&r, 0, sizeof r);
	CHECK(rate_per_s(&r, t) == 0);
	rate_add(&r, t, 500);
	CHECK(rate_per_s(&r, t) == 0);		/* one: no span yet */
	CHECK(rate_per_s(&r, t + 5 * S) == 0);
	rate_add(&r, t + 2 * S, 1000);
	CHECK(near(rate_per_s(&r, t + 2 * S), 500));	/* 1000 B in 2 s */
	rate_add(&r, t + 4 * S, 3000);
	CHECK(near(rate_per_s(&r, t + 4 * S), 1000));	/* 4000 B in 4 s */
	/* Nothing done for a while: the rate falls. */
	CHECK(near(rate_per_s(&r, t + 8 * S), 500));
	/* The first leaves the window: the second starts the measure. */
	CHECK(near(rate_per_s(&r, t + 61 * S), 3000.0 / 59));
	/* The second too: one left, no rate. */
	CHECK(rate_per_s(&r, t + 63 * S) == 0);
	CHECK(rate_per_s(&r, t + 600 * S) == 0);
	/* Two at one instant: no span, no rate. */
	rate_add(&r, t + 700 * S, 10);
	rate_add(&r, t + 700 * S, 10);
	CHECK(rate_per_s(&r, t + 700 * S) == 0);
	CHECK(near(rate_per_s(&r, t + 701 * S), 10));
}

static void
test_ring(void)
{
	struct rate r;
	int64_t t = 0;
	size_t i;

	memset(&r, 0, sizeof r);
	/* A slow start, then many fast ones: the newest RATE_SLOTS are
	 * the measure, so the slow start is forgotten. */
	rate_add(&r, t, 1);
	rate_add(&r, t + 30 * S, 1);
	for (i = 1; i <= 3 * RATE_SLOTS; i++)
		rate_add(&r, t + 30 * S + (int64_t)i * (S / 100), 100);
	/* 100 B every 10 ms: 10 kB/s. */
	CHECK(near(rate_per_s(&r, t + 30 * S + 3 * RATE_SLOTS * (S / 100)),
	    10000));
}

static void
test_eta(void)
{
	CHECK(rate_eta_s(0, 100) == -1);	/* no rate */
	CHECK(rate_eta_s(100, 0) == -1);	/* nothing waits */
	CHECK(rate_eta_s(100, -1) == -1);	/* not counted */
	CHECK(rate_eta_s(100, 1000) == 10);
	CHECK(rate_eta_s(100, 1001) == 11);	/* rounded up */
	CHECK(rate_eta_s(1e9, 1) == 1);		/* never 0 */
	CHECK(rate_eta_s(1e-9, INT64_MAX) > 0);
}

int
main(void)
{
	test_window();
	test_ring();
	test_eta();
	printf("test_rate: %u checks\n", checks);
	return 0;
}
