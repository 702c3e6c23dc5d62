/* fleet-tsv.h: ClickHouse's TabSeparated replies, read as they arrive:
 * bytes are fed in whatever pieces the HTTP client has, each whole line
 * goes to a callback as its fields, and only the line being read is held
 * (up to a limit), so a reply of any size costs bounded memory.  Fields
 * keep ClickHouse's escapes until asked for as a string, an integer or
 * an array.  Knows no HTTP and no SQL. */
#ifndef PROFD_FLEET_TSV_H
#define PROFD_FLEET_TSV_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "error.h"

#define FLEET_TSV_MAX_FIELDS	16

struct fleet_tsv_field {
	char *p;			/* escaped, in the line */
	size_t n;
};

struct fleet_tsv {
	struct buf line;		/* a line not yet ended */
	size_t max_line;		/* bytes; longer is an error */
	size_t lines;
	/* One line's fields: -1 with err stops the reading. */
	int (*row)(void *arg, struct fleet_tsv_field *, size_t n,
	    struct error *);
	void *arg;
};

void fleet_tsv_init(struct fleet_tsv *, size_t max_line,
    int (*row)(void *, struct fleet_tsv_field *, size_t, struct error *),
    void *arg);
/* n more bytes of the reply. */
int fleet_tsv_feed(struct fleet_tsv *, const void *, size_t n,
    struct error *);
/* The reply ended: a last line without its newline is an error. */
int fleet_tsv_end(struct fleet_tsv *, struct error *);
void fleet_tsv_clear(struct fleet_tsv *);

/* The n bytes of s as a TabSeparated field (escaped as ClickHouse reads
 * it; fleet_quote puts it between quotes for SQL). */
void fleet_tsv_put(struct buf *, const char *s, size_t n);
/* The string s so. */
void fleet_tsv_puts(struct buf *, const char *s);
/* A field as a string: unescaped in place, NUL-terminated (the field's
 * bytes are overwritten); its length in *len. */
char *fleet_tsv_str(struct fleet_tsv_field *, size_t *len);
/* A field of decimal digits (as ClickHouse writes UInt64: no sign, no
 * escape) as a 64-bit number; -1 if it is not one (with err, unless
 * NULL). */
int fleet_tsv_u64(const struct fleet_tsv_field *, uint64_t *,
    struct error *);
/* A field as a decimal int64. */
int fleet_tsv_int(const struct fleet_tsv_field *, int64_t *, struct error *);

/* An array field: ['a','b'] (strings) or [1,0] (numbers), its elements
 * unescaped, each NUL-terminated, into v (held until cleared). */
struct fleet_tsv_array {
	char **v;
	size_t n, cap;
	struct buf text;
};
int fleet_tsv_array(const struct fleet_tsv_field *, struct fleet_tsv_array *,
    struct error *);
void fleet_tsv_array_clear(struct fleet_tsv_array *);

#endif
