/* test_client_units.c: pprof's measurement rules in C. Every expected
 * string in the label and percentage tables was printed by pprof's own
 * measurement.ScaledLabel and measurement.Percentage (the copy vendored in
 * Go 1.19) for the same input. */

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "profctl.h"

static const struct {
	int64_t		 value;
	const char	*from, *to, *want;
} labels[] = {
	{ 0LL, "nanoseconds", "minimum", "0" },
	{ 0LL, "bytes", "minimum", "0" },
	{ 0LL, "count", "minimum", "0" },
	{ 1LL, "nanoseconds", "minimum", "1ns" },
	{ 999LL, "nanoseconds", "minimum", "999ns" },
	{ 1000LL, "nanoseconds", "minimum", "1us" },
	{ 999000000LL, "nanoseconds", "minimum", "999ms" },
	{ 999999999LL, "nanoseconds", "minimum", "1000ms" },
	{ 999994999LL, "nanoseconds", "minimum", "999.99ms" },
	{ 1000000000LL, "nanoseconds", "minimum", "1s" },
	{ 1500000000LL, "nanoseconds", "minimum", "1.50s" },
	{ -1500000LL, "nanoseconds", "minimum", "-1.50ms" },
	{ -1LL, "nanoseconds", "minimum", "-1ns" },
	{ -4LL, "nanoseconds", "ms", "0" },
	{ 3600000000000LL, "nanoseconds", "minimum", "1hrs" },
	{ 7200000000000LL, "nanoseconds", "s", "7200s" },
	{ 999000000LL, "nanoseconds", "s", "1s" },
	{ 999000000LL, "nanoseconds", "ms", "999ms" },
	{ 1LL, "nanoseconds", "s", "0" },
	{ 4999999LL, "nanoseconds", "s", "0" },
	{ 5000000LL, "nanoseconds", "s", "0.01s" },
	{ 1234LL, "microseconds", "minimum", "1.23ms" },
	{ 1234LL, "milliseconds", "ms", "1234ms" },
	{ 1234LL, "seconds", "minimum", "1234s" },
	{ 1023LL, "bytes", "minimum", "1023B" },
	{ 1024LL, "bytes", "minimum", "1kB" },
	{ 1536LL, "bytes", "minimum", "1.50kB" },
	{ 1048575LL, "bytes", "minimum", "1024kB" },
	{ 1048576LL, "bytes", "minimum", "1MB" },
	{ 1073741824LL, "bytes", "minimum", "1GB" },
	{ 1099511627776LL, "bytes", "minimum", "1TB" },
	{ 1125899906842624LL, "bytes", "minimum", "1PB" },
	{ 1152921504606846976LL, "bytes", "minimum", "1024PB" },
	{ -2048LL, "bytes", "minimum", "-2kB" },
	{ 5000LL, "bytes", "MB", "0" },
	{ 5000LL, "bytes", "kB", "4.88kB" },
	{ 512LL, "kilobytes", "minimum", "512kB" },
	{ 12345LL, "count", "minimum", "12345" },
	{ 12345LL, "count", "count", "12345" },
	{ 12345LL, "objects", "minimum", "12345" },
	{ 12345LL, "objects", "objects", "12345objects" },
	{ -7LL, "count", "count", "-7" },
	{ 0LL, "objects", "objects", "0" },
	{ 1500LL, "nanogcu", "minimum", "1.50u*GCU" },
	{ 2LL, "gcu", "n*GCU", "2GCU" },
	{ 5LL, "Nanoseconds", "minimum", "5ns" },
	{ 5LL, "ns", "minimum", "5ns" },
	{ 5LL, "\xce\xbcs", "minimum", "5" },
	{ 5LL, "us", "minimum", "5us" },
	{ 2LL, "hours", "minimum", "2hrs" },
	{ 5LL, "weird", "minimum", "5" },
	{ INT64_MAX, "nanoseconds", "minimum", "2562047.79hrs" },
	{ INT64_MIN, "nanoseconds", "minimum", "-9223372036.85s" },
	{ INT64_MIN, "count", "count", "-9223372036854775808" },
};

static const struct {
	int64_t		 value, total;
	const char	*want;
} percentages[] = {
	{ 0LL, 0LL, "    0%" },
	{ 5LL, 0LL, "    0%" },
	{ 0LL, 10LL, "    0%" },
	{ 1LL, 3LL, "33.33%" },
	{ 2LL, 3LL, "66.67%" },
	{ 1LL, 1000LL, "  0.1%" },
	{ 1LL, 100000LL, "0.001%" },
	{ 1LL, 10000000LL, "1e-05%" },
	{ 9995LL, 10000LL, "  100%" },
	{ 10005LL, 10000LL, "  100%" },
	{ 10006LL, 10000LL, "100.06%" },
	{ 9994LL, 10000LL, "99.94%" },
	{ -5LL, 10LL, "50.00%" },
	{ 1LL, -2LL, "50.00%" },
	{ 999LL, 100000LL, "    1%" },
	{ 9999LL, 1000000LL, "    1%" },
	{ 1LL, 7LL, "14.29%" },
	{ 123456LL, 1000LL, "12345.60%" },
	{ 1LL, 1000000000000LL, "1e-10%" },
};

static int failures;

static void
test_labels(void)
{
	char	buf[UNITS_LABEL_MAX];
	size_t	i;

	for (i = 0; i < sizeof labels / sizeof labels[0]; i++) {
		units_scaled_label(labels[i].value, labels[i].from,
		    labels[i].to, buf, sizeof buf);
		if (strcmp(buf, labels[i].want) != 0) {
			fprintf(stderr, "FAIL label(%lld, %s, %s): want %s, "
			    "got %s\n", (long long)labels[i].value,
			    labels[i].from, labels[i].to, labels[i].want, buf);
			failures++;
		}
	}
}

static void
test_percentages(void)
{
	char	buf[UNITS_PERCENT_MAX];
	size_t	i;

	for (i = 0; i < sizeof percentages / sizeof percentages[0]; i++) {
		units_percentage(percentages[i].value, percentages[i].total,
		    buf, sizeof buf);
		if (strcmp(buf, percentages[i].want) != 0) {
			fprintf(stderr, "FAIL percentage(%lld, %lld): want "
			    "\"%s\", got \"%s\"\n",
			    (long long)percentages[i].value,
			    (long long)percentages[i].total,
			    percentages[i].want, buf);
			failures++;
		}
	}
}

static const struct {
	int64_t		 value;
	const char	*from, *to;
	double		 want;
	const char	*unit;
} scales[] = {
	{ 1500000000LL, "nanoseconds", "minimum", 1.5, "s" },
	{ 0LL, "nanoseconds", "minimum", 0, "s" },	/* the default unit */
	{ 0LL, "bytes", "auto", 0, "B" },
	{ -3072LL, "bytes", "minimum", -3, "kB" },
	{ 42LL, "count", "minimum", 42, "" },
	{ 42LL, "objects", "objects", 42, "objects" },
	{ 2048LL, "bytes", "MB", 2048.0 / 1048576, "MB" },
	{ 7LL, "hours", "s", 25200, "s" },
	{ 5LL, "nanoseconds", "fortnights", 5e-9, "s" },
};

static void
test_scale(void)
{
	const char	*unit;
	double		 v;
	size_t		 i;

	for (i = 0; i < sizeof scales / sizeof scales[0]; i++) {
		v = units_scale(scales[i].value, scales[i].from, scales[i].to,
		    &unit);
		assert(v == scales[i].want &&
		    strcmp(unit, scales[i].unit) == 0);
	}
	assert(units_scale(1, "bytes", "minimum", NULL) == 1);
}

int
main(void)
{
	test_scale();
	test_labels();
	test_percentages();
	if (failures != 0) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok: %zu labels, %zu percentages\n",
	    sizeof labels / sizeof labels[0],
	    sizeof percentages / sizeof percentages[0]);
	return 0;
}
