/* hmap.h: an open-addressing hash map from byte keys to int64 values, with
 * keys copied into the map.  Used for the interning caches. */
#ifndef PROFD_HMAP_H
#define PROFD_HMAP_H

#include <stddef.h>
#include <stdint.h>

#define HMAP_INLINE_KEY	32

struct hmap_slot {
	uint64_t hash;		/* 0 = empty */
	uint32_t keylen;
	union {
		uint8_t *p;	/* keylen > HMAP_INLINE_KEY */
		uint8_t in[HMAP_INLINE_KEY];
	} key;
	int64_t value;
};

/* The key bytes of a slot. */
const uint8_t *hmap_slot_key(const struct hmap_slot *);

struct hmap {
	struct hmap_slot *slots;
	size_t cap, n;		/* cap is a power of two */
	size_t keybytes;
};

uint64_t hmap_hash(const void *, size_t);
/* The value for key, or 0 if absent (values stored must be non-zero). */
int64_t hmap_get(const struct hmap *, const void *key, size_t len);
void hmap_put(struct hmap *, const void *key, size_t len, int64_t value);
void hmap_clear(struct hmap *);
/* Memory held by the map, for accounting. */
size_t hmap_bytes(const struct hmap *);
/* Zeroed memory for a table of slots (imap, bmap); freed with free(). */
void *hmap_table(size_t n, size_t size);

/* imap: the same contract for 64-bit integer keys (ids, or two 32-bit ids
 * side by side), on hot query paths: no key copies, no memcmp, and the
 * lookup inlined.  A slot with value 0 is empty. */
struct imap_slot {
	uint64_t key;
	int64_t value;
};

struct imap {
	struct imap_slot *slots;
	size_t cap, n;		/* cap is a power of two */
};

/* MurmurHash3's 64-bit finalizer: every input bit reaches every output
 * bit, so ids side by side (parent << 32 | frame) do not cluster.  The
 * last step of hmap_hash too. */
static inline uint64_t
hmap_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* The slot of key: its own, or the empty one where it would go. */
static inline struct imap_slot *
imap_find(const struct imap *m, uint64_t key)
{
	size_t i;

	for (i = (size_t)hmap_mix64(key) & (m->cap - 1);;
	    i = (i + 1) & (m->cap - 1))
		if (m->slots[i].value == 0 || m->slots[i].key == key)
			return &m->slots[i];
}

/* The value for key, or 0 if absent. */
static inline int64_t
imap_get(const struct imap *m, uint64_t key)
{
	return m->cap == 0 ? 0 : imap_find(m, key)->value;
}

/* value must be non-zero. */
void imap_put(struct imap *, uint64_t key, int64_t value);

/* Find-or-insert in one probe: the slot of key, with room made first for
 * one more entry.  A slot whose value is 0 is where key goes: the caller
 * sets key and value (imap_fill) or leaves it empty, with no other
 * insertion into m in between.  With grow 0 and the map full (3/4), NULL:
 * the caller looks up only (imap_get). */
struct imap_slot *imap_slot(struct imap *, uint64_t key, int grow);

static inline void
imap_fill(struct imap *m, struct imap_slot *s, uint64_t key, int64_t value)
{
	s->key = key;
	s->value = value;
	m->n++;
}
/* Room for n entries without growing. */
void imap_reserve(struct imap *, size_t n);
/* key removed (nothing if absent); the entries after it move up so that
 * every probe still finds its key. */
void imap_del(struct imap *, uint64_t key);
void imap_clear(struct imap *);
/* Empty, the memory kept. */
void imap_reset(struct imap *);
/* Memory held by the map. */
size_t imap_bytes(const struct imap *);

/* bmap: byte keys to non-zero int64 values in 16-byte slots (the key's
 * hash and where its record is), the keys and values packed one after
 * the other in an arena.  A lookup reads the slots and, on a hash match
 * only, the record.  The same find-or-insert in one probe as imap. */
struct bmap_slot {
	uint64_t hash;		/* 0: empty */
	uint64_t rec;		/* offset of the record in the arena */
};

struct bmap {
	struct bmap_slot *slots;
	size_t cap, n;		/* cap is a power of two */
	uint8_t *arena;		/* records: value (8), length (4), key */
	size_t used, arenacap;
};

/* What bmap_find gives: the value found (0: none), and where to put it. */
struct bmap_pos {
	struct bmap_slot *slot;	/* NULL: the map is full and may not grow */
	uint64_t hash;
	int64_t value;
};

struct bmap_pos bmap_find(struct bmap *, const void *key, size_t len,
    int grow);
/* Inserts key at pos (from bmap_find on the same key, nothing inserted
 * since); nothing when pos.slot is NULL. */
void bmap_fill(struct bmap *, struct bmap_pos pos, const void *key,
    size_t len, int64_t value);
/* Room for n entries and keybytes bytes of keys without growing. */
void bmap_reserve(struct bmap *, size_t n, size_t keybytes);
/* Empty, the memory kept. */
void bmap_reset(struct bmap *);
void bmap_clear(struct bmap *);
size_t bmap_bytes(const struct bmap *);

#endif
