/* format.h: the table of input formats: name, sniffer and decoder.  Adding
 * a format means adding a decoder and a row here. */
#ifndef PROFD_FORMAT_H
#define PROFD_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "limits.h"
#include "model.h"

struct format {
	const char *name;
	/* 1 if the (inflated) bytes look like this format. */
	int (*sniff)(const uint8_t *, size_t);
	int (*decode)(const uint8_t *, size_t, const struct limits *,
	    const struct sink *, struct error *);
};

/* NULL if the name is not a known format ("auto" is not a format). */
const struct format *format_find(const char *name);
/* Detection for format=auto; ERR_INPUT naming the formats tried. */
const struct format *format_detect(const uint8_t *, size_t, struct error *);
/* "pprof" etc., comma separated, for messages and --help. */
const char *format_names(void);

#endif
