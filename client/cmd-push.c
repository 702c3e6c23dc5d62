/* cmd-push.c: send profile files to profd, one POST /v1/profiles each. */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_push_exec(struct client *, int, char **);

const struct cmd_entry cmd_push_entry = {
	"push",
	"push FILE... --scope S [--label K=V]... "
	"[--format auto|pprof|perfetto|folded|perf-script] [--name N] "
	"[--metric TYPE[/UNIT]] [--kind METRIC=delta|cumulative|gauge]... "
	"[--bucket SECONDS] [--progress|--no-progress]",
	cmd_push_exec
};

struct cmd_push_args {
	const char	 *scope;
	const char	 *format;
	const char	 *name;
	const char	 *metric;
	const char	 *bucket;
	const char	**labels;
	size_t		  nlabels;
	const char	**kinds;	/* METRIC=KIND */
	size_t		  nkinds;
	const char	**files;	/* the operands */
	size_t		  nfiles;
	size_t		  nstdin;	/* how many are "-" */
	int		  progress;	/* -1: on a terminal; 0 off; 1 on */
	const char	 *shown;	/* the result line's subject, else the path */
};

/*
 * The live line of one file on a terminal: its upload's bytes, then its
 * import's progress as GET /v1/status says it, polled while the push
 * waits for its reply.  Its import is the one of its scope and name that
 * came from a push or an upload (profd imports one at a time).
 */
struct push_live {
	struct progress	 line;
	struct client	*c;
	const char	*path;		/* its base name: the line is short */
	const char	*scope, *name;	/* name "" when none was given */
	uint64_t	 base;		/* an upload's bytes sent before */
	uint64_t	 size;		/* the file's, 0 when not known */
	int64_t		 start_ns;
	int		 importing;	/* the request imports (not a PUT) */
};

static void
push_live_sent(void *arg, uint64_t done, uint64_t total)
{
	struct push_live	*l = arg;
	uint64_t		 all = l->size > 0 ? l->size : total;
	double			 secs;
	char			 a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	char			 r[UNITS_LABEL_MAX];

	done += l->base;
	secs = (double)(progress_now_ns() - l->start_ns) / 1e9;
	progress_show(&l->line, done == all, "%s: uploading %s of %s (%d%%), "
	    "%s/s", l->path, progress_bytes((int64_t)done, a, sizeof a),
	    progress_bytes((int64_t)all, b, sizeof b), all > 0 ?
	    (int)(done * 100 / all) : 100, progress_bytes(secs > 0 ?
	    progress_per_s((int64_t)done, secs) : 0, r, sizeof r));
}

/* Is cur (GET /v1/status's importing) this push's import? */
static int
push_live_mine(const struct push_live *l, json_t *cur)
{
	const char	*src = json_string_value(json_object_get(cur, "source"));
	const char	*scope = json_string_value(json_object_get(cur, "scope"));
	const char	*what = json_string_value(json_object_get(cur, "what"));

	return src != NULL && scope != NULL && what != NULL &&
	    (strcmp(src, "push") == 0 || strcmp(src, "upload") == 0) &&
	    strcmp(scope, l->scope) == 0 && strcmp(what, l->name) == 0;
}

static void
push_live_waiting(void *arg)
{
	struct push_live	*l = arg;
	struct http_reply	 reply;
	json_t			*cur;
	char			 how[PROGRESS_LINE_MAX];

	if (!l->importing || client_try_get(l->c, "/v1/status", &reply) != 0)
		return;
	cur = json_object_get(reply.json, "importing");
	if (json_is_object(cur) && push_live_mine(l, cur)) {
		progress_import(cur, how, sizeof how);
		progress_show(&l->line, 1, "%s: %s%s", l->path,
		    strncmp(how, "storing", 7) == 0 ? "" : "importing ", how);
	} else
		progress_show(&l->line, 1, "%s: waiting to import (%" PRId64
		    " queued%s)", l->path, render_get_int(reply.json,
		    "import_queue"), json_is_object(cur) ? ", another "
		    "importing" : "");
	http_reply_clear(&reply);
}

static void
push_live_answered(void *arg)
{
	struct push_live	*l = arg;

	progress_clear(&l->line);
}

/* All of a file ("-" is stdin) in memory. */
static int
cmd_push_read(const char *path, char **data, size_t *len)
{
	FILE	*f;
	char	*p = NULL;
	size_t	 n = 0, cap = 0, got;
	int	 error;

	if (strcmp(path, "-") == 0)
		f = stdin;
	else if ((f = fopen(path, "rb")) == NULL)
		return -1;
	errno = 0;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap == 0 ? 262144 : cap * 2;
			p = xreallocarray(p, cap, 1);
		}
		got = fread(p + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	error = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
	if (f != stdin)
		fclose(f);
	if (error != 0) {
		free(p);
		errno = error;
		return -1;
	}
	*data = p;
	*len = n;
	return 0;
}

/* The source name profd is told: --name, else the file's base name. */
static char *
cmd_push_name(const struct cmd_push_args *a, const char *path)
{
	char	*copy, *name;

	if (a->name != NULL)
		return xstrdup(a->name);
	if (strcmp(path, "-") == 0)
		return NULL;
	copy = xstrdup(path);
	name = xstrdup(basename(copy));
	free(copy);
	return name;
}

/*
 * A regular file past this size goes in chunks through /v1/uploads, so
 * neither profctl nor profd holds it whole; profd then imports it
 * streaming from its copy.
 */
#define PUSH_CHUNKED_OVER	(32u << 20)
#define PUSH_CHUNK		(8u << 20)

/* Upload the file in chunks; *id is the upload to import. */
static int
cmd_push_upload(struct client *c, FILE *f, const char *path,
    struct push_live *live, char **id)
{
	struct http_reply	 reply;
	json_t			*v;
	char			*buf, *url;
	uint64_t		 offset = 0;
	size_t			 got;
	int			 rc;

	*id = NULL;
	if ((rc = client_call(c, "POST", "/v1/uploads", "", 0, &reply,
	    path)) != PROFCTL_EXIT_OK)
		return rc;
	v = json_object_get(reply.json, "upload_id");
	if (!json_is_string(v)) {
		termsafe_line(stderr, "profctl: %s: unexpected reply from "
		    "profd: no upload_id", path);
		http_reply_clear(&reply);
		return PROFCTL_EXIT_REFUSED;
	}
	*id = xstrdup(json_string_value(v));
	http_reply_clear(&reply);
	buf = xmalloc(PUSH_CHUNK);
	while ((got = fread(buf, 1, PUSH_CHUNK, f)) > 0) {
		xasprintf(&url, "/v1/uploads?id=%s&offset=%llu", *id,
		    (unsigned long long)offset);
		live->base = offset;
		rc = client_call(c, "PUT", url, buf, got, &reply, path);
		free(url);
		if (rc != PROFCTL_EXIT_OK)
			break;
		http_reply_clear(&reply);
		offset += got;
	}
	live->base = 0;
	progress_clear(&live->line);
	if (rc == PROFCTL_EXIT_OK && ferror(f)) {
		termsafe_line(stderr, "profctl: %s: %s", path,
		    strerror(errno));
		rc = PROFCTL_EXIT_REFUSED;
	}
	free(buf);
	return rc;
}

/* ", N dropped; reason=n ..." from a push reply's dropped_samples and
 * dropped (named counts, some of them not samples: e.g. Perfetto packets
 * skipped), or "" when it names none. */
static void
cmd_push_dropped(const json_t *reply, char *buf, size_t size)
{
	json_t		*dropped, *v;
	const char	*key;
	json_int_t	 n;
	size_t		 len;

	buf[0] = '\0';
	dropped = json_object_get(reply, "dropped");
	if (!json_is_object(dropped) || json_object_size(dropped) == 0)
		return;
	n = json_integer_value(json_object_get(reply, "dropped_samples"));
	snprintf(buf, size, ", %" JSON_INTEGER_FORMAT " dropped;", n);
	json_object_foreach(dropped, key, v) {
		len = strlen(buf);
		if (len + 1 >= size)
			break;
		snprintf(buf + len, size - len, " %s=%" JSON_INTEGER_FORMAT,
		    key, json_integer_value(v));
	}
}

/* --kind METRIC=KIND as the API's kind=METRIC:KIND (profd checks the
 * kind's name and says what is wrong). */
static void
cmd_push_kind(char **url, const char *arg)
{
	char	*spec = xstrdup(arg), *eq = strrchr(spec, '=');

	*eq = ':';
	http_query_add(url, "kind", spec);
	free(spec);
}

static int
cmd_push_one(struct client *c, const struct cmd_push_args *a,
    const char *path)
{
	struct http_watch	 watch = { push_live_sent, push_live_waiting,
				    push_live_answered, NULL };
	struct push_live	 live;
	struct http_reply	 reply;
	struct stat		 sb;
	json_t			*id, *samples;
	char			 dropped[512];
	char			*data = NULL, *url, *name, *upload = NULL;
	size_t			 len = 0, i;
	FILE			*f;
	int			 rc, big;

	name = cmd_push_name(a, path);
	memset(&live, 0, sizeof live);
	live.line.f = stderr;
	live.line.on = a->progress;
	live.c = c;
	live.path = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 :
	    path;
	live.scope = a->scope;
	live.name = name != NULL ? name : "";
	live.start_ns = progress_now_ns();
	watch.arg = &live;
	big = strcmp(path, "-") != 0 && stat(path, &sb) == 0 &&
	    S_ISREG(sb.st_mode) && sb.st_size > PUSH_CHUNKED_OVER;
	if (big)
		live.size = (uint64_t)sb.st_size;
	if (live.line.on)
		client_watch(c, &watch);
	if (big) {
		if ((f = fopen(path, "rb")) == NULL) {
			termsafe_line(stderr, "profctl: %s: %s", path,
			    strerror(errno));
			rc = PROFCTL_EXIT_REFUSED;
			goto out;
		}
		rc = cmd_push_upload(c, f, path, &live, &upload);
		fclose(f);
		if (rc != PROFCTL_EXIT_OK)
			goto out;
	} else if (cmd_push_read(path, &data, &len) != 0) {
		termsafe_line(stderr, "profctl: %s: %s", path,
		    strerror(errno));
		rc = PROFCTL_EXIT_REFUSED;
		goto out;
	}

	if (!big)
		live.start_ns = progress_now_ns();	/* the file read */
	url = xstrdup("/v1/profiles");
	http_query_add(&url, "scope", a->scope);
	http_query_add(&url, "format", a->format);
	if (name != NULL)
		http_query_add(&url, "name", name);
	for (i = 0; i < a->nlabels; i++)
		http_query_add(&url, "label", a->labels[i]);
	for (i = 0; i < a->nkinds; i++)
		cmd_push_kind(&url, a->kinds[i]);
	if (a->metric != NULL)
		http_query_add(&url, "metric", a->metric);
	if (a->bucket != NULL)
		http_query_add(&url, "bucket", a->bucket);
	if (upload != NULL)
		http_query_add(&url, "upload", upload);

	live.importing = 1;
	rc = client_call(c, "POST", url, data != NULL ? data : "", len,
	    &reply, path);
	client_watch(c, NULL);
	free(url);
	free(data);
	free(upload);
	upload = NULL;
	if (rc != PROFCTL_EXIT_OK)
		goto out;

	id = json_object_get(reply.json, "profile_id");
	samples = json_object_get(reply.json, "samples");
	if (!json_is_integer(id)) {
		termsafe_line(stderr, "profctl: %s: unexpected reply from "
		    "profd: no profile_id", path);
		http_reply_clear(&reply);
		rc = PROFCTL_EXIT_REFUSED;
		goto out;
	}
	cmd_push_dropped(reply.json, dropped, sizeof dropped);
	/* The file's name is any bytes (a name with ESC and CR is legal),
	 * the reasons profd's words: the line is shown safe. */
	if (json_is_true(json_object_get(reply.json, "duplicate"))) {
		termsafe_line(stdout, "%s: already stored as profile %"
		    JSON_INTEGER_FORMAT "%s%s%s", a->shown != NULL ? a->shown :
		    path, json_integer_value(id),
		    dropped[0] ? " (" : "", dropped[0] ? dropped + 2 : "",
		    dropped[0] ? ")" : "");
	} else {
		termsafe_line(stdout, "%s: stored as profile %"
		    JSON_INTEGER_FORMAT " (%" JSON_INTEGER_FORMAT " samples%s)",
		    a->shown != NULL ? a->shown : path, json_integer_value(id),
		    json_integer_value(samples),
		    dropped);
	}
	fflush(stdout);
	http_reply_clear(&reply);
out:
	client_watch(c, NULL);
	progress_clear(&live.line);
	free(upload);
	free(name);
	return rc;
}

/* One file pushed as profctl push would push it (the live line on a
 * terminal), for profctl record's perf script text. */
int
cmd_push_file(struct client *c, const char *path, const char *scope,
    const char *format, const char *name)
{
	struct cmd_push_args	 a;

	memset(&a, 0, sizeof a);
	a.scope = scope;
	a.format = format;
	a.name = name;
	/* The text is a temporary file: the line names what was recorded. */
	a.shown = name;
	a.progress = isatty(STDERR_FILENO);
	return cmd_push_one(c, &a, path);
}

/* The files (operands) and options of a push. */
static int
cmd_push_option(const struct cmd_entry *e, int ch, const char *arg, void *p)
{
	struct cmd_push_args	*a = p;
	const char		*eq;

	switch (ch) {
	case 1:
		if (strcmp(arg, "-") == 0)
			a->nstdin++;
		a->files[a->nfiles++] = arg;
		return CMD_OPT_TAKEN;
	case 's':
		a->scope = arg;
		return CMD_OPT_TAKEN;
	case 'l':
		eq = strchr(arg, '=');
		if (eq == NULL || eq == arg)
			return cmd_usage_error(e, "push: label \"%s\" is not "
			    "KEY=VALUE", arg);
		a->labels[a->nlabels++] = arg;
		return CMD_OPT_TAKEN;
	case 'k':
		eq = strrchr(arg, '=');
		if (eq == NULL || eq == arg || eq[1] == '\0')
			return cmd_usage_error(e, "push: kind \"%s\" is not "
			    "METRIC=KIND", arg);
		a->kinds[a->nkinds++] = arg;
		return CMD_OPT_TAKEN;
	case 'f':
		a->format = arg;
		return CMD_OPT_TAKEN;
	case 'n':
		a->name = arg;
		return CMD_OPT_TAKEN;
	case 'm':
		a->metric = arg;
		return CMD_OPT_TAKEN;
	case 'b':
		a->bucket = arg;
		return CMD_OPT_TAKEN;
	case 'P':
		a->progress = 1;
		return CMD_OPT_TAKEN;
	case 'Q':
		a->progress = 0;
		return CMD_OPT_TAKEN;
	}
	return CMD_OPT_NOT_MINE;
}

static int
cmd_push_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "scope",	required_argument,	NULL, 's' },
		{ "label",	required_argument,	NULL, 'l' },
		{ "format",	required_argument,	NULL, 'f' },
		{ "name",	required_argument,	NULL, 'n' },
		{ "metric",	required_argument,	NULL, 'm' },
		{ "kind",	required_argument,	NULL, 'k' },
		{ "bucket",	required_argument,	NULL, 'b' },
		{ "progress",	no_argument,		NULL, 'P' },
		{ "no-progress", no_argument,		NULL, 'Q' },
		CMD_COMMON_OPTIONS
	};
	const struct cmd_entry	 *e = &cmd_push_entry;
	struct cmd_push_args	  a;
	struct cmd_args		  ca;
	size_t			  i;
	int			  rc, one;

	memset(&a, 0, sizeof a);
	a.format = "auto";
	a.progress = -1;
	a.labels = xcalloc(argc, sizeof *a.labels);
	a.kinds = xcalloc(argc, sizeof *a.kinds);
	a.files = xcalloc(argc, sizeof *a.files);

	rc = cmd_parse(e, c, argc, argv, "-:s:l:f:n:m:k:b:h", opts, &ca,
	    CMD_PARSE_OPERANDS, cmd_push_option, &a);
	if (rc != -1)
		goto out;
	rc = PROFCTL_EXIT_OK;
	/* What getopt left after "--". */
	for (; optind < argc; optind++)
		(void)cmd_push_option(e, 1, argv[optind], &a);

	if (a.scope == NULL) {
		rc = cmd_usage_error(e, "push: --scope is required");
		goto out;
	}
	if (a.nfiles == 0) {
		rc = cmd_usage_error(e, "push: no files given");
		goto out;
	}
	if (a.nstdin > 1) {
		rc = cmd_usage_error(e, "push: stdin (\"-\") given twice");
		goto out;
	}
	/* A live line only where a person reads it: scripts parse the
	 * rest, and get exactly that. */
	if (a.progress == -1)
		a.progress = isatty(STDERR_FILENO);

	for (i = 0; i < a.nfiles; i++) {
		one = cmd_push_one(c, &a, a.files[i]);
		if (one == PROFCTL_EXIT_USAGE) {
			/* profd is gone: the other files would fail too. */
			rc = one;
			break;
		}
		if (one != PROFCTL_EXIT_OK)
			rc = one;
	}
out:
	free(a.labels);
	free(a.kinds);
	free(a.files);
	return rc;
}
