/* pprof.c: decoder for perftools.profiles.Profile (already inflated).
 *
 * Go writes the string table last, so nothing can be resolved while
 * reading.  Three steps:
 *
 *  1. parse: one pass over the message; sample types, mappings, locations
 *     (their lines in one flat array), functions and strings go into
 *     arrays; samples are only counted.
 *  2. resolve: every string index, id and reference is checked, ids are
 *     turned into array indices, drop_frames/keep_frames are applied to
 *     the locations.
 *  3. emit: metrics, then one walk over the samples, each read from the
 *     input, checked and handed to the sink (with the mappings,
 *     functions and frames it is the first to use).  Samples are never
 *     held in memory all at once, and read once: an error in a sample
 *     comes after the sink was given the ones before it, and the sink
 *     never sees meta, which ends a profile.  The importer rolls its
 *     transaction back, so nothing of a bad blob is stored.  (Until issue
 *     13 step 2 read every sample once more first, to check them before
 *     anything reached the sink: a tenth of the decoder's time.)
 *
 * Errors name the message and field and the byte offset of the offending
 * field.  Offsets of nested fields are not kept: on an error the enclosing
 * message is read again to find the field (errors are rare, offsets would
 * cost memory on every location and line). */
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "error.h"
#include "model.h"
#include "pb.h"
#include "pprof-int.h"
#include "pprof.h"
#include "stream.h"
#include "rx.h"


static void
pprof_free(struct pprof *p)
{
	free(p->strs);
	free(p->types);
	free(p->maps);
	free(p->locs);
	free(p->hot);
	free(p->lines);
	free(p->funcs);
	free(p->comments.v);
	pprof_idmap_free(&p->map_ids);
	pprof_idmap_free(&p->loc_ids);
	pprof_idmap_free(&p->func_ids);
	rx_free(p->drop_rx);
	rx_free(p->keep_rx);
	free(p->name);
	free(p->frame_ids);
	free(p->sloc.v);
	free(p->sval.v);
	free(p->slab);
	free(p->frames);
	free(p->mlabels);
	free(p->lsets);
}

/* own: data is the decoder's to give back as it reads it. */
static int
pprof_run(const uint8_t *data, size_t len, int own, const struct limits *lim,
    const struct sink *sink, struct error *err)
{
	struct pprof p;
	int r = -1;

	memset(&p, 0, sizeof p);
	p.data = data;
	p.len = len;
	p.own = own;
	p.str_lo = SIZE_MAX;
	p.sink = sink;
	p.err = err;
	p.pd.name = "pprof";
	p.pd.err = err;
	if (lim != NULL)
		p.lim = *lim;
	else
		bounds_default(&p.lim);

	if (len == 0)
		error_set(err, ERR_INPUT, "pprof: empty profile");
	else if (pprof_parse(&p) == 0 && pprof_resolve(&p) == 0 &&
	    pprof_emit(&p) == 0)
		r = 0;
	pprof_free(&p);
	return r;
}

int
pprof_decode(const uint8_t *data, size_t len, const struct limits *lim,
    const struct sink *sink, struct error *err)
{
	return pprof_run(data, len, 0, lim, sink, err);
}

/* pprof is one message whose string table comes last: read it whole,
 * bounded by the inflated-size limit. */
int
pprof_decode_stream(struct stream *in, const struct decode_opts *opts,
    const struct limits *limits, const struct sink *sink, struct error *err)
{
	uint8_t *data;
	size_t len;
	int rc;

	if (stream_slurp(in, limits->max_inflated, &data, &len, err) == -1)
		return -1;
	rc = pprof_run(data, len, 1, limits, sink, err);
	free(data);
	return rc;
}

/* Is the first tag a Profile field with its wire type? */
static int
pprof_sniff_tag(uint64_t num, unsigned wt)
{
	switch (num) {
	case PROFILE_SAMPLE_TYPE:
	case PROFILE_SAMPLE:
	case PROFILE_MAPPING:
	case PROFILE_LOCATION:
	case PROFILE_FUNCTION:
	case PROFILE_STRING_TABLE:
	case PROFILE_PERIOD_TYPE:
		return wt == PB_LEN;
	case PROFILE_COMMENT:
		return wt == PB_LEN || wt == PB_VARINT;
	case PROFILE_DROP_FRAMES:
	case PROFILE_KEEP_FRAMES:
	case PROFILE_TIME_NANOS:
	case PROFILE_DURATION_NANOS:
	case PROFILE_PERIOD:
	case PROFILE_DEFAULT_SAMPLE_TYPE:
	case PROFILE_DOC_URL:
		return wt == PB_VARINT;
	}
	return 0;
}

/* A ValueType holds varints 1 and 2 only: this is what tells a pprof
 * sample_type from a Perfetto Trace.packet, both field 1. */
static int
pprof_sniff_vt(const uint8_t *p, const uint8_t *end)
{
	uint64_t v;

	while (p < end) {
		if (*p != 0x08 && *p != 0x10)
			return 0;
		p++;
		if (pb_varint(&p, end, &v) == -1)
			return p >= end || end - p < 10 ? 1 : 0;
	}
	return 1;
}

int
pprof_sniff(const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end;
	uint64_t tag, v;
	unsigned wt, nfields;

	if (data == NULL || len == 0)
		return 0;
	end = data + len;
	/* A few fields, all Profile fields: data may be only a prefix, so
	 * running out of bytes after the first field is not a no. */
	for (nfields = 0; nfields < 8 && p < end; nfields++) {
		if (pb_varint(&p, end, &tag) == -1)
			return nfields > 0;
		wt = (unsigned)(tag & 7);
		if (!pprof_sniff_tag(tag >> 3, wt))
			return 0;
		if (pb_varint(&p, end, &v) == -1)
			return nfields > 0;
		if (wt != PB_LEN)
			continue;
		if ((tag >> 3 == PROFILE_SAMPLE_TYPE ||
		    tag >> 3 == PROFILE_PERIOD_TYPE) &&
		    !pprof_sniff_vt(p, v < (uint64_t)(end - p) ? p + v : end))
			return 0;
		if (v > (uint64_t)(end - p))
			return 1;
		p += v;
	}
	return 1;
}
