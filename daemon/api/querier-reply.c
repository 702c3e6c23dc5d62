/* querier-reply.c: querier.v1's replies (querier-reply.h).  Field
 * numbers are those of Grafana Pyroscope's public API:
 * types.v1.ProfileType {ID 1, name 2, sample_type 4, sample_unit 5,
 * period_type 6, period_unit 7}, LabelPair {name 1, value 2}, Labels
 * {labels 1}, Series {labels 1, points 2}, Point {value 1 (double),
 * timestamp 2}, GetProfileStatsResponse {data_ingested 1,
 * oldest_profile_time 2, newest_profile_time 3}; querier.v1.FlameGraph {names 1, levels 2, total 3,
 * max_self 4}, Level {values 1}. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "flame.h"
#include "jsonw.h"
#include "pbw.h"
#include "pyrotype.h"
#include "querier-reply.h"
#include "series.h"

void
querier_reply_init(struct querier_reply *r, int json)
{
	memset(r, 0, sizeof *r);
	r->json = json;
}

void
querier_reply_clear(struct querier_reply *r)
{
	buf_free(&r->pb);
	json_decref(r->js);
	memset(r, 0, sizeof *r);
}

/* proto3 JSON writes int64 as a decimal string. */
static json_t *
json_i64(int64_t v)
{
	char s[32];

	snprintf(s, sizeof s, "%" PRId64, v);
	return json_string(s);
}

/* Strings that may not be UTF-8 (names read from profiles) are
 * replaced, not left out: the message's shape stays. */
static json_t *
json_text(const char *s)
{
	json_t *j = json_string(s);

	return j != NULL ? j : json_string("\xef\xbf\xbd");
}

void
querier_reply_types(struct querier_reply *r, const struct pyrotype *v,
    size_t n)
{
	char id[5 * PYROTYPE_PART];
	json_t *a = NULL;
	size_t i, mark;

	if (r->json)
		a = json_array();
	for (i = 0; i < n; i++) {
		pyrotype_id(&v[i], id, sizeof id);
		if (r->json) {
			json_array_append_new(a, json_pack("{s:o, s:o, s:o, "
			    "s:o, s:o, s:o}", "ID", json_text(id),
			    "name", json_text(v[i].name),
			    "sampleType", json_text(v[i].type),
			    "sampleUnit", json_text(v[i].unit),
			    "periodType", json_text(v[i].ptype),
			    "periodUnit", json_text(v[i].punit)));
			continue;
		}
		mark = pbw_begin(&r->pb, 1);
		pbw_str(&r->pb, 1, id);
		pbw_str(&r->pb, 2, v[i].name);
		pbw_str(&r->pb, 4, v[i].type);
		pbw_str(&r->pb, 5, v[i].unit);
		pbw_str(&r->pb, 6, v[i].ptype);
		pbw_str(&r->pb, 7, v[i].punit);
		pbw_end(&r->pb, mark);
	}
	if (r->json)
		r->js = json_pack("{s:o}", "profileTypes", a);
}

void
querier_reply_names(struct querier_reply *r, char *const *v, size_t n)
{
	json_t *a = NULL;
	size_t i;

	if (r->json)
		a = json_array();
	for (i = 0; i < n; i++)
		if (r->json)
			json_array_append_new(a, json_text(v[i]));
		else
			pbw_str(&r->pb, 1, v[i]);
	if (r->json)
		r->js = json_pack("{s:o}", "names", a);
}

/* The LabelPairs of s as field num of the message being written. */
static void
labels_pb(struct buf *b, uint32_t num, const struct querier_series *s)
{
	size_t i, mark;

	for (i = 0; i < s->nlabels; i++) {
		mark = pbw_begin(b, num);
		pbw_str(b, 1, s->labels[i].name);
		pbw_str(b, 2, s->labels[i].value);
		pbw_end(b, mark);
	}
}

static json_t *
labels_json(const struct querier_series *s)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < s->nlabels; i++)
		json_array_append_new(a, json_pack("{s:o, s:o}",
		    "name", json_text(s->labels[i].name),
		    "value", json_text(s->labels[i].value)));
	return a;
}

void
querier_reply_label_sets(struct querier_reply *r,
    const struct querier_series *v, size_t n)
{
	json_t *a = NULL;
	size_t i, mark;

	if (r->json)
		a = json_array();
	for (i = 0; i < n; i++) {
		if (r->json) {
			json_array_append_new(a, json_pack("{s:o}", "labels",
			    labels_json(&v[i])));
			continue;
		}
		mark = pbw_begin(&r->pb, 2);
		labels_pb(&r->pb, 1, &v[i]);
		pbw_end(&r->pb, mark);
	}
	if (r->json)
		r->js = json_pack("{s:o}", "labelsSet", a);
}

/* SelectSeriesResponse in proto3 JSON, written as text: labels_json's
 * labels (bytes that are not UTF-8 each made U+FFFD, where json_text
 * makes the whole string one), a point's value a number and its
 * timestamp a string. */
static void
series_text(struct buf *b, const struct querier_series *v, size_t n)
{
	char ms[32];
	size_t i, j;

	jsonw_raw(b, "{\"series\":[");
	for (i = 0; i < n; i++) {
		jsonw_raw(b, i > 0 ? ",{\"labels\":[" : "{\"labels\":[");
		for (j = 0; j < v[i].nlabels; j++) {
			jsonw_raw(b, j > 0 ? ",{" : "{");
			jsonw_key(b, "name");
			jsonw_str(b, v[i].labels[j].name);
			jsonw_mstr(b, "value", v[i].labels[j].value);
			jsonw_raw(b, "}");
		}
		jsonw_raw(b, "],\"points\":[");
		for (j = 0; j < v[i].npoints; j++) {
			jsonw_raw(b, j > 0 ? ",{\"value\":" : "{\"value\":");
			jsonw_real(b, v[i].points[j].value);
			snprintf(ms, sizeof ms, "%" PRId64, v[i].points[j].ms);
			jsonw_mstr(b, "timestamp", ms);
			jsonw_raw(b, "}");
		}
		jsonw_raw(b, "]}");
	}
	jsonw_raw(b, "]}");
}

void
querier_reply_series(struct querier_reply *r,
    const struct querier_series *v, size_t n)
{
	size_t i, j, mark, pmark;
	uint64_t bits;

	if (r->json) {
		series_text(&r->pb, v, n);
		r->text = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		mark = pbw_begin(&r->pb, 1);
		labels_pb(&r->pb, 1, &v[i]);
		for (j = 0; j < v[i].npoints; j++) {
			pmark = pbw_begin(&r->pb, 2);
			memcpy(&bits, &v[i].points[j].value, sizeof bits);
			if (bits != 0)
				pbw_fixed64(&r->pb, 1, bits);
			pbw_opt_int(&r->pb, 2, v[i].points[j].ms);
			pbw_end(&r->pb, pmark);
		}
		pbw_end(&r->pb, mark);
	}
}

void
querier_reply_stats(struct querier_reply *r, int ingested, int64_t oldest_ms,
    int64_t newest_ms)
{
	if (r->json) {
		r->js = json_pack("{s:b, s:o, s:o}", "dataIngested", ingested,
		    "oldestProfileTime", json_i64(oldest_ms),
		    "newestProfileTime", json_i64(newest_ms));
		return;
	}
	pbw_opt_uint(&r->pb, 1, ingested != 0);
	pbw_opt_int(&r->pb, 2, oldest_ms);
	pbw_opt_int(&r->pb, 3, newest_ms);
}

void
querier_reply_flame(struct querier_reply *r, const struct flame *f)
{
	json_t *names, *levels, *vals;
	size_t i, j, mark, fmark;

	if (r->json) {
		names = json_array();
		levels = json_array();
		for (i = 0; i < f->nnames; i++)
			json_array_append_new(names, json_text(f->names[i]));
		for (i = 0; i < f->nlevels; i++) {
			vals = json_array();
			for (j = 0; j < f->levels[i].n; j++)
				json_array_append_new(vals,
				    json_i64(f->levels[i].v[j]));
			json_array_append_new(levels, json_pack("{s:o}",
			    "values", vals));
		}
		r->js = json_pack("{s:{s:o, s:o, s:o, s:o}}", "flamegraph",
		    "names", names, "levels", levels,
		    "total", json_i64(f->total),
		    "maxSelf", json_i64(f->max_self));
		return;
	}
	fmark = pbw_begin(&r->pb, 1);
	for (i = 0; i < f->nnames; i++)
		pbw_str(&r->pb, 1, f->names[i]);
	for (i = 0; i < f->nlevels; i++) {
		mark = pbw_begin(&r->pb, 2);
		/* Packed, as proto3 writes repeated int64. */
		if (f->levels[i].n > 0)
			pbw_packed(&r->pb, 1, (const uint64_t *)f->levels[i].v,
			    f->levels[i].n);
		pbw_end(&r->pb, mark);
	}
	pbw_opt_int(&r->pb, 3, f->total);
	pbw_opt_int(&r->pb, 4, f->max_self);
	pbw_end(&r->pb, fmark);
}
