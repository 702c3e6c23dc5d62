/* spool-list.c: listing the spool's tree and looking at one entry, on the
 * I/O thread.  Like spool-file.c it follows no link: directories are
 * opened one component at a time with O_NOFOLLOW and entries looked at
 * with AT_SYMLINK_NOFOLLOW. */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "clock.h"
#include "spool-file.h"
static int64_t
spool_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Type, size (of a regular file) and mtime from a stat. */
static void
spool_found_stat(struct spool_found *f, const struct stat *st)
{
	f->type = st->st_mode & S_IFMT;
	f->size = S_ISREG(st->st_mode) ? (uint64_t)st->st_size : 0;
	f->mtime_ns = spool_mtime_ns(st);
}

static void
spool_listing_add(struct spool_listing *l, const char *rel, int is_dir,
    const struct stat *st)
{
	struct spool_found *f;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	f = &l->v[l->n++];
	memset(f, 0, sizeof *f);
	f->rel = xstrdup(rel);
	f->is_dir = is_dir;
	spool_found_stat(f, st);
}

/* One directory at depth (0 the spool, 1 a scope, 2 a format), fd owned;
 * files younger than cutoff_ns are left out. */
static void
spool_list_dir(int fd, const char *rel, int depth, int64_t cutoff_ns,
    size_t *nfiles, struct spool_listing *l)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	char *child;
	int cfd;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (spool_name_in_progress(de->d_name) ||
		    (depth == 0 && spool_name_reserved(de->d_name)))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (rel[0] == '\0')
			child = xstrdup(de->d_name);
		else
			xasprintf(&child, "%s/%s", rel, de->d_name);
		if (S_ISDIR(st.st_mode) && spool_layout_dir(depth,
		    de->d_name)) {
			spool_listing_add(l, child, 1, &st);
			if ((cfd = openat(dirfd(d), de->d_name,
			    SPOOL_OPEN_DIR)) != -1)
				spool_list_dir(cfd, child, depth + 1,
				    cutoff_ns, nfiles, l);
		} else if (S_ISREG(st.st_mode) &&
		    spool_mtime_ns(&st) > cutoff_ns)
			l->young = 1;
		else if (*nfiles >= l->max)
			l->truncated = 1;
		else {
			spool_listing_add(l, child, 0, &st);
			(*nfiles)++;
		}
		free(child);
	}
	closedir(d);
}

/* Directories first, then files oldest first (as they were dropped). */
static int
spool_found_cmp(const void *a, const void *b)
{
	const struct spool_found *x = a, *y = b;

	if (x->is_dir != y->is_dir)
		return y->is_dir - x->is_dir;
	if (!x->is_dir && x->mtime_ns != y->mtime_ns)
		return x->mtime_ns < y->mtime_ns ? -1 : 1;
	return strcmp(x->rel, y->rel);
}

int
spool_list(const char *dir, const char *rel, int64_t settle_ns,
    struct spool_listing *l, struct error *err)
{
	size_t nfiles = 0;
	int dfd, fd, depth = spool_depth(rel);

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return error_set(err, ERR_INTERNAL, "spool: cannot open %s: %s",
		    dir, strerror(errno));
	fd = spool_open_rel(dfd, rel, depth);
	close(dfd);
	/* Gone or replaced since it was seen: nothing to list. */
	if (fd == -1)
		return 0;
	spool_list_dir(fd, rel, depth, now_ns() - settle_ns, &nfiles, l);
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, spool_found_cmp);
	return 0;
}

void
spool_listing_clear(struct spool_listing *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].rel);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
	l->truncated = l->young = 0;
}

int
spool_stat(const char *dir, const char *rel, struct spool_found *f)
{
	struct stat st;
	const char *last;
	int dfd, pfd, rc, saved;

	memset(f, 0, sizeof *f);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	pfd = spool_open_parent(dfd, rel, &last);
	saved = errno;
	close(dfd);
	if (pfd == -1) {
		/* A parent that is not a directory any more: gone. */
		errno = saved == ENOTDIR || saved == ELOOP ? ENOENT : saved;
		return -1;
	}
	rc = fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW);
	saved = errno;
	close(pfd);
	if (rc == -1) {
		errno = saved;
		return -1;
	}
	spool_found_stat(f, &st);
	return 0;
}
