/* test_scrape.c: the scraper linked alone (scrape/ over intake, no api):
 * its targets as /v1/status shows them, member for member; a reload that
 * keeps what did not change; and a unix: target served by the test on
 * the same loop, whose 404 is a failure with its text and backoff and
 * whose 200 is imported as a push into a real store, with its labels. */
#include <sys/socket.h>
#include <sys/un.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activity.h"
#include "alloc.h"
#include "config.h"
#include "jobq.h"
#include "kind.h"
#include "push.h"
#include "scrape.h"
#include "testimport.h"

static char dir[] = "/tmp/profd-scrape-XXXXXX";

static void
load(struct config *c, const char *text)
{
	struct error err = { 0 };
	char *path;
	FILE *f;

	xasprintf(&path, "%s/profd.conf", dir);
	CHECK((f = fopen(path, "w")) != NULL);
	fputs(text, f);
	fclose(f);
	config_defaults(c);
	if (config_load(c, path, 1, &err) == -1) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	free(path);
}

/* o's member names are exactly names, in that order (the order
 * profctl status and the tests have always read). */
static void
check_members(json_t *o, const char *const *names)
{
	void *it = json_object_iter(o);
	size_t i;

	for (i = 0; names[i] != NULL; i++) {
		CHECK(it != NULL);
		CHECK(STREQ(json_object_iter_key(it), names[i]));
		it = json_object_iter_next(o, it);
	}
	CHECK(it == NULL);
}

static const char *const target_members[] = {
	"name", "url", "scope", "interval_s", "cpu_seconds", "timeout_s",
	"profiles", NULL,
};
static const char *const profile_members[] = {
	"profile", "scrapes", "stored", "duplicates", "failures",
	"last_success", "last_error_time", "last_error", "next", "in_flight",
	"backoff_s", "last_bytes", "path", NULL,
};

/* Before any fetch: the settings, the profiles in the order named, no
 * counts, a next scrape within the interval.  A reload with the same
 * settings keeps the schedule; without the sections there is nothing. */
static void
test_status(struct event_base *base)
{
	struct push_env env = { 0 };
	struct config c, none;
	struct scraper *s;
	json_t *a, *t, *p, *again;
	size_t i;

	load(&c, "[scrape app]\nurl = http://127.0.0.1:9\n"
	    "profiles = cpu heap\ninterval = 30s\ncpu_seconds = 10\n"
	    "scope = shop\nlabel = env=test\n"
	    "[scrape other]\nurl = unix:/run/none.sock\n");
	s = scraper_new(base, NULL, NULL, &env);
	scraper_apply(s, &c);
	a = scraper_status(s);
	CHECK(json_is_array(a) && json_array_size(a) == 2);
	t = json_array_get(a, 0);
	check_members(t, target_members);
	CHECK(STREQ(json_string_value(json_object_get(t, "name")), "app"));
	CHECK(STREQ(json_string_value(json_object_get(t, "url")),
	    "http://127.0.0.1:9"));
	CHECK(STREQ(json_string_value(json_object_get(t, "scope")), "shop"));
	CHECK(json_integer_value(json_object_get(t, "interval_s")) == 30);
	CHECK(json_integer_value(json_object_get(t, "cpu_seconds")) == 10);
	CHECK(json_integer_value(json_object_get(t, "timeout_s")) == 20);
	CHECK(json_array_size(json_object_get(t, "profiles")) == 2);
	for (i = 0; i < 2; i++) {
		p = json_array_get(json_object_get(t, "profiles"), i);
		check_members(p, profile_members);
		CHECK(STREQ(json_string_value(json_object_get(p, "profile")),
		    i == 0 ? "cpu" : "heap"));
		CHECK(STREQ(json_string_value(json_object_get(p, "path")),
		    i == 0 ? "/debug/pprof/profile?seconds=10" :
		    "/debug/pprof/heap"));
		CHECK(json_integer_value(json_object_get(p, "scrapes")) == 0);
		CHECK(json_is_null(json_object_get(p, "last_success")));
		CHECK(json_is_null(json_object_get(p, "last_error")));
		CHECK(json_is_string(json_object_get(p, "next")));
		CHECK(json_is_false(json_object_get(p, "in_flight")));
	}
	/* The defaults: Alloy's five profiles, every 15 s. */
	t = json_array_get(a, 1);
	CHECK(STREQ(json_string_value(json_object_get(t, "scope")), "other"));
	CHECK(json_integer_value(json_object_get(t, "interval_s")) == 15);
	CHECK(json_array_size(json_object_get(t, "profiles")) == 5);
	/* allocs, mutex and block as deltas over the interval less 1s. */
	for (i = 0; i < 5; i++) {
		const char *want[] = { "/debug/pprof/profile?seconds=14",
		    "/debug/pprof/allocs?seconds=14", "/debug/pprof/goroutine",
		    "/debug/pprof/mutex?seconds=14",
		    "/debug/pprof/block?seconds=14" };

		p = json_array_get(json_object_get(t, "profiles"), i);
		CHECK(STREQ(json_string_value(json_object_get(p, "path")),
		    want[i]));
	}

	scraper_apply(s, &c);
	again = scraper_status(s);
	CHECK(json_equal(a, again));
	json_decref(again);
	json_decref(a);

	config_defaults(&none);
	scraper_apply(s, &none);
	a = scraper_status(s);
	CHECK(json_is_array(a) && json_array_size(a) == 0);
	json_decref(a);
	a = scraper_status(NULL);
	CHECK(json_is_array(a) && json_array_size(a) == 0);
	json_decref(a);
	scraper_free(s);
	config_clear(&none);
	config_clear(&c);
}

/* ---- a target served by the test ---- */

enum serve_mode {
	SERVE_404_FIRST,	/* a 404, then the profile */
	SERVE_REFUSE_SECONDS,	/* ?seconds=N a 400 (net/http/pprof's) */
	SERVE_IGNORE_SECONDS,	/* the profile whatever (a Go before 1.15) */
};

struct served {
	enum serve_mode mode;
	int n;				/* requests answered */
	char paths[8][64];		/* the first ones' */
	uint8_t *profile;
	size_t len;
};

static void
serve_written_cb(struct bufferevent *bev, void *arg)
{
	(void)arg;
	bufferevent_free(bev);
}

/* The first line's path noted, the mode's answer sent.  allocs gets the
 * profile with another gzip MTIME: the same profile, other bytes (not a
 * duplicate of heap's). */
static void
serve_read_cb(struct bufferevent *bev, void *arg)
{
	struct served *sv = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer *out = bufferevent_get_output(bev);
	char line[128] = "", *path = line, *sp;
	int seconds, allocs;

	if (evbuffer_search(in, "\r\n\r\n", 4, NULL).pos == -1)
		return;
	evbuffer_copyout(in, line, sizeof line - 1);
	if ((sp = strchr(line, ' ')) != NULL)
		path = sp + 1;
	if ((sp = strchr(path, ' ')) != NULL)
		*sp = '\0';
	if (sv->n < 8)
		snprintf(sv->paths[sv->n], sizeof sv->paths[0], "%.63s", path);
	seconds = strstr(path, "seconds=") != NULL;
	allocs = strstr(path, "/allocs") != NULL;
	if ((sv->mode == SERVE_404_FIRST && sv->n == 0))
		evbuffer_add_printf(out, "HTTP/1.0 404 Not Found\r\n"
		    "Content-Length: 15\r\n\r\nno such profile");
	else if (sv->mode == SERVE_REFUSE_SECONDS && seconds)
		evbuffer_add_printf(out, "HTTP/1.0 400 Bad Request\r\n\r\n"
		    "\"seconds\" parameter is not supported for this "
		    "profile type\n");
	else {
		evbuffer_add_printf(out, "HTTP/1.0 200 OK\r\nContent-Length: "
		    "%zu\r\n\r\n", sv->len);
		sv->profile[4] = (uint8_t)allocs;
		evbuffer_add(out, sv->profile, sv->len);
	}
	sv->n++;
	bufferevent_setcb(bev, NULL, serve_written_cb, NULL, NULL);
}

static void
serve_accept_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int len, void *arg)
{
	struct bufferevent *bev = bufferevent_socket_new(
	    evconnlistener_get_base(l), fd, BEV_OPT_CLOSE_ON_FREE);

	(void)sa;
	(void)len;
	bufferevent_setcb(bev, serve_read_cb, NULL, NULL, arg);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

/* A scraper of one unix: target served by the test on its loop, its
 * imports on an import thread into a real store. */
struct harness {
	struct testimport ti;
	struct import_worker iw;
	void *iwp;
	struct served sv;
	struct sockaddr_un sun;
	atomic_uint_fast64_t done, failed;
	struct push_env env;
	struct event_base *base;
	struct evconnlistener *l;
	struct jobq *imports;
	struct scraper *s;
	struct config c;
	size_t nstored;			/* imports of each: run's aim */
};

static void
harness_open(struct harness *h, enum serve_mode mode, const char *fixture,
    const char *keys)
{
	char *text;

	memset(h, 0, sizeof *h);
	testimport_open(&h->ti);
	h->iw.store = h->ti.wr;
	h->iw.importer = h->ti.im;
	h->iw.index = h->ti.idx;
	h->iwp = &h->iw;
	h->sv.mode = mode;
	h->sv.profile = testimport_fixture(fixture, &h->sv.len);
	h->sun.sun_family = AF_UNIX;
	snprintf(h->sun.sun_path, sizeof h->sun.sun_path, "%s/pprof.sock",
	    dir);
	unlink(h->sun.sun_path);
	CHECK((h->base = event_base_new()) != NULL);
	CHECK((h->l = evconnlistener_new_bind(h->base, serve_accept_cb,
	    &h->sv, LEV_OPT_CLOSE_ON_FREE, 8, (struct sockaddr *)&h->sun,
	    sizeof h->sun)) != NULL);
	h->imports = jobq_new(h->base, "import", &h->iwp, 1, 8, 0);
	h->env.activity = activity_new();
	h->env.done = &h->done;
	h->env.failed = &h->failed;
	xasprintf(&text, "[scrape ux]\nurl = unix:%s\n%s", h->sun.sun_path,
	    keys);
	load(&h->c, text);
	free(text);
	h->s = scraper_new(h->base, NULL, h->imports, &h->env);
	scraper_apply(h->s, &h->c);
}

/* Every 20 ms: has each profile stored h->nstored (or found them
 * duplicates)? */
static void
wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct harness *h = arg;
	json_t *a = scraper_status(h->s), *ps, *p;
	size_t i;
	int all = 1;

	(void)fd;
	(void)what;
	ps = json_object_get(json_array_get(a, 0), "profiles");
	json_array_foreach(ps, i, p)
		if (json_integer_value(json_object_get(p, "stored")) +
		    json_integer_value(json_object_get(p, "duplicates")) <
		    (json_int_t)h->nstored)
			all = 0;
	if (all)
		event_base_loopbreak(h->base);
	json_decref(a);
}

/* The loop until each profile's imports are n (at most 15 s); their
 * status. */
static json_t *
harness_run(struct harness *h, size_t n)
{
	struct timeval every = { 0, 20000 }, limit = { 15, 0 };
	struct event *tick;
	json_t *a, *ps;

	h->nstored = n;
	tick = event_new(h->base, -1, EV_PERSIST, wait_cb, h);
	event_add(tick, &every);
	event_base_loopexit(h->base, &limit);
	event_base_dispatch(h->base);
	event_free(tick);
	a = scraper_status(h->s);
	ps = json_incref(json_object_get(json_array_get(a, 0), "profiles"));
	json_decref(a);
	return ps;
}

static void
harness_close(struct harness *h)
{
	scraper_stop(h->s);
	jobq_free(h->imports);
	scraper_free(h->s);
	evconnlistener_free(h->l);
	event_base_free(h->base);
	activity_free(h->env.activity);
	config_clear(&h->c);
	free(h->sv.profile);
	testimport_close(&h->ti);
}

/* "type:kind ..." of a stored profile's metrics. */
static void
kinds_of(const struct store_profile_info *v, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < v->nmetrics; i++) {
		n += (size_t)snprintf(buf + n, size - n, "%s%s:%s", i ? " " :
		    "", v->metrics[i].type, kind_name(v->metrics[i].kind));
		CHECK(n < size);
	}
}

/* The first fetch within the interval, the 404, a second after it the
 * 200 and its import on the import thread. */
static void
test_fetch(void)
{
	struct harness h;
	struct activity_snapshot snap;
	struct store_profile_info *v;
	struct error err = { 0 };
	json_t *ps, *p;
	size_t n, i;

	harness_open(&h, SERVE_404_FIRST, "heap.pprof", "profiles = heap\n"
	    "interval = 1s\nlabel = env=test\n");
	ps = harness_run(&h, 1);
	CHECK(h.sv.n == 2);
	p = json_array_get(ps, 0);
	CHECK(json_integer_value(json_object_get(p, "scrapes")) == 2);
	CHECK(json_integer_value(json_object_get(p, "failures")) == 1);
	CHECK(json_integer_value(json_object_get(p, "stored")) == 1);
	CHECK(json_integer_value(json_object_get(p, "duplicates")) == 0);
	CHECK(HAS(json_string_value(json_object_get(p, "last_error")),
	    "/debug/pprof/heap answered 404: no such profile"));
	CHECK(json_is_string(json_object_get(p, "last_error_time")));
	CHECK(json_is_string(json_object_get(p, "last_success")));
	CHECK(json_is_false(json_object_get(p, "in_flight")));
	CHECK(json_integer_value(json_object_get(p, "backoff_s")) == 0);
	CHECK(json_integer_value(json_object_get(p, "last_bytes")) ==
	    (json_int_t)h.sv.len);
	json_decref(ps);

	/* Counted as a push counts, shown as a scrape. */
	CHECK(atomic_load(&h.done) == 1 && atomic_load(&h.failed) == 0);
	activity_snapshot(h.env.activity, &snap);
	CHECK(snap.done[ACT_SCRAPE] == 1 && snap.failed[ACT_SCRAPE] == 0);
	CHECK(store_profiles(h.ti.rd, "ux", &v, &n, &err) == 0 && n == 1);
	CHECK(v[0].nlabels == 2);
	for (i = 0; i < v[0].nlabels; i++)
		CHECK(STREQ(v[0].label_values[i], STREQ(v[0].label_keys[i],
		    "env") ? "test" : h.sun.sun_path));
	CHECK(HAS(v[0].name, "/debug/pprof/heap"));
	store_profile_info_free(v, n);
	harness_close(&h);
}

/* mutex fetched as a delta; the target refuses ?seconds=1 (400): at once
 * the plain fetch, stored (cumulative), no failure, and plain from then
 * on. */
static void
test_refused(void)
{
	struct harness h;
	struct store_profile_info *v;
	struct error err = { 0 };
	char got[256];
	json_t *ps, *p;
	size_t n;

	harness_open(&h, SERVE_REFUSE_SECONDS, "mutex.pprof",
	    "profiles = mutex\ninterval = 2s\n");
	ps = harness_run(&h, 2);
	CHECK(h.sv.n == 3);
	CHECK(STREQ(h.sv.paths[0], "/debug/pprof/mutex?seconds=1"));
	CHECK(STREQ(h.sv.paths[1], "/debug/pprof/mutex"));
	CHECK(STREQ(h.sv.paths[2], "/debug/pprof/mutex"));
	p = json_array_get(ps, 0);
	CHECK(json_integer_value(json_object_get(p, "failures")) == 0);
	CHECK(json_integer_value(json_object_get(p, "scrapes")) == 3);
	CHECK(json_integer_value(json_object_get(p, "duplicates")) == 1);
	CHECK(STREQ(json_string_value(json_object_get(p, "path")),
	    "/debug/pprof/mutex"));
	json_decref(ps);
	CHECK(store_profiles(h.ti.rd, "ux", &v, &n, &err) == 0 && n == 1);
	kinds_of(&v[0], got, sizeof got);
	CHECK(STREQ(got, "contentions:cumulative delay:cumulative"));
	store_profile_info_free(v, n);
	harness_close(&h);
}

/* heap and allocs scraped together: heap keeps inuse_*, allocs alloc_*.
 * allocs is asked for ?seconds=1 and gets a profile without a duration
 * (a Go before 1.15 ignores seconds): stored, and plain from then on. */
static void
test_heap_allocs(void)
{
	struct harness h;
	struct store_profile_info *v;
	struct error err = { 0 };
	char got[256];
	json_t *ps;
	size_t n, i;

	harness_open(&h, SERVE_IGNORE_SECONDS, "heap.pprof",
	    "profiles = heap allocs\ninterval = 2s\n");
	ps = harness_run(&h, 1);
	CHECK(STREQ(json_string_value(json_object_get(json_array_get(ps, 0),
	    "path")), "/debug/pprof/heap"));
	CHECK(STREQ(json_string_value(json_object_get(json_array_get(ps, 1),
	    "path")), "/debug/pprof/allocs"));
	json_decref(ps);
	CHECK(h.sv.n == 2);
	CHECK(STREQ(h.sv.paths[0], "/debug/pprof/heap") ||
	    STREQ(h.sv.paths[1], "/debug/pprof/heap"));
	CHECK(STREQ(h.sv.paths[0], "/debug/pprof/allocs?seconds=1") ||
	    STREQ(h.sv.paths[1], "/debug/pprof/allocs?seconds=1"));
	CHECK(store_profiles(h.ti.rd, "ux", &v, &n, &err) == 0 && n == 2);
	for (i = 0; i < n; i++) {
		kinds_of(&v[i], got, sizeof got);
		CHECK(STREQ(got, HAS(v[i].name, "/heap") ?
		    "inuse_objects:gauge inuse_space:gauge" :
		    "alloc_objects:cumulative alloc_space:cumulative"));
	}
	store_profile_info_free(v, n);
	harness_close(&h);
}

int
main(void)
{
	struct event_base *base;
	char cmd[64];

	CHECK(evthread_use_pthreads() == 0);
	CHECK(mkdtemp(dir) != NULL);
	CHECK((base = event_base_new()) != NULL);
	test_status(base);
	event_base_free(base);
	test_fetch();
	test_refused();
	test_heap_allocs();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	printf("test_scrape: %u checks passed\n", checks);
	return 0;
}
