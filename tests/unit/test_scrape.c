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
	"backoff_s", "last_bytes", NULL,
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

struct served {
	int n;				/* requests answered */
	uint8_t *profile;
	size_t len;
};

static void
serve_written_cb(struct bufferevent *bev, void *arg)
{
	(void)arg;
	bufferevent_free(bev);
}

/* The first request is a 404, the others the profile. */
static void
serve_read_cb(struct bufferevent *bev, void *arg)
{
	struct served *sv = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer *out = bufferevent_get_output(bev);

	if (evbuffer_search(in, "\r\n\r\n", 4, NULL).pos == -1)
		return;
	if (sv->n++ == 0)
		evbuffer_add_printf(out, "HTTP/1.0 404 Not Found\r\n"
		    "Content-Length: 15\r\n\r\nno such profile");
	else {
		evbuffer_add_printf(out, "HTTP/1.0 200 OK\r\nContent-Length: "
		    "%zu\r\n\r\n", sv->len);
		evbuffer_add(out, sv->profile, sv->len);
	}
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

struct wait {
	struct event_base *base;
	struct scraper *s;
	int done;
};

/* Every 20 ms: has the profile been stored? */
static void
wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct wait *w = arg;
	json_t *a = scraper_status(w->s), *p;

	(void)fd;
	(void)what;
	p = json_array_get(json_object_get(json_array_get(a, 0), "profiles"),
	    0);
	if (json_integer_value(json_object_get(p, "stored")) == 1) {
		w->done = 1;
		event_base_loopbreak(w->base);
	}
	json_decref(a);
}

static void
test_fetch(void)
{
	struct testimport ti;
	struct import_worker iw;
	struct served sv = { 0 };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	atomic_uint_fast64_t done = 0, failed = 0;
	struct push_env env = { 0 };
	struct activity_snapshot snap;
	struct store_profile_info *v;
	struct error err = { 0 };
	struct event_base *base;
	struct evconnlistener *l;
	struct jobq *imports;
	struct scraper *s;
	struct event *tick;
	struct timeval every = { 0, 20000 }, limit = { 15, 0 };
	struct wait w = { 0 };
	struct config c;
	json_t *a, *p;
	void *iwp = &iw;
	char *text;
	size_t n, i;

	testimport_open(&ti);
	iw.store = ti.wr;
	iw.importer = ti.im;
	iw.index = ti.idx;
	sv.profile = testimport_fixture("heap.pprof", &sv.len);
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s/pprof.sock", dir);
	CHECK((base = event_base_new()) != NULL);
	CHECK((l = evconnlistener_new_bind(base, serve_accept_cb, &sv,
	    LEV_OPT_CLOSE_ON_FREE, 8, (struct sockaddr *)&sun,
	    sizeof sun)) != NULL);
	imports = jobq_new(base, "import", &iwp, 1, 8, 0);
	env.activity = activity_new();
	env.done = &done;
	env.failed = &failed;
	xasprintf(&text, "[scrape ux]\nurl = unix:%s\nprofiles = heap\n"
	    "interval = 1s\nlabel = env=test\n", sun.sun_path);
	load(&c, text);
	free(text);
	s = scraper_new(base, NULL, imports, &env);
	scraper_apply(s, &c);

	/* The first fetch within the interval, the 404, a second after it
	 * the 200 and its import on the import thread. */
	w.base = base;
	w.s = s;
	tick = event_new(base, -1, EV_PERSIST, wait_cb, &w);
	event_add(tick, &every);
	event_base_loopexit(base, &limit);
	event_base_dispatch(base);
	CHECK(w.done);
	CHECK(sv.n == 2);

	a = scraper_status(s);
	p = json_array_get(json_object_get(json_array_get(a, 0), "profiles"),
	    0);
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
	    (json_int_t)sv.len);
	json_decref(a);

	/* Counted as a push counts, shown as a scrape. */
	CHECK(atomic_load(&done) == 1 && atomic_load(&failed) == 0);
	activity_snapshot(env.activity, &snap);
	CHECK(snap.done[ACT_SCRAPE] == 1 && snap.failed[ACT_SCRAPE] == 0);
	CHECK(store_profiles(ti.rd, "ux", &v, &n, &err) == 0 && n == 1);
	CHECK(v[0].nlabels == 2);
	for (i = 0; i < v[0].nlabels; i++)
		CHECK(STREQ(v[0].label_values[i], STREQ(v[0].label_keys[i],
		    "env") ? "test" : sun.sun_path));
	CHECK(HAS(v[0].name, "/debug/pprof/heap"));
	store_profile_info_free(v, n);

	scraper_stop(s);
	jobq_free(imports);
	scraper_free(s);
	event_free(tick);
	evconnlistener_free(l);
	event_base_free(base);
	activity_free(env.activity);
	config_clear(&c);
	free(sv.profile);
	testimport_close(&ti);
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
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	printf("test_scrape: %u checks passed\n", checks);
	return 0;
}
