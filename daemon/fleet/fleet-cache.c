/* fleet-cache.c: key -> one allocation (fleet-cache.h: a stack's
 * frames by its hash, a function sum's names by its key), a map of
 * pointers under one mutex.  Over the cap, everything is dropped: what
 * a query reads is then read of ClickHouse again, as without the cache,
 * and the answers never depend on what is kept. */
#include <pthread.h>
#include <stdlib.h>

#include "alloc.h"
#include "fleet-cache.h"
#include "hmap.h"

struct fleet_cache {
	pthread_mutex_t mu;
	struct imap by_key;		/* key -> (intptr_t)allocation */
	void **v;			/* what is kept, to free it */
	size_t n, cap_v;
	size_t bytes, cap;
};

struct fleet_frames *
fleet_frames_new(uint64_t hash, size_t nf, size_t sbytes)
{
	size_t head = sizeof(struct fleet_frames) +
	    nf * sizeof(struct fleet_frame);
	struct fleet_frames *f = xmalloc(head + sbytes);

	f->hash = hash;
	f->bytes = head + sbytes;
	f->nf = nf;
	f->whole = 1;
	return f;
}

char *
fleet_frames_text(struct fleet_frames *f)
{
	return (char *)&f->f[f->nf];
}

struct fleet_cache *
fleet_cache_new(size_t cap)
{
	struct fleet_cache *c = xcalloc(1, sizeof *c);

	pthread_mutex_init(&c->mu, NULL);
	c->cap = cap;
	return c;
}

static void
cache_drop(struct fleet_cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i]);
	c->n = 0;
	c->bytes = 0;
	imap_reset(&c->by_key);
}

void
fleet_cache_free(struct fleet_cache *c)
{
	if (c == NULL)
		return;
	cache_drop(c);
	imap_clear(&c->by_key);
	free(c->v);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

void
fleet_cache_lock(struct fleet_cache *c)
{
	pthread_mutex_lock(&c->mu);
}

void
fleet_cache_unlock(struct fleet_cache *c)
{
	pthread_mutex_unlock(&c->mu);
}

const void *
fleet_cache_get(struct fleet_cache *c, uint64_t key)
{
	return (const void *)(intptr_t)imap_get(&c->by_key, key);
}

void
fleet_cache_add(struct fleet_cache *c, uint64_t key, void *p, size_t bytes)
{
	/* A slot's pointer and its key, counted with the allocation. */
	size_t cost = bytes + 2 * sizeof(struct imap_slot);

	if (cost > c->cap) {
		free(p);
		return;
	}
	pthread_mutex_lock(&c->mu);
	if (imap_get(&c->by_key, key) != 0) {
		pthread_mutex_unlock(&c->mu);
		free(p);
		return;
	}
	if (c->bytes + cost > c->cap)
		cache_drop(c);
	if (c->n == c->cap_v) {
		c->cap_v = c->cap_v ? c->cap_v * 2 : 1024;
		c->v = xreallocarray(c->v, c->cap_v, sizeof *c->v);
	}
	c->v[c->n++] = p;
	c->bytes += cost;
	imap_put(&c->by_key, key, (int64_t)(intptr_t)p);
	pthread_mutex_unlock(&c->mu);
}
