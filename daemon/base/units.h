/* units.h: pprof's measurement rules (scaling, labels, percentages), so
 * that numbers print as go tool pprof prints them.  Shared by profd (the
 * text it writes itself, as /v1/traces?format=text) and profctl (every
 * other text view): the one piece of code the two programs have in
 * common beside the API's JSON. */
#ifndef PROFD_UNITS_H
#define PROFD_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define UNITS_LABEL_MAX		256
#define UNITS_PERCENT_MAX	32

/* Scale a value from one unit to another ("minimum" or "auto" pick the
 * best one); *unit (if not NULL) is the unit it is in, "" for counts. */
double units_scale(int64_t, const char *from, const char *to,
    const char **unit);
/* The value scaled, "%.2f" without ".00", with its unit: "1.50s". */
const char *units_scaled_label(int64_t, const char *from, const char *to,
    char *buf, size_t len);
/* value as a percentage of total, six columns wide: "12.50%". */
const char *units_percentage(int64_t value, int64_t total, char *buf,
    size_t len);

/* pprof's selectOutputUnit: the unit of a report whose smallest non-zero
 * |value| is min (0: none) and whose total is total; may be unit itself. */
const char *units_output_unit(const char *unit, int64_t min, int64_t total);

#endif
