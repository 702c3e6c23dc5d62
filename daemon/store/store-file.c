/* store-file.c: the store's files.  The database is made 0600 whatever the
 * umask (profiles name functions, files and hosts: not for other users),
 * and SQLite gives its -wal and -shm files the database's mode.  A store
 * made by an older profd under a loose umask is brought back to 0600, with
 * the -wal and -shm it left. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "nitems.h"
#include "store-int.h"

#define STORE_FILE_MODE	0600

static int
store_file_tighten(const char *path, int must, struct error *err)
{
	struct stat sb;
	int fd;

	if ((fd = open(path, O_RDWR | O_CLOEXEC | (must ?
	    O_CREAT : 0), STORE_FILE_MODE)) == -1) {
		if (!must && errno == ENOENT)
			return 0;
		return error_set(err, ERR_INTERNAL, "store: cannot open %s: %s",
		    path, strerror(errno));
	}
	/* Only the owner may change the mode: a store of another user's
	 * stays as it is (SQLite opens it, or says why not). */
	if (fstat(fd, &sb) == 0 && (sb.st_mode & 07777) != STORE_FILE_MODE &&
	    sb.st_uid == geteuid() && fchmod(fd, STORE_FILE_MODE) == -1) {
		error_set(err, ERR_INTERNAL, "store: cannot make %s mode %04o: "
		    "%s", path, STORE_FILE_MODE, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int
store_file_prepare(const char *path, struct error *err)
{
	static const char *const suffix[] = { "-wal", "-shm" };
	char *p;
	size_t i;
	int rc = 0;

	/* Names SQLite does not map to a file. */
	if (strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0)
		return 0;
	if (store_file_tighten(path, 1, err) == -1)
		return -1;
	for (i = 0; i < NITEMS(suffix) && rc == 0; i++) {
		xasprintf(&p, "%s%s", path, suffix[i]);
		rc = store_file_tighten(p, 0, err);
		free(p);
	}
	return rc;
}

int64_t
store_file_size(const char *path)
{
	struct stat sb;
	char *wal;
	int64_t total = 0;

	if (stat(path, &sb) == 0)
		total += sb.st_size;
	xasprintf(&wal, "%s-wal", path);
	if (stat(wal, &sb) == 0)
		total += sb.st_size;
	free(wal);
	return total;
}
