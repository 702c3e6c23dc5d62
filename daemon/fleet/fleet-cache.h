/* fleet-cache.h: the frames of the fleet's stacks, by stack hash, kept
 * by profd between queries.  A stack's frames never change (its hash is
 * of them), so a fleet query asks ClickHouse for the sums per hash only
 * and for the frames of the hashes not kept here.  Bounded in bytes:
 * past the cap, everything is dropped (simple, and the next query fills
 * it again).  Shared by the query threads: one lock.  Knows no SQL. */
#ifndef PROFD_FLEET_CACHE_H
#define PROFD_FLEET_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* One stack, leaf first, in one allocation (the strings after the
 * frames): fleet_frames_new's layout. */
struct fleet_frame {
	const char *function, *file, *mapping;
	int64_t line, start_line;
	unsigned flags;
};

struct fleet_frames {
	uint64_t hash;
	size_t bytes;			/* of the allocation */
	size_t nf;
	/* 0: read without its stack_frames row (inline flags, start
	 * lines, mappings): a stack shipped before schema 2, or one
	 * whose row is not in yet.  Never kept (fs_frames_row). */
	int whole;
	struct fleet_frame f[];
};

/* A stack of nf frames whose strings take sbytes (NULs counted): its
 * strings go at fleet_frames_text, in order, by the caller. */
struct fleet_frames *fleet_frames_new(uint64_t hash, size_t nf,
    size_t sbytes);
char *fleet_frames_text(struct fleet_frames *);

/* 64 MiB: the frames of some 50,000 stacks of real programs. */
#define FLEET_CACHE_BYTES	(64 * 1024 * 1024)

/* The cache: any one allocation by a 64-bit key (a stack's frames by
 * its hash; fleet-fsum.c's names of a function sum's key, in a cache of
 * their own). */
struct fleet_cache;

struct fleet_cache *fleet_cache_new(size_t cap);
void fleet_cache_free(struct fleet_cache *);
/* fleet_cache_get's allocations are valid while the lock is held. */
void fleet_cache_lock(struct fleet_cache *);
void fleet_cache_unlock(struct fleet_cache *);
const void *fleet_cache_get(struct fleet_cache *, uint64_t key);
/* p, one allocation of bytes, taken: kept under key, or freed (the key
 * there already, or over the cap alone).  Takes the lock itself. */
void fleet_cache_add(struct fleet_cache *, uint64_t key, void *p,
    size_t bytes);

#endif
