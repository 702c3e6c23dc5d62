/* fleet-cache.c: stack hash -> its frames (fleet-cache.h), a map of
 * pointers to one allocation per stack, under one mutex.  Over the cap,
 * every stack is dropped: the frames a query reads are then read of
 * ClickHouse again, as without the cache, and the answers never depend
 * on what is kept. */
#include <pthread.h>
#include <stdlib.h>

#include "alloc.h"
#include "fleet-cache.h"
#include "hmap.h"

struct fleet_cache {
	pthread_mutex_t mu;
	struct imap by_hash;		/* hash -> (intptr_t)frames */
	struct fleet_frames **v;	/* what is kept, to free it */
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
	imap_reset(&c->by_hash);
}

void
fleet_cache_free(struct fleet_cache *c)
{
	if (c == NULL)
		return;
	cache_drop(c);
	imap_clear(&c->by_hash);
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

const struct fleet_frames *
fleet_cache_get(struct fleet_cache *c, uint64_t hash)
{
	return (const struct fleet_frames *)(intptr_t)imap_get(&c->by_hash,
	    hash);
}

void
fleet_cache_add(struct fleet_cache *c, struct fleet_frames *f)
{
	/* A slot's pointer and its key, counted with the frames. */
	size_t cost = f->bytes + 2 * sizeof(struct imap_slot);

	/* Frames without their inline flags would be kept wrong once
	 * their row comes: read again each time instead. */
	if (cost > c->cap || !f->whole) {
		free(f);
		return;
	}
	pthread_mutex_lock(&c->mu);
	if (imap_get(&c->by_hash, f->hash) != 0) {
		pthread_mutex_unlock(&c->mu);
		free(f);
		return;
	}
	if (c->bytes + cost > c->cap)
		cache_drop(c);
	if (c->n == c->cap_v) {
		c->cap_v = c->cap_v ? c->cap_v * 2 : 1024;
		c->v = xreallocarray(c->v, c->cap_v, sizeof *c->v);
	}
	c->v[c->n++] = f;
	c->bytes += cost;
	imap_put(&c->by_hash, f->hash, (int64_t)(intptr_t)f);
	pthread_mutex_unlock(&c->mu);
}
