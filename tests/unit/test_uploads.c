/* test_uploads.c: chunked uploads in a temporary directory: ids, appends
 * only at the current size (a retried chunk is refused, not doubled), the
 * byte limit, reading in place and taking for import, removal, the bound
 * on open uploads, sweeping idle ones and the leftovers of a previous
 * run. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "testlib.h"
#include "uploads.h"

static char dir[] = "/tmp/test_uploads.XXXXXX";

static char *
path_of(const char *name)
{
	char *p;

	xasprintf(&p, "%s/up/%s", dir, name);
	return p;
}

static int
exists(const char *name)
{
	char *p = path_of(name);
	int ok = access(p, F_OK) == 0;

	free(p);
	return ok;
}

static void
touch(const char *name, time_t age_s)
{
	char *p = path_of(name);
	struct timespec ts[2];
	int fd;

	CHECK((fd = open(p, O_WRONLY | O_CREAT, 0600)) >= 0);
	close(fd);
	ts[0].tv_sec = ts[1].tv_sec = time(NULL) - age_s;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	CHECK(utimensat(AT_FDCWD, p, ts, 0) == 0);
	free(p);
}

/* The whole file behind fd, closed. */
static char *
slurp(int fd)
{
	char buf[256];
	ssize_t n;

	CHECK(fd >= 0);
	CHECK((n = pread(fd, buf, sizeof buf - 1, 0)) >= 0);
	buf[n] = '\0';
	close(fd);
	return xstrdup(buf);
}

static void
test_ids(void)
{
	CHECK(uploads_id_valid("0123456789abcdef0123456789abcdef"));
	CHECK(!uploads_id_valid("0123456789ABCDEF0123456789abcdef"));
	CHECK(!uploads_id_valid("0123456789abcdef0123456789abcde"));
	CHECK(!uploads_id_valid("0123456789abcdef0123456789abcdef0"));
	CHECK(!uploads_id_valid("../../../../../../../../etc/pass"));
	CHECK(!uploads_id_valid(""));
}

static void
test_append(struct uploads *u)
{
	struct error err = { 0 };
	char id[UPLOAD_ID_LEN + 1], *s;
	uint64_t total = 0;

	CHECK(uploads_create(u, id, &err) == 0);
	CHECK(uploads_id_valid(id) && exists(id));
	CHECK(uploads_open_count(u) == 1);
	CHECK(uploads_append(u, id, 0, "hello", 5, &total, &err) == 0);
	CHECK(total == 5);
	/* The same chunk again (a retry after a lost reply): refused. */
	CHECK(uploads_append(u, id, 0, "hello", 5, &total, &err) == -1);
	CHECK(err.kind == ERR_CONFLICT && HAS(err.msg, "has 5 bytes"));
	error_clear(&err);
	CHECK(uploads_append(u, id, 7, "xx", 2, &total, &err) == -1);
	CHECK(err.kind == ERR_CONFLICT);
	error_clear(&err);
	CHECK(uploads_append(u, id, 5, " world", 6, &total, &err) == 0);
	CHECK(total == 11);
	/* The limit: 16 bytes in all. */
	uploads_set_max(u, 16);
	CHECK(uploads_append(u, id, 11, "123456", 6, &total, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE && HAS(err.msg, "16 bytes"));
	error_clear(&err);
	CHECK(uploads_append(u, id, 11, "12345", 5, &total, &err) == 0);
	CHECK(total == 16);
	uploads_set_max(u, 1 << 20);
	/* Read in place (kept), then taken (gone). */
	s = slurp(uploads_open_read(u, id, &err));
	CHECK(strcmp(s, "hello world12345") == 0);
	free(s);
	CHECK(exists(id) && uploads_open_count(u) == 1);
	s = slurp(uploads_take(u, id, &err));
	CHECK(strcmp(s, "hello world12345") == 0);
	free(s);
	CHECK(!exists(id) && uploads_open_count(u) == 0);
	CHECK(uploads_open_read(u, id, &err) == -1);
	CHECK(err.kind == ERR_NOT_FOUND);
	error_clear(&err);
	CHECK(uploads_append(u, id, 16, "x", 1, &total, &err) == -1);
	CHECK(err.kind == ERR_NOT_FOUND);
	error_clear(&err);
	CHECK(uploads_append(u, "../up", 0, "x", 1, &total, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "not an upload id"));
	printf("ok: appends at the current size only, the byte limit, read "
	    "in place, taken\n");
}

static void
test_remove_and_bound(struct uploads *u)
{
	struct error err = { 0 };
	char a[UPLOAD_ID_LEN + 1], b[UPLOAD_ID_LEN + 1];
	char c[UPLOAD_ID_LEN + 1];

	uploads_set_max_open(u, 2);
	CHECK(uploads_create(u, a, &err) == 0);
	CHECK(uploads_create(u, b, &err) == 0);
	CHECK(strcmp(a, b) != 0);
	CHECK(uploads_create(u, c, &err) == -1);
	CHECK(err.kind == ERR_BUSY && HAS(err.msg, "2 chunked uploads"));
	error_clear(&err);
	CHECK(uploads_open_count(u) == 2);
	CHECK(uploads_remove(u, a, &err) == 0);
	CHECK(!exists(a) && uploads_open_count(u) == 1);
	CHECK(uploads_remove(u, a, &err) == -1);
	CHECK(err.kind == ERR_NOT_FOUND);
	error_clear(&err);
	CHECK(uploads_create(u, c, &err) == 0);
	CHECK(uploads_remove(u, b, &err) == 0);
	CHECK(uploads_remove(u, c, &err) == 0);
	CHECK(uploads_open_count(u) == 0);
	uploads_set_max_open(u, SIZE_MAX);
	printf("ok: removal, at most max_open uploads at once\n");
}

static void
test_sweep(struct uploads *u)
{
	struct error err = { 0 };
	char old[UPLOAD_ID_LEN + 1], fresh[UPLOAD_ID_LEN + 1];

	CHECK(uploads_create(u, old, &err) == 0);
	CHECK(uploads_create(u, fresh, &err) == 0);
	touch(old, 100);
	touch("not-an-upload", 100);
	CHECK(uploads_sweep(u, 1000) == 0);
	CHECK(uploads_sweep(u, 50) == 1);
	CHECK(!exists(old) && exists(fresh) && exists("not-an-upload"));
	CHECK(uploads_open_count(u) == 1);
	printf("ok: idle uploads swept, others kept\n");
}

int
main(void)
{
	struct uploads *u;
	struct error err = { 0 };
	char *up, *cmd;

	CHECK(mkdtemp(dir) != NULL);
	test_ids();
	xasprintf(&up, "%s/up", dir);
	CHECK((u = uploads_new(up, 1 << 20, &err)) != NULL);
	test_append(u);
	test_remove_and_bound(u);
	test_sweep(u);
	uploads_free(u);
	/* A new run: the previous run's uploads are gone, the count is 0. */
	touch("0123456789abcdef0123456789abcdef", 0);
	CHECK((u = uploads_new(up, 1 << 20, &err)) != NULL);
	CHECK(uploads_open_count(u) == 0);
	CHECK(!exists("0123456789abcdef0123456789abcdef"));
	CHECK(exists("not-an-upload"));
	uploads_free(u);
	/* A directory that cannot be made. */
	CHECK(uploads_new("/proc/no/such/dir", 1, &err) == NULL);
	CHECK(err.kind == ERR_INTERNAL && HAS(err.msg, "cannot create"));
	printf("ok: leftovers of a previous run removed\n");
	free(up);
	xasprintf(&cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	printf("test_uploads: %u checks passed\n", checks);
	return 0;
}
