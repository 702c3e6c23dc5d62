/* uploads.c: one file per upload, named by a random id. */
#include <dirent.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "uploads.h"

struct uploads {
	char *dir;
	_Atomic uint64_t max_bytes;	/* changed on SIGHUP */
	_Atomic size_t max_open;	/* uploads open at once */
	_Atomic size_t nopen;		/* files in dir */
};

int
uploads_id_valid(const char *id)
{
	size_t i;

	for (i = 0; id[i] != '\0'; i++)
		if (!((id[i] >= '0' && id[i] <= '9') ||
		    (id[i] >= 'a' && id[i] <= 'f')))
			return 0;
	return i == UPLOAD_ID_LEN;
}

static char *
upload_path(const struct uploads *u, const char *id)
{
	char *p;

	xasprintf(&p, "%s/%s", u->dir, id);
	return p;
}

struct uploads *
uploads_new(const char *dir, uint64_t max_bytes, struct error *err)
{
	struct uploads *u;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		error_set(err, ERR_INTERNAL, "uploads: cannot create %s: %s",
		    dir, strerror(errno));
		return NULL;
	}
	u = xcalloc(1, sizeof *u);
	u->dir = xstrdup(dir);
	u->max_bytes = max_bytes;
	u->max_open = SIZE_MAX;
	uploads_sweep(u, 0);
	u->nopen = 0;
	return u;
}

void
uploads_set_max(struct uploads *u, uint64_t max_bytes)
{
	u->max_bytes = max_bytes;
}

void
uploads_set_max_open(struct uploads *u, size_t max_open)
{
	u->max_open = max_open;
}

size_t
uploads_open_count(struct uploads *u)
{
	return u->nopen;
}

void
uploads_free(struct uploads *u)
{
	if (u == NULL)
		return;
	free(u->dir);
	free(u);
}

int
uploads_create(struct uploads *u, char id[UPLOAD_ID_LEN + 1],
    struct error *err)
{
	uint8_t rnd[UPLOAD_ID_LEN / 2];
	char *path;
	size_t i;
	int fd;

	/* Counted first, so two creations cannot both take the last slot. */
	if (atomic_fetch_add(&u->nopen, 1) >= u->max_open) {
		atomic_fetch_sub(&u->nopen, 1);
		return error_set(err, ERR_BUSY, "uploads: %zu chunked uploads "
		    "are open (max-uploads); finish or remove one, or retry "
		    "later", (size_t)u->max_open);
	}
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		atomic_fetch_sub(&u->nopen, 1);
		return error_set(err, ERR_INTERNAL, "uploads: getrandom: %s",
		    strerror(errno));
	}
	for (i = 0; i < sizeof rnd; i++)
		snprintf(id + 2 * i, 3, "%02x", rnd[i]);
	path = upload_path(u, id);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	free(path);
	if (fd == -1) {
		atomic_fetch_sub(&u->nopen, 1);
		return error_set(err, errno == ENOSPC || errno == EDQUOT ?
		    ERR_NO_SPACE : ERR_INTERNAL, "uploads: cannot create "
		    "a file in %s: %s", u->dir, strerror(errno));
	}
	close(fd);
	return 0;
}

static int
upload_open(struct uploads *u, const char *id, int flags, struct error *err)
{
	char *path;
	int fd;

	if (!uploads_id_valid(id))
		return error_set(err, ERR_INPUT, "upload: \"%.40s\" is not an "
		    "upload id", id);
	path = upload_path(u, id);
	fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd == -1 && errno == ENOENT)
		return error_set(err, ERR_NOT_FOUND, "no upload %s (finished, "
		    "removed, or idle too long)", id);
	if (fd == -1)
		return error_set(err, ERR_INTERNAL, "upload %s: %s", id,
		    strerror(errno));
	return fd;
}

int
uploads_append(struct uploads *u, const char *id, uint64_t offset,
    const void *data, size_t len, uint64_t *total, struct error *err)
{
	const uint8_t *p = data;
	struct stat sb;
	uint64_t max;
	ssize_t w;
	int fd;

	if ((fd = upload_open(u, id, O_WRONLY, err)) == -1)
		return -1;
	if (fstat(fd, &sb) == -1) {
		error_set(err, ERR_INTERNAL, "upload %s: %s", id,
		    strerror(errno));
		goto fail;
	}
	if ((uint64_t)sb.st_size != offset) {
		error_set(err, ERR_CONFLICT, "upload %s has %lld bytes, the "
		    "chunk is for offset %llu", id, (long long)sb.st_size,
		    (unsigned long long)offset);
		goto fail;
	}
	if (offset + len > (max = u->max_bytes)) {
		error_set(err, ERR_TOO_LARGE, "upload %s would pass %llu bytes "
		    "(limit)", id, (unsigned long long)max);
		goto fail;
	}
	while (len > 0) {
		w = pwrite(fd, p, len, (off_t)offset);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* A full disk is not the client's fault: 507, and
			 * the same chunk can be sent again. */
			error_set(err, w == -1 && (errno == ENOSPC ||
			    errno == EDQUOT) ? ERR_NO_SPACE : ERR_INTERNAL,
			    "upload %s: write: %s", id, w == 0 ?
			    "nothing written" : strerror(errno));
			/* Leave the file as it was, so a retry can work. */
			if (ftruncate(fd, sb.st_size) == -1)
				error_set(err, ERR_INTERNAL, "upload %s: "
				    "truncate: %s", id, strerror(errno));
			goto fail;
		}
		p += w;
		len -= (size_t)w;
		offset += (uint64_t)w;
	}
	*total = offset;
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

int
uploads_take(struct uploads *u, const char *id, struct error *err)
{
	char *path;
	int fd;

	if ((fd = upload_open(u, id, O_RDONLY, err)) == -1)
		return -1;
	path = upload_path(u, id);
	if (unlink(path) == 0)
		atomic_fetch_sub(&u->nopen, 1);
	free(path);
	return fd;
}

int
uploads_open_read(struct uploads *u, const char *id, struct error *err)
{
	return upload_open(u, id, O_RDONLY, err);
}

int
uploads_remove(struct uploads *u, const char *id, struct error *err)
{
	int fd = uploads_take(u, id, err);

	if (fd == -1)
		return -1;
	close(fd);
	return 0;
}

int
uploads_sweep(struct uploads *u, int64_t max_idle_s)
{
	DIR *d;
	struct dirent *de;
	struct stat sb;
	time_t now = time(NULL);
	char *path;
	int n = 0;

	if ((d = opendir(u->dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!uploads_id_valid(de->d_name))
			continue;
		path = upload_path(u, de->d_name);
		if (lstat(path, &sb) == 0 && now - sb.st_mtime >= max_idle_s &&
		    unlink(path) == 0) {
			n++;
			if (u->nopen > 0)
				atomic_fetch_sub(&u->nopen, 1);
		}
		free(path);
	}
	closedir(d);
	return n;
}
