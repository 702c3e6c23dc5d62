/* scrape.h: fetching profiles from the targets of the [scrape NAME]
 * sections (issue 17): each profile of each target on its own schedule,
 * with libevent's HTTP client on the loop (or, for a unix: target, a
 * request on a bufferevent: scrape-unix.c), every body imported as a push
 * is (intake's push_run on the import queue).  A target that is down,
 * slow or answers garbage costs retries with backoff, never a blocked
 * loop.  It knows neither the API nor the server: what it uses of the
 * process is given to scraper_new. */
#ifndef PROFD_SCRAPE_H
#define PROFD_SCRAPE_H

#include <jansson.h>
#include <stddef.h>

struct config;
struct event_base;
struct jobq;
struct push_env;
struct scraper;

/* Bodies are imported on the imports queue as pushes in env (copied);
 * nothing is scraped before scraper_apply. */
/* dns: the process's one resolver (the fleet's too), the caller's. */
struct evdns_base;
struct scraper *scraper_new(struct event_base *, struct evdns_base *dns,
    struct jobq *imports, const struct push_env *env);
/* Scrape cfg's targets, with its max-body: the new ones start (at a
 * jittered moment within their interval), the changed ones start again,
 * the removed ones stop (what they had in flight is cancelled). */
void scraper_apply(struct scraper *, const struct config *cfg);
/* Cancel everything in flight (SIGTERM); the imports queued come back and
 * are dropped. */
void scraper_stop(struct scraper *);
void scraper_free(struct scraper *);
/* Its status provider (status.h; ctx: the scraper, or NULL): each
 * target with its settings, each profile with its counts, last success
 * and error and next scrape ([] when there is none).  On the loop. */
json_t *scraper_status(void *ctx);

#endif
