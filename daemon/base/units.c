/* units.c: pprof's measurement rules, so that numbers print as
 * `go tool pprof` prints them: the same unit tables, the same auto-scaling,
 * the same rounding and the same percentages.  profctl compiles it too
 * (CMakeLists.txt). */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

struct units_unit {
	const char	*name;		/* canonical, as printed */
	const char	*aliases[4];	/* lower case */
	double		 factor;	/* to the base unit */
};

struct units_type {
	const struct units_unit	*units;
	size_t			 nunits;
	const char		*default_name;
	double			 default_factor;
};

static const struct units_unit units_memory[] = {
	{ "B",  { "b", "byte" }, 1 },
	{ "kB", { "kb", "kbyte", "kilobyte" }, 1024.0 },
	{ "MB", { "mb", "mbyte", "megabyte" }, 1048576.0 },
	{ "GB", { "gb", "gbyte", "gigabyte" }, 1073741824.0 },
	{ "TB", { "tb", "tbyte", "terabyte" }, 1099511627776.0 },
	{ "PB", { "pb", "pbyte", "petabyte" }, 1125899906842624.0 },
};

static const struct units_unit units_time[] = {
	{ "ns",  { "ns", "nanosecond" }, 1 },
	{ "us",  { "\xce\xbcs", "us", "microsecond" }, 1e3 },
	{ "ms",  { "ms", "millisecond" }, 1e6 },
	{ "s",   { "s", "sec", "second" }, 1e9 },
	{ "hrs", { "hour", "hr" }, 3600e9 },
};

static const struct units_unit units_gcu[] = {
	{ "n*GCU", { "nanogcu" }, 1e-9 },
	{ "u*GCU", { "microgcu" }, 1e-6 },
	{ "m*GCU", { "milligcu" }, 1e-3 },
	{ "GCU",   { "gcu" }, 1 },
	{ "k*GCU", { "kilogcu" }, 1e3 },
	{ "M*GCU", { "megagcu" }, 1e6 },
	{ "G*GCU", { "gigagcu" }, 1e9 },
	{ "T*GCU", { "teragcu" }, 1e12 },
	{ "P*GCU", { "petagcu" }, 1e15 },
};

static const struct units_type units_types[] = {
	{ units_memory, sizeof units_memory / sizeof units_memory[0],
	  "B", 1 },
	{ units_time, sizeof units_time / sizeof units_time[0],
	  "s", 1e9 },
	{ units_gcu, sizeof units_gcu / sizeof units_gcu[0],
	  "GCU", 1 },
};

/*
 * The unit a name stands for within one type: lower-cased and, when longer
 * than two bytes, without one trailing "s" ("nanoseconds", "bytes"). Like
 * pprof this counts bytes, so "μs" (three bytes) does not match.
 */
static const struct units_unit *
units_sniff(const struct units_type *ut, const char *name)
{
	char	 lower[64];
	size_t	 len, i, j;

	len = strlen(name);
	if (len >= sizeof lower)
		return NULL;
	for (i = 0; i < len; i++)
		lower[i] = (char)tolower((unsigned char)name[i]);
	lower[len] = '\0';
	if (len > 2 && lower[len - 1] == 's')
		lower[len - 1] = '\0';

	for (i = 0; i < ut->nunits; i++) {
		for (j = 0; j < 4 && ut->units[i].aliases[j] != NULL; j++) {
			if (strcmp(lower, ut->units[i].aliases[j]) == 0)
				return &ut->units[i];
		}
	}
	return NULL;
}

/* The largest unit the value (in base units) is at least one of. */
static int
units_auto(const struct units_type *ut, double v, double *out,
    const char **unit)
{
	double	 f = 0;
	size_t	 i;

	for (i = 0; i < ut->nunits; i++) {
		if (ut->units[i].factor >= f && v / ut->units[i].factor >= 1.0) {
			f = ut->units[i].factor;
			*unit = ut->units[i].name;
		}
	}
	if (f == 0)
		return 0;
	*out = v / f;
	return 1;
}

static int
units_convert(const struct units_type *ut, int64_t value, const char *from,
    const char *to, double *out, const char **unit)
{
	const struct units_unit	*fu, *tu;
	double			 v;

	if ((fu = units_sniff(ut, from)) == NULL)
		return 0;
	v = (double)value * fu->factor;
	if (strcmp(to, "minimum") == 0 || strcmp(to, "auto") == 0) {
		if (units_auto(ut, v, out, unit))
			return 1;
		*out = v / ut->default_factor;
		*unit = ut->default_name;
		return 1;
	}
	if ((tu = units_sniff(ut, to)) == NULL) {
		*out = v / ut->default_factor;
		*unit = ut->default_name;
		return 1;
	}
	*out = v / tu->factor;
	*unit = tu->name;
	return 1;
}

/*
 * Scale value from one unit to another ("minimum" or "auto" pick the best
 * one). Returns the scaled value; *unit is set to the unit it is in, "" if
 * not worth printing (counts). *unit may point into to.
 */
double
units_scale(int64_t value, const char *from, const char *to,
    const char **unit)
{
	const char	*dummy;
	double		 v;
	size_t		 i;

	if (unit == NULL)
		unit = &dummy;
	/* INT64_MIN has no positive twin: scaled as is, like pprof does. */
	if (value < 0 && value != INT64_MIN)
		return -units_scale(-value, from, to, unit);
	for (i = 0; i < sizeof units_types / sizeof units_types[0]; i++) {
		if (units_convert(&units_types[i], value, from, to, &v, unit))
			return v;
	}
	if (strcmp(to, "count") == 0 || strcmp(to, "sample") == 0 ||
	    strcmp(to, "unit") == 0 || strcmp(to, "minimum") == 0 ||
	    strcmp(to, "auto") == 0)
		*unit = "";
	else
		*unit = to;
	return (double)value;
}

/* The value scaled and printed with two decimals, ".00" dropped, and the
 * unit appended: "1.50s", "12MB", "0". */
const char *
units_scaled_label(int64_t value, const char *from, const char *to,
    char *buf, size_t len)
{
	const char	*unit;
	char		 num[UNITS_LABEL_MAX];
	double		 v;
	size_t		 n;

	v = units_scale(value, from, to, &unit);
	snprintf(num, sizeof num, "%.2f", v);
	n = strlen(num);
	if (n >= 3 && strcmp(num + n - 3, ".00") == 0)
		num[n - 3] = '\0';
	if (strcmp(num, "0") == 0 || strcmp(num, "-0") == 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%s%s", num, unit);
	return buf;
}

/* value as a percentage of total, at least two significant digits, six
 * columns wide: "  100%", "12.50%", " 0.25%", "0.0012%". */
const char *
units_percentage(int64_t value, int64_t total, char *buf, size_t len)
{
	double	 ratio = 0;

	if (total != 0)
		ratio = fabs((double)value / (double)total) * 100;
	if (ratio >= 99.95 && ratio <= 100.05)
		snprintf(buf, len, "  100%%");
	else if (ratio >= 1.0)
		snprintf(buf, len, "%5.2f%%", ratio);
	else
		snprintf(buf, len, "%5.2g%%", ratio);
	return buf;
}

/*
 * The unit every value of a report is printed in, as pprof's
 * selectOutputUnit picks it with -unit=minimum: from the smallest non-zero
 * value (0: none, then the total) and the total; when they differ by more
 * than 100x the smallest value is allowed to print as low as 0.01 of a
 * larger unit.  Go's int64 arithmetic wraps; so does this.
 */
const char *
units_output_unit(const char *unit, int64_t min, int64_t total)
{
	const char	*min_unit, *max_unit, *out;

	if (min == 0)
		min = total;
	units_scale(min, unit, "minimum", &min_unit);
	units_scale(total, unit, "minimum", &max_unit);
	out = min_unit;
	if (strcmp(min_unit, max_unit) != 0 &&
	    (int64_t)((uint64_t)min * 100) < total)
		units_scale((int64_t)((uint64_t)min * 100), unit, "minimum",
		    &out);
	return *out != '\0' ? out : unit;
}
