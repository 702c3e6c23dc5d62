/* fleet-index.c: the pool of the fleet's callsite indexes
 * (fleet-index.h), a list under one mutex.  An index only grows while
 * pooled, so what a call found in it stays true; one past the cap is
 * dropped whole, and the next call builds a new one from the frame
 * cache, as every call did before the pool. */
#include <pthread.h>
#include <stdlib.h>

#include "alloc.h"
#include "csindex.h"
#include "fleet-index.h"

struct fleet_index_pool {
	pthread_mutex_t mu;
	struct fleet_index *free;	/* given back, newest first */
	size_t cap;
};

struct fleet_index_pool *
fleet_index_pool_new(size_t cap)
{
	struct fleet_index_pool *p = xcalloc(1, sizeof *p);

	pthread_mutex_init(&p->mu, NULL);
	p->cap = cap;
	return p;
}

static void
index_free(struct fleet_index *x)
{
	csindex_free(x->idx);
	imap_clear(&x->leaf);
	free(x);
}

void
fleet_index_pool_free(struct fleet_index_pool *p)
{
	struct fleet_index *x;

	if (p == NULL)
		return;
	while ((x = p->free) != NULL) {
		p->free = x->next;
		index_free(x);
	}
	pthread_mutex_destroy(&p->mu);
	free(p);
}

struct fleet_index *
fleet_index_take(struct fleet_index_pool *p)
{
	struct fleet_index *x;

	pthread_mutex_lock(&p->mu);
	if ((x = p->free) != NULL)
		p->free = x->next;
	pthread_mutex_unlock(&p->mu);
	if (x == NULL) {
		x = xcalloc(1, sizeof *x);
		x->idx = csindex_new();
	}
	x->next = NULL;
	return x;
}

void
fleet_index_give(struct fleet_index_pool *p, struct fleet_index *x)
{
	if (x == NULL)
		return;
	/* csindex_bytes leaves out a put-built index's maps (about as
	 * much again): the cap is a bound, not an account. */
	if (csindex_bytes(x->idx) + imap_bytes(&x->leaf) > p->cap) {
		index_free(x);
		return;
	}
	pthread_mutex_lock(&p->mu);
	x->next = p->free;
	p->free = x;
	pthread_mutex_unlock(&p->mu);
}
