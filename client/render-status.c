/* render-status.c: GET /v1/status as a few lines a person reads: imports
 * since start by source, the import in flight, the spool's backlog and
 * the last errors. No HTTP here. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

/* A string of the reply ("" if none) safe to print; freed by the
 * caller. */
static char *
render_status_str(json_t *obj, const char *key)
{
	return termsafe(json_string_value(json_object_get(obj, key)), 0);
}

/* 3d4h5m6s, leading zero units left out. */
static void
render_status_uptime(FILE *f, double secs)
{
	int64_t	 s = (int64_t)secs;

	if (s >= 86400)
		fprintf(f, "%" PRId64 "d", s / 86400);
	if (s >= 3600)
		fprintf(f, "%" PRId64 "h", s / 3600 % 24);
	if (s >= 60)
		fprintf(f, "%" PRId64 "m", s / 60 % 60);
	fprintf(f, "%" PRId64 "s", s % 60);
}

/* A backlog's drain: ", <verb> at 3.1MB/s, about 16s left" from
 * drain_bytes_per_s and eta_s, or that the rate is not known. */
static void
render_status_drain(FILE *f, json_t *obj, const char *verb)
{
	char	 b[UNITS_LABEL_MAX];
	json_t	*rate = json_object_get(obj, "drain_bytes_per_s");
	json_t	*eta = json_object_get(obj, "eta_s");

	if (!json_is_integer(rate)) {
		fprintf(f, ", rate not known yet");
		return;
	}
	fprintf(f, ", %s at %s/s", verb, progress_bytes(
	    json_integer_value(rate), b, sizeof b));
	if (json_is_integer(eta)) {
		fprintf(f, ", about ");
		render_status_uptime(f, (double)json_integer_value(eta));
		fprintf(f, " left");
	}
}

static void
render_status_importing(FILE *f, json_t *cur)
{
	char	 b1[UNITS_LABEL_MAX], how[PROGRESS_LINE_MAX];
	char	*src, *what, *scope;
	json_t	*bytes;

	if (!json_is_object(cur)) {
		fprintf(f, "importing: nothing\n");
		return;
	}
	src = render_status_str(cur, "source");
	what = render_status_str(cur, "what");
	scope = render_status_str(cur, "scope");
	fprintf(f, "importing: %s%s%s (scope %s)", src, *what ? " " : "",
	    what, scope);
	bytes = json_object_get(cur, "bytes");
	if (json_is_integer(bytes))
		fprintf(f, ", %s", progress_bytes(
		    json_integer_value(bytes), b1, sizeof b1));
	if (json_is_number(json_object_get(cur, "seconds")))
		fprintf(f, ", for %.1fs", json_number_value(
		    json_object_get(cur, "seconds")));
	/* How far it is, when profd says (older ones do not). */
	if (json_is_integer(json_object_get(cur, "bytes_done"))) {
		progress_import(cur, how, sizeof how);
		fprintf(f, "\n  %s", how);
	}
	fputc('\n', f);
	free(src);
	free(what);
	free(scope);
}

static void
render_status_spool(FILE *f, json_t *sp)
{
	char	 b[UNITS_LABEL_MAX + 8], b2[UNITS_LABEL_MAX], when[64];
	char	*dir;
	int64_t	 n;

	if (!json_is_object(sp)) {
		fprintf(f, "spool: none\n");
		return;
	}
	dir = render_status_str(sp, "dir");
	fprintf(f, "spool: %s%s\n", dir,
	    json_is_true(json_object_get(sp, "scanning")) ? " (listing it)" :
	    "");
	n = render_get_int(sp, "waiting_files");
	if (n > 0)
		snprintf(b, sizeof b, " (%s)", progress_bytes(
		    render_get_int(sp, "waiting_bytes"), b2, sizeof b2));
	else
		b[0] = '\0';
	fprintf(f, "  waiting: %" PRId64 " file%s%s%s, %" PRId64
	    " in flight, %" PRId64 " director%s watched\n", n,
	    n == 1 ? "" : "s", b,
	    json_is_true(json_object_get(sp, "more")) ? " and more" : "",
	    render_get_int(sp, "in_flight"),
	    render_get_int(sp, "watched_dirs"),
	    render_get_int(sp, "watched_dirs") == 1 ? "y" : "ies");
	if (n > 0 || render_get_int(sp, "in_flight") > 0) {
		fprintf(f, "  backlog: %" PRId64 " file%s%s waiting", n,
		    n == 1 ? "" : "s", b);
		render_status_drain(f, sp, "draining");
		fputc('\n', f);
	}
	n = render_get_int(sp, "duplicates");
	fprintf(f, "  imported %" PRId64 " (%" PRId64 " duplicate%s), refused "
	    "%" PRId64 " (into failed/), retried %" PRId64 "; last listed %s\n",
	    render_get_int(sp, "imported") + n, n, n == 1 ? "" : "s",
	    render_get_int(sp, "refused"), render_get_int(sp, "retried"),
	    render_time(sp, "last_scan", when, sizeof when));
	free(dir);
}

/* Shipping to ClickHouse: the lag, the last success and error. */
static void
render_status_fleet(FILE *f, json_t *fl)
{
	char	 b[UNITS_LABEL_MAX], ok[64], bad[64];
	char	*url, *host, *err;
	json_t	*lag = json_object_get(fl, "lag_profiles");
	int64_t	 n = render_get_int(fl, "lag_profiles");

	if (!json_is_object(fl))
		return;
	url = render_status_str(fl, "url");
	host = render_status_str(fl, "host");
	err = render_status_str(fl, "last_error");
	fprintf(f, "fleet: %s as %s\n", url, host);
	if (json_is_null(lag))
		fprintf(f, "  behind: not counted yet\n");
	else {
		fprintf(f, "  behind: %" PRId64 " profile%s (%s) to ship", n,
		    n == 1 ? "" : "s", progress_bytes(render_get_int(fl,
		    "lag_bytes"), b, sizeof b));
		if (n > 0)
			render_status_drain(f, fl, "shipping");
		fputc('\n', f);
	}
	fprintf(f, "  shipped %" PRId64 " profiles (%" PRId64 " sample rows; "
	    "%" PRId64 " found already there), %" PRId64 " failures; last "
	    "success %s\n", render_get_int(fl, "shipped_profiles"),
	    render_get_int(fl, "shipped_rows"),
	    render_get_int(fl, "skipped_profiles"),
	    render_get_int(fl, "failures"),
	    render_time(fl, "last_success", ok, sizeof ok));
	if (render_get_int(fl, "expired_profiles") > 0)
		fprintf(f, "  %" PRId64 " not sent: older than ClickHouse "
		    "keeps (max-age), their day dropped there\n",
		    render_get_int(fl, "expired_profiles"));
	if (render_get_int(fl, "backlog_max") > 0)
		fprintf(f, "  backlog limit %s\n", progress_bytes(
		    render_get_int(fl, "backlog_max"), b, sizeof b));
	if (render_get_int(fl, "unshipped_deleted") > 0)
		fprintf(f, "  %" PRId64 " unshipped profiles deleted (by "
		    "retention past the backlog limit, or DELETE)\n",
		    render_get_int(fl, "unshipped_deleted"));
	if (render_get_int(fl, "max_age_s") > 0) {
		fprintf(f, "  retention in ClickHouse: day partitions past ");
		render_status_uptime(f, (double)render_get_int(fl,
		    "max_age_s"));
		fprintf(f, " dropped: %" PRId64 " so far, last %s\n",
		    render_get_int(fl, "partitions_dropped"),
		    render_time(fl, "last_drop", ok, sizeof ok));
	} else
		fprintf(f, "  retention in ClickHouse: none (no max-age)\n");
	if (err[0] != '\0')
		fprintf(f, "  last error %s: %s (retry in %" PRId64 " s)\n",
		    render_time(fl, "last_error_time", bad, sizeof bad), err,
		    render_get_int(fl, "backoff_s"));
	free(url);
	free(host);
	free(err);
}

/* The scrape targets: per profile its counts, last success, next scrape
 * and last error. */
static void
render_status_scrape(FILE *f, json_t *targets)
{
	char	 ok[64], next[64], bad[64];
	char	*name, *url, *scope, *prof, *err;
	json_t	*t, *p;
	size_t	 i, j;

	json_array_foreach(targets, i, t) {
		name = render_status_str(t, "name");
		url = render_status_str(t, "url");
		scope = render_status_str(t, "scope");
		fprintf(f, "scrape %s: %s into scope %s every %" PRId64 " s\n",
		    name, url, scope, render_get_int(t, "interval_s"));
		json_array_foreach(json_object_get(t, "profiles"), j, p) {
			prof = render_status_str(p, "profile");
			err = render_status_str(p, "last_error");
			fputs("  ", f);
			termsafe_pad(f, prof, 12, 0);
			fprintf(f, " %" PRId64 " stored, %" PRId64
			    " duplicate, %" PRId64 " failed; last success %s; "
			    "next %s\n", render_get_int(p, "stored"),
			    render_get_int(p, "duplicates"),
			    render_get_int(p, "failures"),
			    render_time(p, "last_success", ok, sizeof ok),
			    json_is_true(json_object_get(p, "in_flight")) ?
			    "now" : render_time(p, "next", next, sizeof next));
			if (err[0] != '\0')
				fprintf(f, "  %-12s last error %s: %s\n", "",
				    render_time(p, "last_error_time", bad,
				    sizeof bad), err);
			free(prof);
			free(err);
		}
		free(name);
		free(url);
		free(scope);
	}
}

/* The TCP listener for agents and readers: where, which credentials,
 * TLS, what it got. */
static void
render_status_tcp(FILE *f, json_t *t)
{
	char	*listen, *auth, *rauth, *subject, *until;
	json_t	*cert;

	if (!json_is_object(t))
		return;
	listen = render_status_str(t, "listen");
	auth = render_status_str(t, "auth");
	rauth = render_status_str(t, "read_auth");
	fprintf(f, "tcp listener: %s, credentials: %s", listen, auth);
	if (strcmp(rauth, "none") != 0 && strcmp(rauth, "") != 0)
		fprintf(f, ", readers' credentials: %s", rauth);
	cert = json_object_get(t, "certificate");
	if (json_is_true(json_object_get(t, "tls")) && json_is_object(cert)) {
		subject = render_status_str(cert, "subject");
		until = render_status_str(cert, "not_after");
		fprintf(f, ", TLS (%s, until %s)", subject, until);
		free(subject);
		free(until);
	}
	fprintf(f, "\n");
	fprintf(f, "  %" PRId64 " connection%s open, %" PRId64 " requests: %"
	    PRId64 " without valid credentials (401), %" PRId64 " with the "
	    "other kind's (403), %" PRId64 " to paths it does not serve "
	    "(404)\n", render_get_int(t, "connections"),
	    render_get_int(t, "connections") == 1 ? "" : "s",
	    render_get_int(t, "requests"), render_get_int(t, "unauthorized"),
	    render_get_int(t, "forbidden"), render_get_int(t, "not_found"));
	if (json_is_object(cert) &&
	    json_is_string(json_object_get(cert, "reload_error"))) {
		subject = render_status_str(cert, "reload_error");
		fprintf(f, "  the last SIGHUP kept the certificate: %s\n",
		    subject);
		free(subject);
	}
	free(listen);
	free(auth);
	free(rauth);
}

static void
render_status_errors(FILE *f, json_t *errors, int64_t total)
{
	char	 when[64];
	char	*src, *scope, *what, *msg;
	json_t	*e;
	size_t	 i;

	if (json_array_size(errors) == 0) {
		fprintf(f, "errors: none\n");
		return;
	}
	fprintf(f, "last errors (%" PRId64 " since start), newest first:\n",
	    total);
	json_array_foreach(errors, i, e) {
		src = render_status_str(e, "source");
		scope = render_status_str(e, "scope");
		what = render_status_str(e, "what");
		msg = render_status_str(e, "error");
		fprintf(f, "  %s  ", render_time(e, "time", when,
		    sizeof when));
		termsafe_pad(f, src, 6, 0);
		fprintf(f, "  %s  %s%s%s\n", *scope ? scope : "-", what,
		    *what ? ": " : "", msg);
		free(src);
		free(scope);
		free(what);
		free(msg);
	}
}

int
render_status_json(FILE *f, json_t *reply, char **cause)
{
	static const char	*sources[] = { "push", "upload", "spool",
	    "scrape" };
	json_t			*imports, *src;
	const char		*version;
	size_t			 i;

	imports = json_object_get(reply, "imports");
	version = json_string_value(json_object_get(reply, "version"));
	if (!json_is_object(imports) || version == NULL) {
		if (cause != NULL)
			xasprintf(cause, "unexpected reply from profd: %s",
			    "no imports");
		return -1;
	}
	fprintf(f, "profd %s", version);
	if (json_is_integer(json_object_get(reply, "pid")))
		fprintf(f, ", pid %" PRId64, render_get_int(reply, "pid"));
	fprintf(f, ", up ");
	render_status_uptime(f, json_number_value(json_object_get(reply,
	    "uptime_s")));
	fprintf(f, "\nimports since start: %" PRId64 " done, %" PRId64
	    " failed\n", render_get_int(imports, "done"),
	    render_get_int(imports, "failed"));
	for (i = 0; i < sizeof sources / sizeof sources[0]; i++) {
		if ((src = json_object_get(imports, sources[i])) == NULL)
			continue;
		fprintf(f, "  %-6s  %6" PRId64 " done  %6" PRId64 " failed\n",
		    sources[i], render_get_int(src, "done"),
		    render_get_int(src, "failed"));
	}
	render_status_importing(f, json_object_get(reply, "importing"));
	fprintf(f, "queues: %" PRId64 " import%s waiting, %" PRId64
	    " quer%s waiting\n", render_get_int(reply, "import_queue"),
	    render_get_int(reply, "import_queue") == 1 ? "" : "s",
	    render_get_int(reply, "query_queue"),
	    render_get_int(reply, "query_queue") == 1 ? "y" : "ies");
	render_status_spool(f, json_object_get(reply, "spool"));
	render_status_fleet(f, json_object_get(reply, "fleet"));
	render_status_scrape(f, json_object_get(reply, "scrape"));
	render_status_tcp(f, json_object_get(reply, "tcp"));
	render_status_errors(f, json_object_get(reply, "errors"),
	    render_get_int(reply, "errors_total"));
	return 0;
}
