/* csindex.c: arrays indexed by callsite id and frame id; names interned
 * into one table so that a query can key rows by a small integer. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "csindex.h"
#include "hmap.h"

struct cs {
	int64_t parent;			/* -1 = no such callsite */
	int64_t frame;
};

struct fr {
	uint32_t name;			/* printable name */
	uint32_t name_line, name_file;	/* at line and file granularity */
	uint32_t flags;
	uint32_t file;			/* source file, mapping file: names */
	uint32_t mapping;
	/* Lines in 32 bits (past 2^32 or negative: 0, unknown) keep a frame
	 * in 32 bytes, the size it had with the start line alone. */
	uint32_t start_line;		/* the function's */
	uint32_t line;			/* the frame's own */
};

struct csindex {
	pthread_rwlock_t lock;
	struct cs *cs;			/* by callsite id */
	size_t ncs;			/* ids below ncs are loaded */
	struct fr *fr;			/* by frame id */
	size_t nfr;
	char **names;
	size_t nnames, capnames;
	struct hmap name_ids;		/* name -> 1 + index */
	/* An index built by csindex_put (not from a store): ids of frames
	 * by their fields, and of callsites by parent << 32 | frame. */
	struct hmap frame_ids;
	struct imap cs_ids;
	size_t cscap, frcap;
};

struct csindex *
csindex_new(void)
{
	struct csindex *x = xcalloc(1, sizeof *x);

	pthread_rwlock_init(&x->lock, NULL);
	return x;
}

void
csindex_free(struct csindex *x)
{
	size_t i;

	if (x == NULL)
		return;
	for (i = 0; i < x->nnames; i++)
		free(x->names[i]);
	free(x->names);
	free(x->cs);
	free(x->fr);
	hmap_clear(&x->name_ids);
	hmap_clear(&x->frame_ids);
	imap_clear(&x->cs_ids);
	pthread_rwlock_destroy(&x->lock);
	free(x);
}

uint32_t
csindex_intern(struct csindex *x, const char *name)
{
	size_t len = strlen(name);
	int64_t id = hmap_get(&x->name_ids, name, len);

	if (id != 0)
		return (uint32_t)(id - 1);
	/* Doubled, not grown by one: a fleet answer of 40,000 new names
	 * copied the array each time under ASan's realloc. */
	if (x->nnames == x->capnames) {
		x->capnames = x->capnames ? x->capnames * 2 : 256;
		x->names = xreallocarray(x->names, x->capnames,
		    sizeof *x->names);
	}
	x->names[x->nnames] = xstrdup(name);
	hmap_put(&x->name_ids, name, len, (int64_t)++x->nnames);
	return (uint32_t)(x->nnames - 1);
}

/* Grow an array indexed by id to hold id, filling new slots with fill. */
static void *
grow(void *p, size_t *n, size_t size, int64_t id, int fill)
{
	size_t want = (size_t)id + 1, cap;

	if (want <= *n)
		return p;
	cap = *n ? *n : 1024;
	while (cap < want)
		cap *= 2;
	p = xreallocarray(p, cap, size);
	memset((char *)p + *n * size, fill, (cap - *n) * size);
	*n = cap;
	return p;
}

struct load {
	struct csindex *x;
	size_t cscap, frcap;
	int64_t cs_last, fr_last;
};

static void
load_cs(void *arg, int64_t id, int64_t parent, int64_t frame)
{
	struct load *l = arg;

	l->x->cs = grow(l->x->cs, &l->cscap, sizeof *l->x->cs, id, 0xff);
	l->x->cs[id].parent = parent;
	l->x->cs[id].frame = frame;
	l->cs_last = id;
}

static uint32_t
line32(int64_t line)
{
	return line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0;
}

/* pprof's printable name of a node at function granularity: the function
 * name, else [basename of the mapping file], else <unknown>. */
static void
load_fr(void *arg, const struct store_frame_info *fi)
{
	struct load *l = arg;
	struct fr *f;
	const char *base;
	char *name;

	l->x->fr = grow(l->x->fr, &l->frcap, sizeof *l->x->fr, fi->id, 0);
	f = &l->x->fr[fi->id];
	if (fi->function[0] != '\0')
		name = xstrdup(fi->function);
	else if (fi->mapping_file[0] != '\0') {
		base = strrchr(fi->mapping_file, '/');
		xasprintf(&name, "[%s]", base ? base + 1 : fi->mapping_file);
	} else
		name = xstrdup("<unknown>");
	f->name = csindex_intern(l->x, name);
	f->flags = fi->flags;
	f->name_line = f->name_file = f->name;
	if (fi->file[0] != '\0') {
		char *ln;

		/* pprof's names at -lines and -files granularity. */
		if (fi->line != 0)
			xasprintf(&ln, "%s %s:%lld", name, fi->file,
			    (long long)fi->line);
		else
			xasprintf(&ln, "%s %s", name, fi->file);
		f->name_line = csindex_intern(l->x, ln);
		f->name_file = csindex_intern(l->x, fi->file);
		free(ln);
	}
	f->file = csindex_intern(l->x, fi->file);
	f->mapping = csindex_intern(l->x, fi->mapping_file);
	f->start_line = line32(fi->start_line);
	f->line = line32(fi->line);
	free(name);
	l->fr_last = fi->id;
}

/* A frame's fields as one key: the strings with their NULs, then the
 * numbers. */
static void
frame_key(struct buf *k, const struct store_frame_info *fi)
{
	int64_t nums[3] = { fi->start_line, fi->line, (int64_t)fi->flags };

	k->n = 0;
	buf_add(k, fi->function, strlen(fi->function) + 1);
	buf_add(k, fi->file, strlen(fi->file) + 1);
	buf_add(k, fi->mapping_file, strlen(fi->mapping_file) + 1);
	buf_add(k, nums, sizeof nums);
}

int64_t
csindex_put(struct csindex *x, int64_t parent, const struct store_frame_info *in)
{
	struct store_frame_info fi = *in;
	struct load l;
	struct buf k = { 0 };
	uint64_t key;
	int64_t frame, cs;

	memset(&l, 0, sizeof l);
	l.x = x;
	l.cscap = x->cscap;
	l.frcap = x->frcap;
	frame_key(&k, &fi);
	if ((frame = hmap_get(&x->frame_ids, k.p, k.n)) == 0) {
		/* Ids from 1, as the store's. */
		frame = fi.id = (int64_t)(x->nfr > 0 ? x->nfr : 1);
		load_fr(&l, &fi);
		x->nfr = (size_t)frame + 1;
		hmap_put(&x->frame_ids, k.p, k.n, frame);
	}
	buf_free(&k);
	key = (uint64_t)parent << 32 | (uint64_t)frame;
	if ((cs = imap_get(&x->cs_ids, key)) == 0) {
		cs = (int64_t)(x->ncs > 0 ? x->ncs : 1);
		load_cs(&l, cs, parent, frame);
		x->ncs = (size_t)cs + 1;
		imap_put(&x->cs_ids, key, cs);
	}
	x->cscap = l.cscap;
	x->frcap = l.frcap;
	return cs;
}

int
csindex_acquire(struct csindex *x, struct store *s, struct error *err)
{
	struct load l;
	int rc;

	pthread_rwlock_wrlock(&x->lock);
	memset(&l, 0, sizeof l);
	l.x = x;
	/* The capacity is the loaded bound: slots past the last row read
	 * stay -1 (unknown) until a later catch-up fills them. */
	l.cscap = x->ncs;
	l.frcap = x->nfr;
	l.cs_last = (int64_t)x->ncs - 1;
	l.fr_last = (int64_t)x->nfr - 1;
	/* Callsites first: every frame they name was committed before them,
	 * so the frames read next include it. */
	rc = store_callsites_after(s, l.cs_last < 0 ? 0 : l.cs_last, load_cs,
	    &l, err);
	if (rc == 0)
		rc = store_frames_after(s, l.fr_last < 0 ? 0 : l.fr_last,
		    load_fr, &l, err);
	x->ncs = (size_t)(l.cs_last + 1);
	x->nfr = (size_t)(l.fr_last + 1);
	pthread_rwlock_unlock(&x->lock);
	if (rc == -1)
		return -1;
	pthread_rwlock_rdlock(&x->lock);
	return 0;
}

void
csindex_release(struct csindex *x)
{
	pthread_rwlock_unlock(&x->lock);
}

int64_t
csindex_parent(const struct csindex *x, int64_t cs)
{
	if (cs <= 0 || (size_t)cs >= x->ncs)
		return -1;
	return x->cs[cs].parent;
}

uint32_t
csindex_name(const struct csindex *x, int64_t cs)
{
	return x->fr[x->cs[cs].frame].name;
}

unsigned
csindex_flags(const struct csindex *x, int64_t cs)
{
	return x->fr[x->cs[cs].frame].flags;
}

void
csindex_source(const struct csindex *x, int64_t cs, const char **file,
    int64_t *line, const char **mapping)
{
	const struct fr *f = &x->fr[x->cs[cs].frame];

	*file = x->names[f->file];
	*line = f->start_line;
	*mapping = x->names[f->mapping];
}

int64_t
csindex_line(const struct csindex *x, int64_t cs)
{
	return x->fr[x->cs[cs].frame].line;
}

uint32_t
csindex_name_at(const struct csindex *x, int64_t cs, enum granularity g)
{
	const struct fr *f = &x->fr[x->cs[cs].frame];

	return g == GRAN_LINE ? f->name_line : g == GRAN_FILE ? f->name_file :
	    f->name;
}

uint32_t
csindex_file_id(const struct csindex *x, int64_t cs)
{
	return x->fr[x->cs[cs].frame].file;
}

uint32_t
csindex_mapping_id(const struct csindex *x, int64_t cs)
{
	return x->fr[x->cs[cs].frame].mapping;
}

const char *
csindex_name_str(const struct csindex *x, uint32_t name)
{
	return x->names[name];
}

size_t
csindex_nnames(const struct csindex *x)
{
	return x->nnames;
}

size_t
csindex_bytes(const struct csindex *x)
{
	return x->ncs * sizeof *x->cs + x->nfr * sizeof *x->fr +
	    hmap_bytes(&x->name_ids);
}
