/* kv.c: (key, value) pairs sorted by key (a radix sort) and summed per
 * key, after the fact or as they come (kvsum). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "kv.h"

static void
kv_insertion(struct kv *a, size_t n)
{
	size_t i, j;
	struct kv t;

	for (i = 1; i < n; i++) {
		t = a[i];
		for (j = i; j > 0 && a[j - 1].k > t.k; j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

/* LSD radix sort on the bytes (or 11-bit digits, for many keys) in which
 * the keys differ. */
void
kv_sort(struct kv *a, size_t n)
{
	struct kv *tmp, *src, *dst, *t;
	uint64_t diff = 0, mask;
	size_t i, *cnt, pos, c;
	unsigned shift, bits = n >= 16384 ? 11 : 8;

	if (n < 48) {
		kv_insertion(a, n);
		return;
	}
	for (i = 1; i < n; i++)
		diff |= a[i].k ^ a[0].k;
	if (diff == 0)
		return;
	mask = ((uint64_t)1 << bits) - 1;
	cnt = xreallocarray(NULL, (size_t)mask + 1, sizeof *cnt);
	tmp = xreallocarray(NULL, n, sizeof *tmp);
	src = a;
	dst = tmp;
	for (shift = 0; shift < 64; shift += bits) {
		if (((diff >> shift) & mask) == 0)
			continue;
		memset(cnt, 0, ((size_t)mask + 1) * sizeof *cnt);
		for (i = 0; i < n; i++)
			cnt[(src[i].k >> shift) & mask]++;
		for (i = 0, pos = 0; i <= mask; i++) {
			c = cnt[i];
			cnt[i] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i].k >> shift) & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
	free(tmp);
	free(cnt);
}

size_t
kv_sort_merge(struct kv *a, size_t n)
{
	size_t i, out = 0;

	kv_sort(a, n);
	for (i = 0; i < n; i++) {
		if (out > 0 && a[out - 1].k == a[i].k)
			a[out - 1].v = (int64_t)((uint64_t)a[out - 1].v +
			    (uint64_t)a[i].v);
		else
			a[out++] = a[i];
	}
	return out;
}

void
kvsum_add(struct kvsum *t, uint64_t key, int64_t v)
{
	struct imap_slot *sl = NULL;
	size_t at, n;

	if (key < KVSUM_DENSE_MAX) {
		if (key >= t->ndense) {
			n = t->ndense ? t->ndense : 4096;
			while (n <= key)
				n *= 2;
			t->dense = xreallocarray(t->dense, n,
			    sizeof *t->dense);
			memset(t->dense + t->ndense, 0, (n - t->ndense) *
			    sizeof *t->dense);
			t->ndense = n;
		}
		at = t->dense[key];
	} else {
		sl = imap_slot(&t->far, key, 1);
		at = (size_t)sl->value;
	}
	if (at != 0) {
		/* Wrapping, as the sums of a diff's values may. */
		t->kv[at - 1].v = (int64_t)((uint64_t)t->kv[at - 1].v +
		    (uint64_t)v);
		return;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 4096;
		t->kv = xreallocarray(t->kv, t->cap, sizeof *t->kv);
	}
	t->kv[t->n].k = key;
	t->kv[t->n++].v = v;
	if (sl != NULL)
		imap_fill(&t->far, sl, key, (int64_t)t->n);
	else
		t->dense[key] = (uint32_t)t->n;
}

void
kvsum_reset(struct kvsum *t)
{
	size_t i;

	/* Only the keys used: the array may be large and mostly zero. */
	for (i = 0; i < t->n; i++)
		if (t->kv[i].k < KVSUM_DENSE_MAX)
			t->dense[t->kv[i].k] = 0;
	t->n = 0;
	imap_reset(&t->far);
}

void
kvsum_free(struct kvsum *t)
{
	free(t->kv);
	free(t->dense);
	imap_clear(&t->far);
	memset(t, 0, sizeof *t);
}
