/* store-read.c: the store's reads of what store.c writes: metrics,
 * scopes, profiles with their metrics, labels and comments, callsites and
 * frames for the callsite index, and the rows by id an export needs. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cschunk.h"
#include "hmap.h"
#include "srows.h"
#include "store-int.h"

static char *
col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *p = sqlite3_column_text(st, i);

	return xstrndup(p ? (const char *)p : "",
	    (size_t)sqlite3_column_bytes(st, i));
}

void
store_metric_clear(struct store_metric *m)
{
	free(m->type);
	free(m->unit);
	memset(m, 0, sizeof *m);
}

static void
metrics_free(struct store_metric *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		store_metric_clear(&m[i]);
	free(m);
}

/* Reads rows of (id, type, unit[, kind, counted, total]) from a
 * statement with ?1 bound to id: a profile's metrics have a kind. */
static int
store_metric_rows(struct store *s, enum stmt which, int64_t id,
    struct store_metric **out, size_t *n, struct error *err)
{
	sqlite3_stmt *st = s->st[which];
	int rc;

	*out = NULL;
	*n = 0;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = xreallocarray(*out, *n + 1, sizeof **out);
		(*out)[*n].id = sqlite3_column_int64(st, 0);
		(*out)[*n].type = col_str(st, 1);
		(*out)[*n].unit = col_str(st, 2);
		(*out)[*n].kind = sqlite3_column_count(st) > 3 ?
		    (enum metric_kind)sqlite3_column_int(st, 3) : KIND_DELTA;
		(*out)[*n].counted = sqlite3_column_count(st) > 4 ?
		    (enum store_counted)sqlite3_column_int(st, 4) :
		    COUNTED_WHOLE;
		(*out)[*n].total = sqlite3_column_count(st) > 5 ?
		    sqlite3_column_int64(st, 5) : 0;
		(*n)++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		metrics_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_fail(s, err, "reading metrics");
	}
	return 0;
}

int
store_metric_get(struct store *s, int64_t id, struct store_metric *m,
    struct error *err)
{
	struct store_metric *rows;
	size_t n;

	memset(m, 0, sizeof *m);
	if (store_metric_rows(s, S_METRIC_ONE, id, &rows, &n, err) == -1)
		return -1;
	if (n == 1) {
		*m = rows[0];
		free(rows);
		return 0;
	}
	metrics_free(rows, n);
	return error_set(err, ERR_NOT_FOUND, "store: no metric %lld",
	    (long long)id);
}

void
store_scope_info_free(struct store_scope_info *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		metrics_free(v[i].metrics, v[i].nmetrics);
	}
	free(v);
}

int
store_scopes(struct store *s, struct store_scope_info **out, size_t *n,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_SCOPES];
	struct store_scope_info *v = NULL;
	size_t i, count = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = xreallocarray(v, count + 1, sizeof *v);
		memset(&v[count], 0, sizeof *v);
		v[count].id = sqlite3_column_int64(st, 0);
		v[count].name = col_str(st, 1);
		v[count].profiles = sqlite3_column_int64(st, 2);
		v[count].first_ns = sqlite3_column_int64(st, 3);
		v[count].last_ns = sqlite3_column_int64(st, 4);
		count++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		store_scope_info_free(v, count);
		return store_fail(s, err, "listing scopes");
	}
	for (i = 0; i < count; i++) {
		if (store_metric_rows(s, S_SCOPE_METRICS, v[i].id,
		    &v[i].metrics, &v[i].nmetrics, err) == -1) {
			store_scope_info_free(v, count);
			return -1;
		}
	}
	*out = v;
	*n = count;
	return 0;
}

void
store_profile_info_clear(struct store_profile_info *p)
{
	size_t i;

	free(p->name);
	free(p->format);
	free(p->doc_url);
	metrics_free(p->metrics, p->nmetrics);
	store_metric_clear(&p->default_metric);
	store_metric_clear(&p->period_type);
	for (i = 0; i < p->nlabels; i++) {
		free(p->label_keys[i]);
		free(p->label_values[i]);
	}
	free(p->label_keys);
	free(p->label_values);
	for (i = 0; i < p->ncomments; i++)
		free(p->comments[i]);
	free(p->comments);
	store_counts_free(p->counts, p->ncounts);
	memset(p, 0, sizeof *p);
}

void
store_profile_info_free(struct store_profile_info *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		store_profile_info_clear(&v[i]);
	free(v);
}

int
store_profile_get(struct store *s, int64_t id, struct store_profile_info *p,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_ONE];
	int64_t def = 0, per = 0;
	int rc;

	memset(p, 0, sizeof *p);
	p->id = id;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p->name = col_str(st, 0);
		p->format = col_str(st, 1);
		p->doc_url = col_str(st, 2);
		p->time_ns = sqlite3_column_int64(st, 3);
		p->duration_ns = sqlite3_column_int64(st, 4);
		p->imported_ns = sqlite3_column_int64(st, 5);
		p->samples = sqlite3_column_int64(st, 6);
		p->dropped_samples = sqlite3_column_int64(st, 7);
		p->period = sqlite3_column_int64(st, 8);
		p->bytes = sqlite3_column_int64(st, 9);
		def = sqlite3_column_int64(st, 10);
		per = sqlite3_column_int64(st, 11);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return error_set(err, ERR_NOT_FOUND, "no profile %lld",
		    (long long)id);
	if (rc != SQLITE_ROW)
		return store_fail(s, err, "reading profile");
	if (store_metric_rows(s, S_PROFILE_METRICS, id, &p->metrics,
	    &p->nmetrics, err) == -1 ||
	    (def && store_metric_get(s, def, &p->default_metric, err) == -1) ||
	    (per && store_metric_get(s, per, &p->period_type, err) == -1))
		goto fail;

	st = s->st[S_PROFILE_LABELS];
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p->label_keys = xreallocarray(p->label_keys, p->nlabels + 1,
		    sizeof *p->label_keys);
		p->label_values = xreallocarray(p->label_values, p->nlabels + 1,
		    sizeof *p->label_values);
		p->label_keys[p->nlabels] = col_str(st, 0);
		p->label_values[p->nlabels] = col_str(st, 1);
		p->nlabels++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "reading profile labels");
		goto fail;
	}
	st = s->st[S_PROFILE_COMMENTS];
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p->comments = xreallocarray(p->comments, p->ncomments + 1,
		    sizeof *p->comments);
		p->comments[p->ncomments++] = col_str(st, 0);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "reading profile comments");
		goto fail;
	}
	if (store_profile_counts(s, id, &p->counts, &p->ncounts, err) == -1)
		goto fail;
	return 0;
fail:
	store_profile_info_clear(p);
	return -1;
}

int64_t
store_scope_default_metric(struct store *s, int64_t scope_id,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_SCOPE_DEFAULT_METRIC];

	sqlite3_bind_int64(st, 1, scope_id);
	return store_step_id(s, st, err, "default metric");
}

int64_t
store_scope_metric(struct store *s, int64_t scope_id, const char *type,
    const char *unit, struct error *err)
{
	sqlite3_stmt *st = s->st[S_SCOPE_METRIC_FIND];
	int64_t id = 0;
	int rc, rows = 0;

	sqlite3_bind_int64(st, 1, scope_id);
	sqlite3_bind_text(st, 2, type, -1, SQLITE_STATIC);
	if (unit != NULL)
		sqlite3_bind_text(st, 3, unit, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		rows++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, err, "metric lookup");
	if (rows > 1)
		return error_set(err, ERR_INPUT, "metric \"%s\" has several "
		    "units in this scope: name one as %s/UNIT", type, type);
	return id;
}

struct cs_after {
	int64_t after;
	void (*cb)(void *, int64_t id, int64_t parent, int64_t frame);
	void *arg;
};

static int
cs_after_chunk(void *arg, const struct cschunk *ch)
{
	struct cs_after *a = arg;
	size_t i;

	for (i = 0; i < ch->n; i++)
		if (ch->id[i] > a->after)
			a->cb(a->arg, ch->id[i], ch->parent[i], ch->frame[i]);
	return 0;
}

int
store_callsites_after(struct store *s, int64_t after,
    void (*cb)(void *, int64_t id, int64_t parent, int64_t frame), void *arg,
    struct error *err)
{
	struct cs_after a = { after, cb, arg };

	return store_cs_each(s, after, 0, cs_after_chunk, &a, err);
}

int
store_frames_after(struct store *s, int64_t after,
    void (*cb)(void *, const struct store_frame_info *), void *arg,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_FRAMES];
	struct store_frame_info fi;
	int rc;

	sqlite3_bind_int64(st, 1, after);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fi.id = sqlite3_column_int64(st, 0);
		fi.function = (const char *)sqlite3_column_text(st, 1);
		fi.mapping_file = (const char *)sqlite3_column_text(st, 2);
		fi.flags = (unsigned)sqlite3_column_int(st, 3);
		fi.file = (const char *)sqlite3_column_text(st, 4);
		fi.start_line = sqlite3_column_int64(st, 5);
		fi.line = sqlite3_column_int64(st, 6);
		cb(arg, &fi);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : store_fail(s, err, "reading frames");
}

/* ---- export: rows by id ---- */

/* Prepare sql, then bind each id to ?1 and hand every row to row(). */
static int
store_rows_by_id(struct store *s, const char *sql, const int64_t *ids,
    size_t n, void (*row)(sqlite3_stmt *, void *), void *arg,
    const char *what, struct error *err)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc = SQLITE_DONE;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, err, what);
	for (i = 0; i < n && rc == SQLITE_DONE; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			row(st, arg);
		sqlite3_reset(st);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, what);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static struct store_str
col_bytes(sqlite3_stmt *st, int i)
{
	struct store_str r;

	r.p = sqlite3_column_blob(st, i);
	r.n = (size_t)sqlite3_column_bytes(st, i);
	if (r.p == NULL)
		r.p = "";
	return r;
}

struct rows_cb {
	void (*fn)(void *, const struct store_function_row *);
	void (*map)(void *, const struct store_mapping_row *);
	void (*label)(void *, const struct store_label_row *);
	void *arg;
	size_t at;
	struct store_frame_row *frames;
};

static void
frame_row(sqlite3_stmt *st, void *arg)
{
	struct rows_cb *r = arg;
	struct store_frame_row *f = &r->frames[r->at++];

	f->callsite = sqlite3_column_int64(st, 0);
	f->frame = sqlite3_column_int64(st, 1);
	f->function = sqlite3_column_int64(st, 2);
	f->mapping = sqlite3_column_int64(st, 3);
	f->address = (uint64_t)sqlite3_column_int64(st, 4);
	f->line = sqlite3_column_int64(st, 5);
	f->column = sqlite3_column_int64(st, 6);
	f->flags = (unsigned)sqlite3_column_int(st, 7);
}

int
store_callsite_frames(struct store *s, const int64_t *callsites, size_t n,
    struct store_frame_row *out, struct error *err)
{
	struct rows_cb r = { NULL, NULL, NULL, NULL, 0, out };
	int64_t *frames = xcalloc(n ? n : 1, sizeof *frames);
	size_t i, missing = 0;
	int rc = -1, own = sqlite3_get_autocommit(s->db);

	/* The chunks give the frames; then a frame row each.  In one read
	 * transaction: one snapshot, not a lock taken per statement. */
	if (own && store_step_done(s, s->sb[SB_READ_BEGIN], err,
	    "beginning a read") == -1) {
		free(frames);
		return -1;
	}
	if (store_cs_frames(s, callsites, n, frames, err) == -1)
		goto out;
	for (i = 0; i < n; i++)
		missing += frames[i] == 0;
	if (missing > 0) {
		error_set(err, ERR_INTERNAL, "store: %zu of %zu callsites not "
		    "found", missing, n);
		goto out;
	}
	if (store_rows_by_id(s, "SELECT 0, f.id, ifnull(f.function_id, 0), "
	    "ifnull(f.mapping_id, 0), f.address, f.line, f.col, f.flags "
	    "FROM frame f WHERE f.id = ?1", frames, n, frame_row, &r,
	    "reading frames", err) == -1)
		goto out;
	if (r.at != n) {
		error_set(err, ERR_INTERNAL, "store: %zu of %zu frames not "
		    "found", n - r.at, n);
		goto out;
	}
	for (i = 0; i < n; i++)
		out[i].callsite = callsites[i];
	rc = 0;
out:
	if (own)
		store_step_done(s, s->sb[SB_READ_END], NULL, "ending a read");
	free(frames);
	return rc;
}

static void
function_row(sqlite3_stmt *st, void *arg)
{
	struct rows_cb *r = arg;
	struct store_function_row f;

	f.id = sqlite3_column_int64(st, 0);
	f.name = col_bytes(st, 1);
	f.system_name = col_bytes(st, 2);
	f.file = col_bytes(st, 3);
	f.start_line = sqlite3_column_int64(st, 4);
	r->fn(r->arg, &f);
}

int
store_functions_by_id(struct store *s, const int64_t *ids, size_t n,
    void (*cb)(void *, const struct store_function_row *), void *arg,
    struct error *err)
{
	struct rows_cb r = { cb, NULL, NULL, arg, 0, NULL };

	return store_rows_by_id(s, "SELECT fn.id, a.s, b.s, c.s, "
	    "fn.start_line FROM function fn "
	    "JOIN string a ON a.id = fn.name_id "
	    "JOIN string b ON b.id = fn.system_name_id "
	    "JOIN string c ON c.id = fn.filename_id WHERE fn.id = ?1",
	    ids, n, function_row, &r, "reading functions", err);
}

static void
mapping_row(sqlite3_stmt *st, void *arg)
{
	struct rows_cb *r = arg;
	struct store_mapping_row m;

	m.id = sqlite3_column_int64(st, 0);
	m.start = (uint64_t)sqlite3_column_int64(st, 1);
	m.limit = (uint64_t)sqlite3_column_int64(st, 2);
	m.offset = (uint64_t)sqlite3_column_int64(st, 3);
	m.file = col_bytes(st, 4);
	m.build_id = col_bytes(st, 5);
	m.flags = (unsigned)sqlite3_column_int(st, 6);
	r->map(r->arg, &m);
}

int
store_mappings_by_id(struct store *s, const int64_t *ids, size_t n,
    void (*cb)(void *, const struct store_mapping_row *), void *arg,
    struct error *err)
{
	struct rows_cb r = { NULL, cb, NULL, arg, 0, NULL };

	return store_rows_by_id(s, "SELECT m.id, m.memory_start, "
	    "m.memory_limit, m.file_offset, a.s, b.s, m.flags FROM mapping m "
	    "JOIN string a ON a.id = m.filename_id "
	    "JOIN string b ON b.id = m.build_id_id WHERE m.id = ?1",
	    ids, n, mapping_row, &r, "reading mappings", err);
}

static void
label_row(sqlite3_stmt *st, void *arg)
{
	struct rows_cb *r = arg;
	struct store_label_row l;

	l.labelset = sqlite3_column_int64(st, 0);
	l.key = col_bytes(st, 1);
	l.is_num = sqlite3_column_type(st, 3) != SQLITE_NULL;
	l.str = col_bytes(st, 2);
	l.num = sqlite3_column_int64(st, 3);
	l.num_unit = col_bytes(st, 4);
	r->label(r->arg, &l);
}

int
store_labels_by_set(struct store *s, const int64_t *labelsets, size_t n,
    void (*cb)(void *, const struct store_label_row *), void *arg,
    struct error *err)
{
	struct rows_cb r = { NULL, NULL, cb, arg, 0, NULL };

	return store_rows_by_id(s, "SELECT l.labelset_id, k.s, v.s, l.num, "
	    "u.s FROM label l JOIN string k ON k.id = l.key_id "
	    "LEFT JOIN string v ON v.id = l.str_id "
	    "LEFT JOIN string u ON u.id = l.num_unit_id "
	    "WHERE l.labelset_id = ?1 ORDER BY l.rowid",
	    labelsets, n, label_row, &r, "reading labels", err);
}

struct ptime {
	int64_t time, id;
};

static int
ptime_cmp(const void *a, const void *b)
{
	const struct ptime *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int
store_select_all(struct store *s, const struct store_filter *f,
    struct store_export_value **out, size_t *n, int64_t **profiles,
    size_t *nprofiles, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_PROFILE_TIME];
	struct srows rows = { 0 };
	struct imap ps = { 0 };
	struct store_export_value *v;
	struct ptime *pt = NULL;
	int64_t *ids;
	size_t i, np = 0;
	int rc;

	*out = NULL;
	*n = 0;
	*profiles = NULL;
	*nprofiles = 0;
	if (store_select_export(s, f, &rows, &ps, err) == -1)
		return -1;
	/* The profiles, oldest first. */
	pt = xcalloc(ps.n ? ps.n : 1, sizeof *pt);
	for (i = 0; i < ps.cap; i++) {
		const struct imap_slot *sl = &ps.slots[i];

		if (sl->value == 0)
			continue;
		pt[np].id = (int64_t)sl->key;
		sqlite3_bind_int64(st, 1, pt[np].id);
		rc = sqlite3_step(st);
		pt[np].time = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) :
		    0;
		sqlite3_reset(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			free(pt);
			srows_free(&rows);
			imap_clear(&ps);
			return store_fail(s, err, "reading profiles");
		}
		np++;
	}
	imap_clear(&ps);
	if (np > 0)
		qsort(pt, np, sizeof *pt, ptime_cmp);
	ids = xcalloc(np ? np : 1, sizeof *ids);
	for (i = 0; i < np; i++)
		ids[i] = pt[i].id;
	free(pt);
	v = xcalloc(rows.n ? rows.n : 1, sizeof *v);
	for (i = 0; i < rows.n; i++) {
		v[i].callsite = rows.ls[i];
		v[i].labelset = rows.cs[i];
		v[i].metric = rows.bucket[i];
		v[i].value = rows.v[i];
	}
	*out = v;
	*n = rows.n;
	*profiles = ids;
	*nprofiles = np;
	srows_free(&rows);
	return 0;
}
