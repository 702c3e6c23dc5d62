/* memtrim.c: the heap's free memory handed back to the system.
 *
 * A request body arrives in 16 KiB pieces (libevent's reads), below
 * main.c's M_MMAP_THRESHOLD, so it lives in the loop's arena; once freed,
 * glibc returns to the system only what is free at the arena's top
 * (M_TRIM_THRESHOLD), and a freed body in the middle stays resident:
 * eight 48 MiB bodies left profd at 400 MiB of RSS for good.
 * malloc_trim(0) also releases the free pages inside the arenas
 * (madvise), but it walks every arena under its lock: 30-50 ms for
 * 400 MiB on a quiet heap (2 busy cores), seconds while bodies are being
 * written into it.  Too long for the loop: it runs on a short-lived
 * thread of its own.  When to ask is the caller's (the HTTP server, after
 * large bodies were released, when none is held). */
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "memtrim.h"

static atomic_int trimming;

/* Resident bytes, from /proc (0 if unknown). */
static long long
memtrim_rss(void)
{
	long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%*s %lld", &pages) != 1)
		pages = 0;
	fclose(f);
	return pages * sysconf(_SC_PAGESIZE);
}

static void *
memtrim_main(void *arg)
{
	long long before = memtrim_rss(), after;
	int64_t t0 = mono_ns();

	(void)arg;
	pthread_setname_np(pthread_self(), "memtrim");
	malloc_trim(0);
	after = memtrim_rss();
	log_debug("memory: heap trimmed in %.1f ms, resident %lld MiB -> "
	    "%lld MiB", (double)(mono_ns() - t0) / 1e6, before >> 20,
	    after >> 20);
	atomic_store(&trimming, 0);
	return NULL;
}

void
memtrim_async(void)
{
	pthread_attr_t a;
	pthread_t t;

	if (atomic_exchange(&trimming, 1))
		return;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &a, memtrim_main, NULL) != 0)
		atomic_store(&trimming, 0);
	pthread_attr_destroy(&a);
}
