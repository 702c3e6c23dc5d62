/* test_spool.c: the spool's file work without a daemon: what paths mean,
 * the listing of a tree, and importing, refusing and putting away real
 * files into a real store in a temporary directory. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "activity.h"
#include "alloc.h"
#include "bounds.h"
#include "import.h"
#include "spool-file.h"
#include "store.h"
#include "testlib.h"

static char root[256];

static char *
P(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%s/%s", root, rel);
	return buf[i];
}

static void
put(const char *rel, const void *data, size_t len)
{
	int fd = open(P(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd != -1);
	CHECK(write(fd, data, len) == (ssize_t)len);
	CHECK(close(fd) == 0);
}

/* An old modification time, so a listing does not take it for a file
 * being written. */
static void
age(const char *rel)
{
	struct timespec ts[2] = { { time(NULL) - 60, 0 },
	    { time(NULL) - 60, 0 } };

	CHECK(utimensat(AT_FDCWD, P(rel), ts, AT_SYMLINK_NOFOLLOW) == 0);
}

static void
put_old(const char *rel, const void *data, size_t len)
{
	put(rel, data, len);
	age(rel);
}

static int
exists(const char *rel)
{
	struct stat sb;

	return lstat(P(rel), &sb) == 0;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	CHECK(f != NULL);
	CHECK(fseek(f, 0, SEEK_END) == 0);
	n = ftell(f);
	CHECK(n >= 0);
	rewind(f);
	buf = xmalloc((size_t)n + 1);
	CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

static void
test_names(void)
{
	struct spool_path p;

	CHECK(spool_name_in_progress(".cpu.pprof"));
	CHECK(spool_name_in_progress("cpu.pprof.tmp"));
	CHECK(spool_name_in_progress("."));
	CHECK(!spool_name_in_progress("cpu.pprof"));
	CHECK(!spool_name_in_progress("tmp"));
	CHECK(spool_name_reserved("done") && spool_name_reserved("failed"));
	CHECK(!spool_name_reserved("web"));

	CHECK(STREQ(spool_ext_format("a.pprof"), "pprof"));
	CHECK(STREQ(spool_ext_format("a.PPROF"), "pprof"));
	CHECK(STREQ(spool_ext_format("a.pprof.gz"), "pprof"));
	CHECK(STREQ(spool_ext_format("cpu.pb.gz"), "pprof"));
	CHECK(STREQ(spool_ext_format("t.perfetto-trace"), "perfetto"));
	CHECK(STREQ(spool_ext_format("t.pftrace"), "perfetto"));
	CHECK(STREQ(spool_ext_format("t.pftrace.gz"), "perfetto"));
	CHECK(STREQ(spool_ext_format("x.folded"), "folded"));
	CHECK(spool_ext_format("x.pb") == NULL);
	CHECK(spool_ext_format("x.gz") == NULL);
	CHECK(spool_ext_format("x.txt") == NULL);
	CHECK(spool_ext_format(".pprof") == NULL);

	CHECK(spool_path_parse("web/cpu.pprof", &p) == 0);
	CHECK(STREQ(p.scope, "web") && STREQ(p.name, "cpu.pprof"));
	CHECK(STREQ(p.format, "pprof") && STREQ(p.format_from, "extension"));
	CHECK(p.depth == 2);
	CHECK(spool_path_parse("web/blob", &p) == 0);
	CHECK(STREQ(p.format, "auto") && p.format_from == NULL);
	/* The directory wins over the extension. */
	CHECK(spool_path_parse("web/folded/x.pprof", &p) == 0);
	CHECK(STREQ(p.format, "folded") && STREQ(p.format_from, "directory"));
	CHECK(STREQ(p.name, "x.pprof") && p.depth == 3);
	CHECK(spool_path_parse("stray", &p) == 0);
	CHECK(p.depth == 1 && p.scope[0] == '\0');
	CHECK(spool_path_parse("web/notaformat/x", &p) == -1);
	CHECK(spool_path_parse("bad scope/x", &p) == -1);
	/* "." and ".." are in every directory, never scopes. */
	CHECK(spool_path_parse("./x.pprof", &p) == -1);
	CHECK(spool_path_parse("../x.pprof", &p) == -1);
	CHECK(spool_path_parse("../pprof/x", &p) == -1);
	CHECK(!spool_layout_dir(0, ".") && !spool_layout_dir(0, ".."));
	CHECK(spool_layout_dir(0, "web"));
	CHECK(spool_path_parse("web/pprof/x/y", &p) == -1);
	CHECK(spool_path_parse("web/", &p) == -1);
	CHECK(spool_path_parse("", &p) == -1);
}

static const struct spool_found *
found(const struct spool_listing *l, const char *rel)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].rel, rel) == 0)
			return &l->v[i];
	return NULL;
}

static void
test_list(void)
{
	struct spool_listing l = { 0 };
	struct error err = { 0 };
	const struct spool_found *f;
	char file[PATH_MAX];

	snprintf(file, sizeof file, "%s/file", root);
	put("file", "x", 1);
	CHECK(spool_prepare(file, &err) == -1);
	CHECK(HAS(err.msg, "not a directory"));
	CHECK(unlink(file) == 0);
	error_clear(&err);
	CHECK(spool_prepare("relative/spool", &err) == -1);
	error_clear(&err);

	CHECK(spool_prepare(P("spool/deep"), &err) == 0);
	CHECK(exists("spool/deep/failed"));
	CHECK(rmdir(P("spool/deep/failed")) == 0 && rmdir(P("spool/deep")) == 0);
	CHECK(spool_prepare(P("spool"), &err) == 0);
	CHECK(mkdir(P("spool/web"), 0770) == 0);
	CHECK(mkdir(P("spool/web/perfetto"), 0770) == 0);
	CHECK(mkdir(P("spool/web/other"), 0770) == 0);
	CHECK(mkdir(P("spool/bad name"), 0770) == 0);
	CHECK(mkdir(P("spool/done"), 0770) == 0);
	CHECK(mkdir(P("spool/.hidden"), 0770) == 0);
	put_old("spool/web/a.pprof", "aaaa", 4);
	put_old("spool/web/perfetto/t", "tt", 2);
	put_old("spool/web/.inprogress", "x", 1);
	put_old("spool/web/b.tmp", "x", 1);
	put_old("spool/done/x", "x", 1);
	put_old("spool/.hidden/x", "x", 1);
	put_old("spool/stray", "x", 1);
	put("spool/web/young", "y", 1);
	CHECK(symlink("/etc/passwd", P("spool/web/link")) == 0);
	CHECK(mkfifo(P("spool/web/fifo"), 0600) == 0);

	l.max = SIZE_MAX;
	CHECK(spool_list(P("spool"), "", 5000000000LL, &l, &err) == 0);
	CHECK((f = found(&l, "web")) != NULL && f->is_dir);
	CHECK((f = found(&l, "web/perfetto")) != NULL && f->is_dir);
	/* Not a format: an entry to refuse, and not walked into. */
	CHECK((f = found(&l, "web/other")) != NULL && !f->is_dir);
	CHECK((f = found(&l, "bad name")) != NULL && !f->is_dir);
	CHECK((f = found(&l, "stray")) != NULL && S_ISREG(f->type));
	CHECK((f = found(&l, "web/a.pprof")) != NULL && f->size == 4);
	CHECK((f = found(&l, "web/perfetto/t")) != NULL && f->size == 2);
	CHECK((f = found(&l, "web/link")) != NULL && S_ISLNK(f->type));
	CHECK((f = found(&l, "web/fifo")) != NULL && S_ISFIFO(f->type));
	CHECK(found(&l, "web/.inprogress") == NULL);
	CHECK(found(&l, "web/b.tmp") == NULL);
	CHECK(found(&l, "done") == NULL && found(&l, "done/x") == NULL);
	CHECK(found(&l, "failed") == NULL);
	CHECK(found(&l, ".hidden/x") == NULL);
	CHECK(found(&l, "web/young") == NULL && l.young);
	CHECK(!l.truncated);
	CHECK(l.v[0].is_dir);
	spool_listing_clear(&l);

	/* One directory, and a bound on the files. */
	l.max = 1;
	CHECK(spool_list(P("spool"), "web/perfetto", 5000000000LL, &l,
	    &err) == 0);
	CHECK(l.n == 1 && STREQ(l.v[0].rel, "web/perfetto/t"));
	spool_listing_clear(&l);
	l.max = 1;
	CHECK(spool_list(P("spool"), "web", 0, &l, &err) == 0);
	CHECK(l.truncated);
	spool_listing_clear(&l);
	l.max = SIZE_MAX;
	CHECK(spool_list(P("spool"), "gone", 0, &l, &err) == 0 && l.n == 0);
	spool_listing_clear(&l);
}

struct env {
	struct store *store;
	struct importer *im;
	struct limits limits;
	struct activity *act;
};

static void
run(struct env *e, const char *rel, int keep, struct spool_task *t)
{
	memset(t, 0, sizeof *t);
	t->dir = P("spool");
	t->rel = rel;
	t->keep = keep;
	t->max_bytes = e->limits.max_upload;
	t->activity = e->act;
	spool_file_import(e->im, t);
}

static size_t
nprofiles(struct env *e, const char *scope)
{
	struct store_profile_info *v;
	struct error err = { 0 };
	size_t n;

	if (store_profiles(e->store, scope, &v, &n, &err) == -1) {
		CHECK(err.kind == ERR_NOT_FOUND);
		return 0;
	}
	store_profile_info_free(v, n);
	return n;
}

static void
test_import(void)
{
	struct env e;
	struct spool_task t;
	struct error err = { 0 };
	struct activity_snapshot snap;
	char *cpu, *text;
	size_t cpulen;

	memset(&e, 0, sizeof e);
	bounds_default(&e.limits);
	CHECK((e.store = store_open(P("store.db"), 0, &err)) != NULL);
	e.im = importer_new(e.store, &e.limits);
	e.act = activity_new();
	cpu = slurp(FIXTURES_DIR "/cpu.pprof", &cpulen);

	/* Imported, then deleted. */
	put("spool/web/cpu.pprof", cpu, cpulen);
	run(&e, "web/cpu.pprof", 0, &t);
	CHECK(t.outcome == SPOOL_IMPORTED);
	CHECK(t.profile_id > 0 && STREQ(t.format, "pprof"));
	CHECK(t.bytes == cpulen && t.cleanup == NULL);
	CHECK(!exists("spool/web/cpu.pprof"));
	CHECK(nprofiles(&e, "web") == 1);
	spool_task_clear(&t);

	/* The same bytes again (a restart after the commit): a duplicate,
	 * removed too; kept in done/ with --spool-keep, under a free name. */
	put("spool/web/cpu.pprof", cpu, cpulen);
	run(&e, "web/cpu.pprof", 1, &t);
	CHECK(t.outcome == SPOOL_DUPLICATE);
	CHECK(!exists("spool/web/cpu.pprof"));
	CHECK(exists("spool/done/web/cpu.pprof"));
	CHECK(HAS(t.moved_to, "/done/web/cpu.pprof"));
	spool_task_clear(&t);
	put("spool/web/cpu.pprof", cpu, cpulen);
	run(&e, "web/cpu.pprof", 1, &t);
	CHECK(t.outcome == SPOOL_DUPLICATE);
	CHECK(exists("spool/done/web/cpu.pprof.1"));
	CHECK(nprofiles(&e, "web") == 1);
	spool_task_clear(&t);

	/* The format directory wins: pprof bytes read as folded fail, and
	 * go to failed/ with the decoder's message. */
	CHECK(mkdir(P("spool/web/folded"), 0770) == 0);
	put("spool/web/folded/cpu.pprof", cpu, cpulen);
	run(&e, "web/folded/cpu.pprof", 0, &t);
	CHECK(t.outcome == SPOOL_REFUSED);
	CHECK(t.err.kind == ERR_INPUT && HAS(t.err.msg, "folded"));
	CHECK(exists("spool/failed/web/cpu.pprof"));
	text = slurp(P("spool/failed/web/cpu.pprof.error"), NULL);
	CHECK(strncmp(text, t.err.msg, strlen(t.err.msg)) == 0);
	CHECK(HAS(text, "format: folded (from the directory)"));
	CHECK(HAS(text, "status: 400"));
	free(text);
	spool_task_clear(&t);

	/* A corrupt file: the byte offset in the message, the store
	 * unchanged, and a second one of that name beside the first. */
	put("spool/web/cpu.pprof", cpu, cpulen / 2);
	run(&e, "web/cpu.pprof", 0, &t);
	CHECK(t.outcome == SPOOL_REFUSED);
	CHECK(HAS(t.err.msg, "at byte"));
	CHECK(exists("spool/failed/web/cpu.pprof.1"));
	CHECK(exists("spool/failed/web/cpu.pprof.1.error"));
	CHECK(nprofiles(&e, "web") == 1);
	spool_task_clear(&t);

	/* Links are not followed, FIFOs not opened, directories not entered:
	 * all moved as they are. */
	put("target", "not a profile", 13);
	CHECK(symlink(P("target"), P("spool/web/link")) == 0);
	run(&e, "web/link", 0, &t);
	CHECK(t.outcome == SPOOL_REFUSED && HAS(t.err.msg, "symbolic link"));
	CHECK(exists("target") && exists("spool/failed/web/link"));
	spool_task_clear(&t);
	CHECK(mkfifo(P("spool/web/fifo"), 0600) == 0);
	run(&e, "web/fifo", 0, &t);
	CHECK(t.outcome == SPOOL_REFUSED && HAS(t.err.msg, "FIFO"));
	spool_task_clear(&t);
	CHECK(mkdir(P("spool/web/sub"), 0770) == 0);
	run(&e, "web/sub", 0, &t);
	CHECK(t.outcome == SPOOL_REFUSED && HAS(t.err.msg, "directory"));
	CHECK(exists("spool/failed/web/sub"));
	spool_task_clear(&t);

	/* A link planted in place of a scope directory is not walked
	 * through. */
	CHECK(mkdir(P("elsewhere"), 0770) == 0);
	put("elsewhere/cpu.pprof", cpu, cpulen);
	CHECK(symlink(P("elsewhere"), P("spool/evil")) == 0);
	run(&e, "evil/cpu.pprof", 0, &t);
	CHECK(t.outcome == SPOOL_GONE);
	CHECK(exists("elsewhere/cpu.pprof"));
	spool_task_clear(&t);
	run(&e, "evil", 0, &t);
	CHECK(t.outcome == SPOOL_REFUSED);
	CHECK(exists("spool/failed/evil") && exists("elsewhere/cpu.pprof"));
	spool_task_clear(&t);

	/* At the top: a file, a bad scope name; a scope is left alone. */
	put("spool/stray.pprof", cpu, cpulen);
	run(&e, "stray.pprof", 0, &t);
	CHECK(t.outcome == SPOOL_REFUSED && HAS(t.err.msg, "outside"));
	CHECK(exists("spool/failed/stray.pprof"));
	spool_task_clear(&t);
	CHECK(mkdir(P("spool/bad name"), 0770) == 0);
	run(&e, "bad name", 0, &t);
	CHECK(t.outcome == SPOOL_REFUSED && HAS(t.err.msg, "scope name"));
	spool_task_clear(&t);
	run(&e, "web", 0, &t);
	CHECK(t.outcome == SPOOL_LEFT && exists("spool/web"));
	spool_task_clear(&t);

	/* Too large for max-upload. */
	e.limits.max_upload = 100;
	put("spool/web/big.pprof", cpu, cpulen);
	run(&e, "web/big.pprof", 0, &t);
	CHECK(t.outcome == SPOOL_REFUSED && t.err.kind == ERR_TOO_LARGE);
	spool_task_clear(&t);
	bounds_default(&e.limits);

	run(&e, "web/nothing", 0, &t);
	CHECK(t.outcome == SPOOL_GONE);
	spool_task_clear(&t);

	/* The extension forces the format; a folded file in its scope. */
	put("spool/web/stacks.folded", "main;work 7\nmain 3\n", 19);
	run(&e, "web/stacks.folded", 0, &t);
	CHECK(t.outcome == SPOOL_IMPORTED && STREQ(t.format, "folded"));
	CHECK(t.samples == 2);
	spool_task_clear(&t);
	put("spool/web/fake.folded", cpu, cpulen);
	run(&e, "web/fake.folded", 0, &t);
	CHECK(t.outcome == SPOOL_REFUSED && HAS(t.err.msg, "folded"));
	spool_task_clear(&t);

	activity_snapshot(e.act, &snap);
	CHECK(snap.done[ACT_SPOOL] == 4);
	CHECK(snap.failed[ACT_SPOOL] == 10);
	CHECK(snap.nerrors == ACTIVITY_ERRORS && snap.nerrors_total == 10);
	CHECK(HAS(snap.errors[0].what, "fake.folded"));
	CHECK(STREQ(snap.errors[0].scope, "web"));
	CHECK(!snap.current.active);

	free(cpu);
	activity_free(e.act);
	importer_free(e.im);
	store_close(e.store);
}

int
main(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(root, sizeof root, "%s/test_spool.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(root) != NULL);
	test_names();
	test_list();
	/* A fresh spool for the imports. */
	snprintf(cmd, sizeof cmd, "rm -rf '%s/spool'", root);
	CHECK(system(cmd) == 0);
	{
		struct error err = { 0 };

		CHECK(spool_prepare(P("spool"), &err) == 0);
		CHECK(mkdir(P("spool/web"), 0770) == 0);
	}
	test_import();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	printf("test_spool: %u checks passed\n", checks);
	return 0;
}
