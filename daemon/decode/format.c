/* format.c: the table of input formats and auto-detection. */
#include <stdio.h>
#include <string.h>

#include "folded.h"
#include "format.h"
#include "inflate.h"
#include "otlp.h"
#include "perf-script.h"
#include "perfetto.h"
#include "pprof.h"

/* Detection tries these in order on the first (inflated) bytes: the binary
 * formats by the shape of their first protobuf fields, then folded text,
 * which only plain text lines ending in a count can match, then perf
 * script text, whose sample lines end in an event name and a colon.  The
 * rules are in each sniffer and in docs/FORMATS.md. */
static const struct format formats[] = {
	{ "pprof", pprof_sniff, pprof_decode_stream, 1 },
	{ "perfetto", perfetto_sniff, perfetto_decode, 0 },
	/* OTLP's JSON by its first key; its protobuf opens as pprof's
	 * does, so that form is named (format=otlp). */
	{ "otlp", otlp_sniff, otlp_decode_stream, 0 },
	{ "folded", folded_sniff, folded_decode, 1 },
	{ "perf-script", perf_script_sniff, perf_script_decode, 0 },
};

const struct format *
format_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

const struct format *
format_detect(const uint8_t *p, size_t n, struct error *err)
{
	size_t i;

	for (i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (formats[i].sniff(p, n))
			return &formats[i];
	error_set(err, ERR_INPUT, "unknown format: the data is none of %s "
	    "(gzipped or not)", format_names());
	return NULL;
}

int
format_open(struct stream **in, const char *name, const struct limits *lim,
    const struct format **fmt, struct error *err)
{
	const uint8_t *head;
	size_t n;

	if (strcmp(name, "auto") != 0 && (*fmt = format_find(name)) == NULL)
		return error_set(err, ERR_INPUT, "format: unknown format "
		    "\"%s\" (known: auto, %s)", name, format_names());
	if (stream_peek(*in, 2, &head, &n, err) == -1)
		return -1;
	if (inflate_is_gzip(head, n))
		*in = inflate_stream(*in, lim);
	if (strcmp(name, "auto") != 0)
		return 0;
	if (stream_peek(*in, FORMAT_SNIFF_BYTES, &head, &n, err) == -1)
		return -1;
	return (*fmt = format_detect(head, n, err)) == NULL ? -1 : 0;
}

const char *
format_names(void)
{
	static char names[128];
	size_t i;

	if (names[0] == '\0')
		for (i = 0; i < sizeof formats / sizeof formats[0]; i++)
			snprintf(names + strlen(names), sizeof names -
			    strlen(names), "%s%s", i ? ", " : "",
			    formats[i].name);
	return names;
}
