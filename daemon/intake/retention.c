/* retention.c: deleting profiles and collecting what they leave unused,
 * on the import thread: for a retention pass (retainer.c) and for the
 * deletes profctl asks for. */
#include <stdlib.h>
#include <string.h>

#include "csindex.h"
#include "retention.h"
#include "store.h"

/* Delete profiles[0..n) in one transaction. */
int
retention_drop(struct store *s, const struct store_old_profile *v, size_t n,
    int64_t *samples, struct error *err)
{
	size_t i;

	if (store_begin(s, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (store_profile_delete(s, v[i].id, err) == -1) {
			store_rollback(s);
			return -1;
		}
		if (samples != NULL)
			*samples += v[i].samples;
	}
	return store_commit(s, err);
}

int
retention_gc_step(struct store *s, struct csindex *idx, int *phase,
    size_t batch, int64_t *removed, struct error *err)
{
	if (idx != NULL) {
		if (csindex_acquire(idx, s, err) == -1)
			return -1;
		csindex_release(idx);
	}
	return store_gc_step(s, phase, batch, removed, err);
}

int
retention_delete(struct store *s, const struct retention_delete *d,
    int64_t *profiles, int64_t *samples, int *scope_gone, struct error *err)
{
	struct store_old_profile *v = NULL, one;
	int64_t scope, ps;
	size_t nv, i;

	*profiles = *samples = 0;
	*scope_gone = 0;
	if ((scope = store_scope(s, d->scope, 0, err)) < 0)
		return -1;
	if (scope == 0)
		return error_set(err, ERR_NOT_FOUND, "no scope \"%s\"",
		    d->scope);
	if (d->nids == 0 && d->before_ns == 0) {
		if (store_begin(s, err) == -1)
			return -1;
		if (store_scope_delete(s, scope, profiles, samples, err) == -1) {
			store_rollback(s);
			return -1;
		}
		*scope_gone = 1;
		return store_commit(s, err);
	}
	/* Every id first, so that a wrong one deletes nothing. */
	for (i = 0; i < d->nids; i++) {
		if ((ps = store_profile_scope(s, d->ids[i], NULL, err)) < 0)
			return -1;
		if (ps != scope)
			return error_set(err, ERR_NOT_FOUND, "scope \"%s\" has "
			    "no profile %lld", d->scope,
			    (long long)d->ids[i]);
	}
	for (i = 0; i < d->nids; i++) {
		memset(&one, 0, sizeof one);
		one.id = d->ids[i];
		/* Listed twice: deleted once. */
		if ((ps = store_profile_scope(s, one.id, &one.samples,
		    err)) < 0)
			return -1;
		if (ps != scope)
			continue;
		if (retention_drop(s, &one, 1, samples, err) == -1)
			return -1;
		(*profiles)++;
	}
	if (d->before_ns != 0) {
		do {
			if (store_oldest_profiles(s, scope, d->before_ns,
			    RETENTION_DROP_BATCH * 4, &v, &nv, err) == -1)
				return -1;
			if (nv > 0 && retention_drop(s, v, nv, samples, err) ==
			    -1) {
				free(v);
				return -1;
			}
			*profiles += (int64_t)nv;
			free(v);
		} while (nv > 0);
	}
	return 0;
}
