/* fuzz_sql.c: the SQL guard of POST /v1/query (store_sql_run): any bytes
 * as the statement, on a store holding one small profile.  Beside not
 * crashing: the call answers rows or an error of the documented kinds
 * within its time limit, and nothing on disk changes (the store and its
 * WAL keep their size and mtime, no file appears or goes), whatever the
 * statement tries (ATTACH, pragmas, writes, functions). */
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "fuzz.h"
#include "import.h"
#include "mstr.h"
#include "store-sql.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int64_t __wrap_mono_ns(void);

/* now_ns's fixed instant (fuzz-init.c), in ms for SQLite's clock. */
#define FZ_NOW_MS	1700000000000ll

/* The link wraps mono_ns and now_ns (tests/fuzz/CMakeLists.txt): each
 * reading of the monotonic clock is 1 ms after the last, so the
 * statement's 100 ms limit is 100 readings (one per 1000 VM steps, one
 * per row) however fast the machine, and the store's time of day is
 * fixed (fuzz-init.c's now_ns).  On the real clocks a query stopped by its limit ran further on
 * an idle machine than on a loaded one, and the fixed pass of run-test
 * took another path each time. */
int64_t
__wrap_mono_ns(void)
{
	static int64_t t;

	return t += 1000000;
}

/* SQLite's randomness (random(), temporary names) and its 'now' come
 * from the default VFS: the unix one, with those fixed. */
static sqlite3_vfs vfs;

static int
vfs_randomness(sqlite3_vfs *v, int n, char *out)
{
	memset(out, 0x5a, (size_t)n);
	return n;
}

/* Julian day numbers: the Unix epoch is day 2440587.5. */
static int
vfs_time(sqlite3_vfs *v, double *t)
{
	*t = 2440587.5 + (double)FZ_NOW_MS / 86400000.0;
	return SQLITE_OK;
}

static int
vfs_time64(sqlite3_vfs *v, sqlite3_int64 *t)
{
	*t = 210866760000000ll + FZ_NOW_MS;
	return SQLITE_OK;
}

static char dir[64], dbpath[96];
static struct store *store;	/* kept open: the WAL stays as it is */
static char snapshot[4096];

/* Names, sizes and mtimes of the store's files (but -shm, which readers
 * write by design). */
static void
snap(char *out, size_t size)
{
	struct dirent *de;
	struct stat st;
	char p[256];
	size_t n = 0;
	DIR *d = opendir(dir);

	FZ_CHECK(d != NULL);
	out[0] = '\0';
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		n += (size_t)snprintf(out + n, size - n, "%s ", de->d_name);
		FZ_CHECK(n < size);
		if (strstr(de->d_name, "-shm") != NULL)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		FZ_CHECK(stat(p, &st) == 0);
		n += (size_t)snprintf(out + n, size - n, "%lld %lld.%09ld\n",
		    (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec);
		FZ_CHECK(n < size);
	}
	closedir(d);
}

static void
setup(void)
{
	static const char folded[] = "main;work;leaf 10\nmain;idle 3\n";
	struct import_request req;
	struct import_result res;
	char key[] = "env", value[] = "fuzz";
	struct import_label lab = { key, value };
	struct limits lim;
	struct importer *im;
	struct error err = { 0 };

	vfs = *sqlite3_vfs_find(NULL);
	vfs.zName = "profd-fuzz";
	vfs.xRandomness = vfs_randomness;
	vfs.xCurrentTime = vfs_time;
	if (vfs.iVersion >= 2)
		vfs.xCurrentTimeInt64 = vfs_time64;
	FZ_CHECK(sqlite3_vfs_register(&vfs, 1) == SQLITE_OK);
	snprintf(dir, sizeof dir, "%s/profd-fuzz-sql-XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	FZ_CHECK(mkdtemp(dir) != NULL);
	snprintf(dbpath, sizeof dbpath, "%s/profd.db", dir);
	store = store_open(dbpath, 0, &err);
	FZ_CHECK(store != NULL);
	bounds_default(&lim);
	im = importer_new(store, &lim);
	memset(&req, 0, sizeof req);
	req.scope = "svc";
	req.format = "folded";
	req.name = "seed";
	req.labels = &lab;
	req.nlabels = 1;
	req.data = (const uint8_t *)folded;
	req.len = sizeof folded - 1;
	req.fd = -1;
	FZ_CHECK(importer_run(im, &req, &res, &err) == 0);
	import_result_clear(&res);
	importer_free(im);
	snap(snapshot, sizeof snapshot);
}

static int
on_columns(void *arg, const char *const *names, size_t n, struct error *err)
{
	size_t i;

	(void)err;
	for (i = 0; i < n; i++)
		fz_str(arg, mstr_from(names[i]));
	return 0;
}

static int
on_row(void *arg, const struct store_sql_value *v, size_t n,
    struct error *err)
{
	size_t i;

	(void)err;
	for (i = 0; i < n; i++) {
		fz_mix(arg, v[i].type);
		if (v[i].type == STORE_SQL_TEXT ||
		    v[i].type == STORE_SQL_BLOB)
			fz_str(arg, (struct mstr){ v[i].p, v[i].n });
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct store_sql_cb cb = { on_columns, on_row };
	struct store_sql_params p = { (const char *)data, size, 50, 100,
	    NULL, NULL };
	struct fz_sink digest = { 0 };
	struct error err = { 0 };
	char now[sizeof snapshot];
	int truncated = 0, rc;
	int64_t t0;

	if (store == NULL)
		setup();
	t0 = mono_ns();
	rc = store_sql_run(dbpath, &p, &cb, &digest, &truncated, &err);
	FZ_CHECK(rc == 0 || rc == -1);
	if (rc == -1)
		FZ_CHECK(err.kind == ERR_INPUT || err.kind == ERR_TOO_LARGE ||
		    err.kind == ERR_TIMEOUT || err.kind == ERR_BUSY);
	/* On the clock above: the limit is 100 readings, rows included. */
	FZ_CHECK(mono_ns() - t0 < 5000000000ll);
	snap(now, sizeof now);
	if (strcmp(now, snapshot) != 0) {
		fprintf(stderr, "the store changed:\n%s---\n%s", snapshot,
		    now);
		abort();
	}
	return 0;
}
