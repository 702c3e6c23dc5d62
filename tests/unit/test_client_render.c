/* test_client_render.c: profctl's text output. The top table is checked
 * byte for byte against what `go tool pprof -top` printed for the fixture
 * profiles (tests/fixtures/expected/<profile>.<type>.{tsv,top}) and for a
 * few reports with cut rows captured from pprof by hand. */

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <sys/types.h>

#include <assert.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

static int failures;

static char *
slurp(const char *path)
{
	FILE	*f;
	char	*p;
	long	 n;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	p = xmalloc((size_t)n + 1);
	assert(fread(p, 1, (size_t)n, f) == (size_t)n);
	p[n] = '\0';
	fclose(f);
	return p;
}

/* Compare two texts; on a difference say where. */
static void
same_text(const char *what, const char *want, const char *got)
{
	const char	*w = want, *g = got, *wn, *gn;
	int		 line = 1;

	if (strcmp(want, got) == 0)
		return;
	failures++;
	for (;;) {
		wn = strchr(w, '\n');
		gn = strchr(g, '\n');
		if (wn == NULL || gn == NULL || wn - w != gn - g ||
		    memcmp(w, g, (size_t)(wn - w)) != 0)
			break;
		w = wn + 1;
		g = gn + 1;
		line++;
	}
	fprintf(stderr, "FAIL %s: line %d differs\n  want: %.*s\n  got:  %.*s\n",
	    what, line,
	    (int)(wn != NULL ? wn - w : (long)strlen(w)), w,
	    (int)(gn != NULL ? gn - g : (long)strlen(g)), g);
}

static char *
render_to_string(const struct render_top *t)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*f;

	assert((f = open_memstream(&buf, &len)) != NULL);
	render_top(f, t);
	fclose(f);
	return buf;
}

/* The fixtures have no unit: it follows from the Go sample type. */
static const char *
unit_of(const char *type)
{
	size_t	n = strlen(type);

	if (strcmp(type, "cpu") == 0 || strcmp(type, "delay") == 0)
		return "nanoseconds";
	if (n > 6 && strcmp(type + n - 6, "_space") == 0)
		return "bytes";
	return "count";
}

/*
 * One fixture: the rows of base.tsv through render_top must print as the
 * table of base.top, from its "Showing nodes" line on. The API has no inline
 * information, so where pprof marked a row " (inline)" or
 * " (partial-inline)" the marker is taken from the .top and handed to the
 * renderer; everything else comes from the .tsv alone.
 */
static void
check_fixture(const char *dir, const char *base)
{
	struct render_top	 t;
	struct render_top_row	*rows = NULL;
	char			 path[4096], unit[64] = "", *tsv, *top;
	char			*want, *got, *line, *next, *tab, *tab2, *wl;
	const char		*type, *markers[] = { "partial-inline",
				    "inline" };
	size_t			 nrows = 0, i, k, len, mlen;
	int			 have_total = 0;

	memset(&t, 0, sizeof t);
	snprintf(path, sizeof path, "%s/%s.tsv", dir, base);
	assert((tsv = slurp(path)) != NULL);
	snprintf(path, sizeof path, "%s/%s.top", dir, base);
	if ((top = slurp(path)) == NULL) {
		fprintf(stderr, "FAIL %s: no .top beside the .tsv\n", base);
		failures++;
		free(tsv);
		return;
	}

	for (line = tsv; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((tab = strchr(line, '\t')) == NULL)
			continue;
		*tab++ = '\0';
		if (strcmp(line, "#total") == 0) {
			t.total = strtoll(tab, NULL, 10);
			have_total = 1;
		} else if (strcmp(line, "#unit") == 0)
			snprintf(unit, sizeof unit, "%s", tab);
		else if (line[0] != '#') {
			assert((tab2 = strchr(tab, '\t')) != NULL);
			*tab2++ = '\0';
			rows = xreallocarray(rows, nrows + 1, sizeof *rows);
			rows[nrows].name = line;
			rows[nrows].flat = strtoll(tab, NULL, 10);
			rows[nrows].cum = strtoll(tab2, NULL, 10);
			rows[nrows].inl = NULL;
			nrows++;
		}
	}
	assert(have_total);
	if (*unit == '\0') {
		type = strchr(base, '.');
		assert(type != NULL);
		snprintf(unit, sizeof unit, "%s", unit_of(type + 1));
	}

	want = strstr(top, "Showing nodes accounting for ");
	assert(want != NULL && (want == top || want[-1] == '\n'));

	/* The inline markers, row by row, after the column header. */
	wl = strstr(want, "      flat  flat%   sum%        cum   cum%\n");
	assert(wl != NULL);
	wl = strchr(wl, '\n') + 1;
	for (i = 0; i < nrows && *wl != '\0'; i++) {
		next = strchr(wl, '\n');
		len = next != NULL ? (size_t)(next - wl) : strlen(wl);
		for (k = 0; k < 2; k++) {
			mlen = strlen(markers[k]) + 3;
			if (len > mlen && wl[len - mlen] == ' ' &&
			    wl[len - mlen + 1] == '(' &&
			    strncmp(wl + len - mlen + 2, markers[k],
			    mlen - 3) == 0 && wl[len - 1] == ')') {
				rows[i].inl = markers[k];
				break;
			}
		}
		wl = next != NULL ? next + 1 : wl + len;
	}

	t.unit = unit;
	t.rows = rows;
	t.nrows = t.rows_total = nrows;
	got = render_to_string(&t);
	same_text(base, want, got);
	printf("fixture %-28s %zu rows, unit %s\n", base, nrows, unit);

	free(got);
	free(rows);
	free(tsv);
	free(top);
}

static void
test_fixtures(void)
{
	const char	*dir = FIXTURES_DIR "/expected";
	struct dirent	*de;
	DIR		*d;
	char		 base[1024];
	size_t		 n, count = 0;

	if ((d = opendir(dir)) == NULL) {
		fprintf(stderr, "FAIL cannot open %s\n", dir);
		failures++;
		return;
	}
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n <= 4 || strcmp(de->d_name + n - 4, ".tsv") != 0 ||
		    n - 4 >= sizeof base)
			continue;
		memcpy(base, de->d_name, n - 4);
		base[n - 4] = '\0';
		check_fixture(dir, base);
		count++;
	}
	closedir(d);
	if (count == 0) {
		fprintf(stderr, "FAIL no fixtures in %s\n", dir);
		failures++;
	}
}

/* Reports pprof cut with -nodecount/-nodefraction (generated profiles,
 * outputs copied from `go tool pprof -top`). */
static void
test_cut(void)
{
	static const struct render_top_row bytes_rows[] = {
		{ "pkg.f10", -6395759033734LL, -6395759033734LL, NULL },
		{ "pkg.f6", 5357264006570LL, 5357264008600LL, NULL },
		{ "pkg.f14", 5483958788LL, 5483958788LL, NULL },
		{ "pkg.f31", -647001369LL, -6396406035103LL, NULL },
		{ "pkg.f2", 6999993LL, 5357271006563LL, NULL },
	};
	static const struct render_top bytes_top = {
		"bytes", 11759231023834LL, bytes_rows, 5, 10, 17,
		58796155119LL
	};
	static const char bytes_want[] =
	    "Showing nodes accounting for -985766.48MB, 8.79% of "
	    "11214476.61MB total\n"
	    "Dropped 17 nodes (cum <= 56072.38MB)\n"
	    "Showing top 5 nodes out of 10\n"
	    "      flat  flat%   sum%        cum   cum%\n"
	    "-6099471.12MB 54.39% 54.39% -6099471.12MB 54.39%  pkg.f10\n"
	    "5109085.09MB 45.56%  8.83% 5109085.09MB 45.56%  pkg.f6\n"
	    " 5229.91MB 0.047%  8.78%  5229.91MB 0.047%  pkg.f14\n"
	    " -617.03MB 0.0055%  8.79% -6100088.15MB 54.39%  pkg.f31\n"
	    "    6.68MB 6e-05%  8.79% 5109091.76MB 45.56%  pkg.f2\n";

	static const struct render_top_row flat_rows[] = {
		{ "pkg.f1", 844614210547LL, 2010080170137LL, NULL },
		{ "apkg.f5", 604285660392LL, 1167791829228LL, NULL },
		{ "pkg.f9", 496647091048LL, 497648092456LL, NULL },
		{ "pkg.f10", 68316591434LL, 68317590842LL, NULL },
	};
	static const struct render_top flat_top = {
		"nanoseconds", 2013866559411LL, flat_rows, 4, 10, 0, 0
	};
	static const char flat_want[] =
	    "Showing nodes accounting for 2013.86s, 100% of 2013.87s total\n"
	    "Showing top 4 nodes out of 10\n"
	    "      flat  flat%   sum%        cum   cum%\n"
	    "   844.61s 41.94% 41.94%   2010.08s 99.81%  pkg.f1\n"
	    "   604.29s 30.01% 71.95%   1167.79s 57.99%  apkg.f5\n"
	    "   496.65s 24.66% 96.61%    497.65s 24.71%  pkg.f9\n"
	    "    68.32s  3.39%   100%     68.32s  3.39%  pkg.f10\n";

	/* -cum of the same profile: a 1ns row pulls the unit down to us. */
	static const struct render_top_row cum_rows[] = {
		{ "pkg.f1", 844614210547LL, 2010080170137LL, NULL },
		{ "apkg.f5", 604285660392LL, 1167791829228LL, NULL },
		{ "apkg.f4", 1000LL, 845613740146LL, NULL },
		{ "pkg.f7", 1229540LL, 564039307452LL, NULL },
	};
	static const struct render_top cum_top = {
		"nanoseconds", 2013866559411LL, cum_rows, 4, 10, 0, 0
	};
	static const char cum_want[] =
	    "Showing nodes accounting for 1448901101.48us, 71.95% of "
	    "2013866559.41us total\n"
	    "Showing top 4 nodes out of 10\n"
	    "      flat  flat%   sum%        cum   cum%\n"
	    "844614210.55us 41.94% 41.94% 2010080170.14us 99.81%  pkg.f1\n"
	    "604285660.39us 30.01% 71.95% 1167791829.23us 57.99%  apkg.f5\n"
	    "       1us 5e-08% 71.95% 845613740.15us 41.99%  apkg.f4\n"
	    " 1229.54us 6.1e-05% 71.95% 564039307.45us 28.01%  pkg.f7\n";

	static const struct render_top_row count_rows[] = {
		{ "apkg.f23", -1073741824LL, -1073741824LL, NULL },
		{ "apkg.f18", 999999999LL, -73741825LL, NULL },
		{ "pkg.f13", 860248646LL, 859702833LL, NULL },
		{ "pkg.f27", -658558LL, -658558LL, NULL },
		{ "pkg.f14", -545813LL, -545813LL, NULL },
		{ "pkg.f5", 127713LL, 127713LL, NULL },
	};
	static const struct render_top count_top = {
		"count", 2935356488LL, count_rows, 6, 24, 0, 0
	};
	static const char count_want[] =
	    "Showing nodes accounting for 785430163, 26.76% of 2935356488 "
	    "total\n"
	    "Showing top 6 nodes out of 24\n"
	    "      flat  flat%   sum%        cum   cum%\n"
	    "-1073741824 36.58% 36.58% -1073741824 36.58%  apkg.f23\n"
	    " 999999999 34.07%  2.51%  -73741825  2.51%  apkg.f18\n"
	    " 860248646 29.31% 26.79%  859702833 29.29%  pkg.f13\n"
	    "   -658558 0.022% 26.77%    -658558 0.022%  pkg.f27\n"
	    "   -545813 0.019% 26.75%    -545813 0.019%  pkg.f14\n"
	    "    127713 0.0044% 26.76%     127713 0.0044%  pkg.f5\n";

	/* A profile without samples. */
	static const struct render_top empty_top = {
		"nanoseconds", 0, NULL, 0, 0, 0, 0
	};
	static const char empty_want[] =
	    "Showing nodes accounting for 0, 0% of 0 total\n"
	    "      flat  flat%   sum%        cum   cum%\n";

	/* One dropped node: "node", not "nodes". */
	static const struct render_top_row one_rows[] = {
		{ "main.f", 3000000, 3000000, "inline" },
	};
	static const struct render_top one_top = {
		"nanoseconds", 3000001, one_rows, 1, 1, 1, 15000
	};
	static const char one_want[] =
	    "Showing nodes accounting for 3ms, 100% of 3ms total\n"
	    "Dropped 1 node (cum <= 0.01ms)\n"
	    "      flat  flat%   sum%        cum   cum%\n"
	    "       3ms   100%   100%        3ms   100%  main.f (inline)\n";

	const struct {
		const char		*name;
		const struct render_top	*top;
		const char		*want;
	} cases[] = {
		{ "bytes, dropped and cut", &bytes_top, bytes_want },
		{ "nanoseconds, cut", &flat_top, flat_want },
		{ "nanoseconds, cum, cut", &cum_top, cum_want },
		{ "count, negative, cut", &count_top, count_want },
		{ "empty", &empty_top, empty_want },
		{ "one dropped node", &one_top, one_want },
	};
	char	*got;
	size_t	 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		got = render_to_string(cases[i].top);
		same_text(cases[i].name, cases[i].want, got);
		free(got);
	}
}

/* pprof's selectOutputUnit. */
static void
test_output_unit(void)
{
	struct render_top_row	rows[2];
	struct render_top	t = { "nanoseconds", 0, rows, 0, 0, 0, 0 };

	assert(strcmp(render_output_unit(&t), "minimum") == 0);
	t.nrows = 1;
	rows[0] = (struct render_top_row){ "a", 0, 0, NULL };
	t.total = 2000000000;
	assert(strcmp(render_output_unit(&t), "s") == 0);
	t.total = 10000000000LL;	/* 10s */
	rows[0].flat = 5000000;		/* 5ms: 100x is 500ms, still ms */
	assert(strcmp(render_output_unit(&t), "ms") == 0);
	rows[0].flat = 20000000;	/* 20ms: 100x is 2s, prints 0.02s */
	assert(strcmp(render_output_unit(&t), "s") == 0);
	rows[0].flat = 200000000;	/* 200ms: not 100x under 10s */
	assert(strcmp(render_output_unit(&t), "ms") == 0);
	rows[0].flat = 0;
	rows[0].cum = -30000;		/* cum when flat is 0, by magnitude: */
	assert(strcmp(render_output_unit(&t), "ms") == 0); /* 30us x 100 */
	t.unit = "count";
	assert(strcmp(render_output_unit(&t), "count") == 0);
	t.unit = "objects";
	assert(strcmp(render_output_unit(&t), "objects") == 0);
	t.unit = "bytes";
	t.total = 1 << 20;
	rows[0].cum = 2048;
	assert(strcmp(render_output_unit(&t), "kB") == 0);
}

static char *
render_json_string(const char *json,
    int (*fn)(FILE *, json_t *, char **), int *rc)
{
	json_t	*j;
	char	*buf = NULL, *cause = NULL;
	size_t	 len = 0;
	FILE	*f;

	assert((j = json_loads(json, 0, NULL)) != NULL);
	assert((f = open_memstream(&buf, &len)) != NULL);
	*rc = fn(f, j, &cause);
	fclose(f);
	json_decref(j);
	if (*rc != 0) {
		assert(cause != NULL);
		free(buf);
		return cause;
	}
	assert(cause == NULL);
	return buf;
}

static void
test_json(void)
{
	char	*got;
	int	 rc;

	got = render_json_string("{\"scope\": \"svc-a\", \"metric\": "
	    "{\"type\": \"cpu\", \"unit\": \"nanoseconds\"}, \"unit\": "
	    "\"nanoseconds\", \"total\": 3000000000, \"profiles\": 2, "
	    "\"sort\": \"flat\", \"rows_total\": 3, \"rows\": ["
	    "{\"function\": \"main.burn\", \"flat\": 2000000000, "
	    "\"cum\": 2000000000}, {\"function\": \"main.main\", "
	    "\"flat\": 990000000, \"cum\": 3000000000}]}",
	    render_top_json, &rc);
	assert(rc == 0);
	same_text("top json",
	    "Scope: svc-a (2 profiles)\n"
	    "Type: cpu\n"
	    "Showing nodes accounting for 2990ms, 99.67% of 3000ms total\n"
	    "Showing top 2 nodes out of 3\n"
	    "      flat  flat%   sum%        cum   cum%\n"
	    "    2000ms 66.67% 66.67%     2000ms 66.67%  main.burn\n"
	    "     990ms 33.00% 99.67%     3000ms   100%  main.main\n", got);
	free(got);

	got = render_json_string("{\"scope\": \"x\", \"rows\": []}",
	    render_top_json, &rc);
	assert(rc == -1);
	assert(strstr(got, "unexpected reply") != NULL);
	free(got);

	got = render_json_string("{\"scopes\": ["
	    "{\"name\": \"svc-a\", \"profiles\": 3, \"metrics\": ["
	    "{\"type\": \"samples\", \"unit\": \"count\"}, "
	    "{\"type\": \"cpu\", \"unit\": \"nanoseconds\"}], "
	    "\"first_time\": \"2024-05-01T10:00:00.5Z\", "
	    "\"first_time_ns\": 1714557600500000000, "
	    "\"last_time\": \"2024-05-01T11:30:00Z\", "
	    "\"last_time_ns\": 1714563000000000000}, "
	    "{\"name\": \"web\", \"profiles\": 12, \"metrics\": [], "
	    "\"first_time\": null, \"first_time_ns\": null}]}",
	    render_scopes_json, &rc);
	assert(rc == 0);
	same_text("scopes",
	    "NAME   PROFILES  METRICS      FIRST                 LAST\n"
	    "svc-a         3  samples,cpu  2024-05-01T10:00:00Z  "
	    "2024-05-01T11:30:00Z\n"
	    "web          12  -            -                     -\n", got);
	free(got);

	got = render_json_string("{\"scopes\": []}", render_scopes_json, &rc);
	assert(rc == 0);
	same_text("no scopes", "NAME  PROFILES  METRICS  FIRST  LAST\n", got);
	free(got);

	got = render_json_string("{\"scope\": \"svc-a\", \"profiles\": ["
	    "{\"id\": 7, \"name\": \"cpu.pprof\", \"format\": \"pprof\", "
	    "\"time\": \"2024-05-01T10:00:00Z\", "
	    "\"time_ns\": 1714557600000000000, \"duration_ns\": 10010000000, "
	    "\"samples\": 1234, \"metrics\": [{\"type\": \"samples\", "
	    "\"unit\": \"count\"}, {\"type\": \"cpu\", \"unit\": "
	    "\"nanoseconds\"}], \"labels\": {\"host\": \"a1\", "
	    "\"env\": \"prod\"}}, "
	    "{\"id\": 12, \"name\": \"\", \"format\": \"pprof\", "
	    "\"time_ns\": 0, \"duration_ns\": 0, \"samples\": 5, "
	    "\"metrics\": [{\"type\": \"alloc_space\", \"unit\": \"bytes\"}], "
	    "\"labels\": {\"n\": 3, \"bad\": \"a\\tb\"}}]}",
	    render_profiles_json, &rc);
	assert(rc == 0);
	same_text("profiles",
	    "ID  TIME                  DURATION  FORMAT  SAMPLES  METRICS"
	    "      NAME       LABELS\n"
	    " 7  2024-05-01T10:00:00Z    10.01s  pprof      1234  "
	    "samples,cpu  cpu.pprof  host=a1,env=prod\n"
	    "12  -                            -  pprof         5  "
	    "alloc_space  -          n=3,bad=a\\tb\n", got);
	free(got);

	/* Each run of metrics of one kind followed by it (profd with
	 * kinds); a heap profile holds two. */
	got = render_json_string("{\"scope\": \"go\", \"profiles\": ["
	    "{\"id\": 1, \"name\": \"cpu\", \"format\": \"pprof\", "
	    "\"time_ns\": 0, \"duration_ns\": 0, \"samples\": 1, "
	    "\"metrics\": [{\"type\": \"samples\", \"unit\": \"count\", "
	    "\"kind\": \"delta\"}, {\"type\": \"cpu\", \"unit\": "
	    "\"nanoseconds\", \"kind\": \"delta\"}], \"labels\": {}}, "
	    "{\"id\": 2, \"name\": \"heap\", \"format\": \"pprof\", "
	    "\"time_ns\": 0, \"duration_ns\": 0, \"samples\": 2, "
	    "\"metrics\": [{\"type\": \"alloc_objects\", \"kind\": "
	    "\"cumulative\"}, {\"type\": \"alloc_space\", \"kind\": "
	    "\"cumulative\"}, {\"type\": \"inuse_objects\", \"kind\": "
	    "\"gauge\"}, {\"type\": \"inuse_space\", \"kind\": "
	    "\"gauge\"}], \"labels\": {}}]}", render_profiles_json, &rc);
	assert(rc == 0);
	same_text("profiles with kinds",
	    "ID  TIME  DURATION  FORMAT  SAMPLES  METRICS"
	    "                                                                   "
	    "NAME  LABELS\n"
	    " 1  -            -  pprof         1  samples,cpu (delta)"
	    "                                                       "
	    "cpu   -\n"
	    " 2  -            -  pprof         2  alloc_objects,alloc_space "
	    "(cumulative) inuse_objects,inuse_space (gauge)  heap  -\n", got);
	free(got);

	got = render_json_string("{\"error\": \"x\"}", render_profiles_json,
	    &rc);
	assert(rc == -1);
	free(got);
}

/* profctl status: the spool's and the fleet's backlog with the rate it
 * drains at and the time left, or that the rate is not known yet; no
 * backlog line with nothing waiting. */
static void
test_status_drain(void)
{
	static const char *head = "{\"version\": \"1\", \"uptime_s\": 5, "
	    "\"imports\": {\"done\": 0, \"failed\": 0}, ";
	char	*json, *got;
	int	 rc;

	xasprintf(&json, "%s\"spool\": {\"dir\": \"/s\", \"waiting_files\": "
	    "12, \"waiting_bytes\": 50541363, \"in_flight\": 2, "
	    "\"drain_bytes_per_s\": 3250585, \"eta_s\": 16}, \"fleet\": "
	    "{\"url\": \"http://ch\", \"host\": \"h\", \"lag_profiles\": 230, "
	    "\"lag_bytes\": 1258291, \"drain_bytes_per_s\": 409600, "
	    "\"eta_s\": 125}}", head);
	got = render_json_string(json, render_status_json, &rc);
	assert(rc == 0);
	assert(strstr(got, "\n  backlog: 12 files (48.20MB) waiting, "
	    "draining at 3.10MB/s, about 16s left\n") != NULL);
	assert(strstr(got, "\n  behind: 230 profiles (1.20MB) to ship, "
	    "shipping at 400kB/s, about 2m5s left\n") != NULL);
	free(got);
	free(json);

	xasprintf(&json, "%s\"spool\": {\"dir\": \"/s\", \"waiting_files\": "
	    "1, \"waiting_bytes\": 10, \"in_flight\": 0, "
	    "\"drain_bytes_per_s\": null, \"eta_s\": null}, \"fleet\": "
	    "{\"url\": \"http://ch\", \"host\": \"h\", \"lag_profiles\": 1, "
	    "\"lag_bytes\": 10, \"drain_bytes_per_s\": null, "
	    "\"eta_s\": null}}", head);
	got = render_json_string(json, render_status_json, &rc);
	assert(rc == 0);
	assert(strstr(got, "\n  backlog: 1 file (10B) waiting, rate not "
	    "known yet\n") != NULL);
	assert(strstr(got, "\n  behind: 1 profile (10B) to ship, rate not "
	    "known yet\n") != NULL);
	free(got);
	free(json);

	xasprintf(&json, "%s\"spool\": {\"dir\": \"/s\", \"waiting_files\": "
	    "0, \"waiting_bytes\": 0, \"in_flight\": 0, "
	    "\"drain_bytes_per_s\": 500, \"eta_s\": null}, \"fleet\": "
	    "{\"url\": \"http://ch\", \"host\": \"h\", \"lag_profiles\": 0, "
	    "\"lag_bytes\": 0, \"drain_bytes_per_s\": 500, "
	    "\"eta_s\": null}}", head);
	got = render_json_string(json, render_status_json, &rc);
	assert(rc == 0);
	assert(strstr(got, "backlog:") == NULL);
	assert(strstr(got, "\n  behind: 0 profiles (0) to ship\n") != NULL);
	free(got);
	free(json);
}

/* profctl status: the import in flight's progress in samples when they
 * are known ahead, else in bytes, then storing; an older profd's reply
 * (no progress members) as before. */
static void
test_status_importing(void)
{
	static const struct {
		const char *cur, *want;
	} cases[] = {
		{ "\"phase\": \"samples\", \"seconds\": 4.0, \"bytes_done\": "
		  "41199510, \"bytes_total\": 41199510, \"samples_done\": "
		  "1204224, \"samples_total\": 3400000",
		  "importing: push big.pb.gz (scope s), 27.04MB, for 4.0s\n"
		  "  1.2 M of 3.4 M samples (35%), 301.1 k samples/s\n" },
		{ "\"phase\": \"reading\", \"seconds\": 2.0, \"bytes_done\": "
		  "31457280, \"bytes_total\": 41943040, \"samples_done\": "
		  "950, \"samples_total\": null",
		  "importing: push big.pb.gz (scope s), 27.04MB, for 2.0s\n"
		  "  30MB of 40MB (75%), 15MB/s, 950 samples\n" },
		{ "\"phase\": \"storing\", \"seconds\": 9.0, \"bytes_done\": "
		  "1, \"bytes_total\": null, \"samples_done\": 720000, "
		  "\"samples_total\": 720000",
		  "importing: push big.pb.gz (scope s), 27.04MB, for 9.0s\n"
		  "  storing 720.0 k samples\n" },
		{ "\"seconds\": 9.0",
		  "importing: push big.pb.gz (scope s), 27.04MB, for 9.0s\n" },
	};
	char	*json, *got;
	size_t	 i;
	int	 rc;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		xasprintf(&json, "{\"version\": \"1\", \"uptime_s\": 5, "
		    "\"imports\": {\"done\": 0, \"failed\": 0}, "
		    "\"importing\": {\"source\": \"push\", \"what\": "
		    "\"big.pb.gz\", \"scope\": \"s\", \"bytes\": 28350000, %s}}",
		    cases[i].cur);
		got = render_json_string(json, render_status_json, &rc);
		assert(rc == 0);
		if (strstr(got, cases[i].want) == NULL) {
			fprintf(stderr, "importing %zu: want\n%s\ngot\n%s\n", i,
			    cases[i].want, got);
			failures++;
		}
		free(got);
		free(json);
	}
}

int
main(void)
{
	test_status_importing();
	test_status_drain();
	test_output_unit();
	test_cut();
	test_json();
	test_fixtures();
	if (failures != 0) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
