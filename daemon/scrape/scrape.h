/* scrape.h: fetching profiles from the targets of the [scrape NAME]
 * sections (issue 17): each profile of each target on its own schedule,
 * with libevent's HTTP client on the loop (or, for a unix: target, a
 * request on a bufferevent: scrape-unix.c), every body imported as a push
 * is (api_push_run on the import queue).  A target that is down, slow or
 * answers garbage costs retries with backoff, never a blocked loop. */
#ifndef PROFD_SCRAPE_H
#define PROFD_SCRAPE_H

#include <stddef.h>

struct api_host;
struct api_scrape_target;
struct config;
struct event_base;
struct scraper;

/* The host's import queue and limits are used; nothing is scraped before
 * scraper_apply. */
struct scraper *scraper_new(struct event_base *, struct api_host *);
/* Scrape cfg's targets: the new ones start (at a jittered moment within
 * their interval), the changed ones start again, the removed ones stop
 * (what they had in flight is cancelled). */
void scraper_apply(struct scraper *, const struct config *cfg);
/* Cancel everything in flight (SIGTERM); the imports queued come back and
 * are dropped. */
void scraper_stop(struct scraper *);
void scraper_free(struct scraper *);
/* What /v1/status shows: one allocation, freed with free(); its strings
 * are the scraper's, valid on the loop until the next scraper_apply. */
size_t scraper_stats(struct scraper *, struct api_scrape_target **);

#endif
