/* rate.c: the recent rate at which a backlog drains, and the time left
 * at that rate (rate.h). */
#include "rate.h"

void
rate_add(struct rate *r, int64_t now, uint64_t bytes)
{
	r->t[r->next] = now;
	r->bytes[r->next] = bytes;
	r->next = (r->next + 1) % RATE_SLOTS;
	if (r->n < RATE_SLOTS)
		r->n++;
}

double
rate_per_s(const struct rate *r, int64_t now)
{
	uint64_t sum = 0, first = 0;
	int64_t oldest = 0;
	size_t i, k, seen = 0;

	/* Newest first, until one is out of the window. */
	for (k = 1; k <= r->n; k++) {
		i = (r->next + RATE_SLOTS - k) % RATE_SLOTS;
		if (now - r->t[i] > RATE_WINDOW_NS)
			break;
		sum += r->bytes[i];
		first = r->bytes[i];
		oldest = r->t[i];
		seen++;
	}
	if (seen < 2 || now <= oldest)
		return 0;
	return (double)(sum - first) / ((double)(now - oldest) / 1e9);
}

int64_t
rate_eta_s(double per_s, int64_t backlog)
{
	double s;
	int64_t n;

	if (backlog <= 0 || !(per_s > 0))
		return -1;
	s = (double)backlog / per_s;
	if (s >= (double)(INT64_MAX / 2))
		return INT64_MAX / 2;
	n = (int64_t)s;
	if ((double)n < s)
		n++;			/* rounded up */
	return n < 1 ? 1 : n;
}
