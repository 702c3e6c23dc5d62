/* spool-file.c: what the spool's paths mean, and one file's import and
 * removal (the listing is in spool-list.c).
 *
 * Group members may write anywhere in the spool, so nothing here follows a
 * link they could plant: every path below the spool directory is opened
 * one component at a time with O_NOFOLLOW, entries are looked at with
 * AT_SYMLINK_NOFOLLOW, and files are moved with renameat2 between
 * directories opened that way. */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "alloc.h"
#include "clock.h"
#include "format.h"
#include "import.h"
#include "nitems.h"
#include "rfc3339.h"
#include "scopename.h"
#include "spool-file.h"

#define SPOOL_DIR_MODE		0770
#define SPOOL_MAX_SUFFIX	1000	/* name.1 ... name.999 */

int
spool_name_in_progress(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '.' || (n >= 4 && strcmp(name + n - 4, ".tmp") == 0);
}

int
spool_name_reserved(const char *name)
{
	return strcmp(name, SPOOL_DONE) == 0 ||
	    strcmp(name, SPOOL_FAILED) == 0 ||
	    strcmp(name, "lost+found") == 0;
}

static const struct {
	const char *ext;
	const char *format;
} spool_exts[] = {
	{ ".pprof", "pprof" },
	{ ".pb.gz", "pprof" },
	{ ".perfetto-trace", "perfetto" },
	{ ".pftrace", "perfetto" },
	{ ".folded", "folded" },
};

const char *
spool_ext_format(const char *name)
{
	size_t len[2], i, k, e;
	int nlen = 1;

	len[0] = strlen(name);
	/* Gzip is seen in the bytes; x.pftrace.gz is a Perfetto trace. */
	if (len[0] > 3 && strcasecmp(name + len[0] - 3, ".gz") == 0)
		len[nlen++] = len[0] - 3;
	for (k = 0; k < (size_t)nlen; k++)
		for (i = 0; i < NITEMS(spool_exts); i++) {
			e = strlen(spool_exts[i].ext);
			if (len[k] > e && strncasecmp(name + len[k] - e,
			    spool_exts[i].ext, e) == 0)
				return spool_exts[i].format;
		}
	return NULL;
}

int
spool_path_parse(const char *rel, struct spool_path *p)
{
	const char *s1, *s2, *ext;
	const struct format *f;
	char dir[NAME_MAX + 1];

	memset(p, 0, sizeof *p);
	p->format = "auto";
	if ((s1 = strchr(rel, '/')) == NULL) {
		p->name = rel;
		p->depth = 1;
		return rel[0] != '\0' ? 0 : -1;
	}
	if ((size_t)(s1 - rel) >= sizeof p->scope)
		return -1;
	memcpy(p->scope, rel, (size_t)(s1 - rel));
	p->scope[s1 - rel] = '\0';
	if (!scope_name_valid(p->scope))
		return -1;
	if ((s2 = strchr(s1 + 1, '/')) == NULL) {
		p->name = s1 + 1;
		p->depth = 2;
		if ((ext = spool_ext_format(p->name)) != NULL) {
			p->format = ext;
			p->format_from = "extension";
		}
	} else {
		if ((size_t)(s2 - s1 - 1) >= sizeof dir)
			return -1;
		memcpy(dir, s1 + 1, (size_t)(s2 - s1 - 1));
		dir[s2 - s1 - 1] = '\0';
		if ((f = format_find(dir)) == NULL || strchr(s2 + 1, '/'))
			return -1;
		/* The directory wins over the extension. */
		p->format = f->name;
		p->format_from = "directory";
		p->name = s2 + 1;
		p->depth = 3;
	}
	return p->name[0] != '\0' ? 0 : -1;
}

/* mkdir -p; 1 if the last one was made, 0 if it was there, -1. */
static int
spool_mkdirs(const char *path)
{
	char *dir = xstrdup(path), *p;
	int made = 0;

	for (p = dir + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char save = *p;

		*p = '\0';
		made = mkdir(dir, save == '\0' ? SPOOL_DIR_MODE : 0750) == 0;
		if (!made && errno != EEXIST) {
			free(dir);
			return -1;
		}
		*p = save;
		if (save == '\0')
			break;
	}
	free(dir);
	return made;
}

int
spool_prepare(const char *dir, struct error *err)
{
	struct stat sb;
	int made, fd;

	if (dir[0] != '/')
		return error_set(err, ERR_INPUT, "spool: %s is not an "
		    "absolute path", dir);
	if ((made = spool_mkdirs(dir)) == -1)
		return error_set(err, ERR_INTERNAL, "spool: cannot create %s: "
		    "%s", dir, strerror(errno));
	if (stat(dir, &sb) == -1 || !S_ISDIR(sb.st_mode))
		return error_set(err, ERR_INPUT, "spool: %s is not a "
		    "directory", dir);
	if (access(dir, R_OK | W_OK | X_OK) == -1)
		return error_set(err, ERR_INTERNAL, "spool: %s: %s (profd "
		    "runs as uid %u and must read, write and enter it)", dir,
		    strerror(errno), (unsigned)geteuid());
	/* Directories made below inherit the group (tmpfiles.d makes the
	 * system one 2770).  Where the sandbox forbids it, it stays as it
	 * is. */
	if (made)
		(void)chmod(dir, (sb.st_mode & 07777) | S_ISGID);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return error_set(err, ERR_INTERNAL, "spool: cannot open %s: %s",
		    dir, strerror(errno));
	if ((mkdirat(fd, SPOOL_FAILED, SPOOL_DIR_MODE) == -1 &&
	    errno != EEXIST) || fstatat(fd, SPOOL_FAILED, &sb,
	    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISDIR(sb.st_mode)) {
		close(fd);
		return error_set(err, ERR_INTERNAL, "spool: %s/%s must be a "
		    "directory profd can create", dir, SPOOL_FAILED);
	}
	close(fd);
	return 0;
}

int
spool_open_rel(int dfd, const char *rel, int ncomp)
{
	char comp[NAME_MAX + 1];
	const char *p = rel, *end;
	int fd = dup(dfd), next;

	while (fd != -1 && ncomp-- > 0 && *p != '\0') {
		if ((end = strchr(p, '/')) == NULL)
			end = p + strlen(p);
		if ((size_t)(end - p) >= sizeof comp) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, p, (size_t)(end - p));
		comp[end - p] = '\0';
		next = openat(fd, comp, SPOOL_OPEN_DIR);
		close(fd);
		fd = next;
		p = *end == '/' ? end + 1 : end;
	}
	return fd;
}

int
spool_layout_dir(int depth, const char *name)
{
	return depth == 0 ? scope_name_valid(name) :
	    depth == 1 && format_find(name) != NULL;
}

int
spool_depth(const char *rel)
{
	int n = rel[0] != '\0';

	for (; *rel != '\0'; rel++)
		n += *rel == '/';
	return n;
}

int
spool_open_parent(int dfd, const char *rel, const char **last)
{
	const char *slash = strrchr(rel, '/');

	*last = slash ? slash + 1 : rel;
	return spool_open_rel(dfd, rel, spool_depth(rel) - 1);
}

static const char *
spool_type_reason(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link: the spool does not follow links "
		    "(move the file itself in)";
	if (S_ISFIFO(mode))
		return "a FIFO: the spool imports regular files only";
	if (S_ISSOCK(mode))
		return "a socket: the spool imports regular files only";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device: the spool imports regular files only";
	if (S_ISDIR(mode))
		return "a directory where a profile file belongs (the only "
		    "directories in a scope are format directories, named as "
		    "format= names them: pprof, perfetto, folded, "
		    "perf-script, otlp)";
	return "not a regular file: the spool imports regular files only";
}

/* A file with another name elsewhere may be one its dropper cannot read
 * (a hard link to /etc/shadow): never opened for an import. */
static void
spool_link_reason(struct error *err, const struct stat *st)
{
	error_set(err, ERR_INPUT, "a hard link (%ju names): the spool "
	    "imports files with one name only (move or copy the file in, "
	    "do not link it)", (uintmax_t)st->st_nlink);
}

/* DIR/sub[/scope], made if missing; -1 with err. */
static int
spool_open_sub(int dfd, const char *sub, const char *scope,
    struct error *err)
{
	int sfd, tfd;

	if ((mkdirat(dfd, sub, SPOOL_DIR_MODE) == -1 && errno != EEXIST) ||
	    (sfd = openat(dfd, sub, SPOOL_OPEN_DIR)) == -1)
		return error_set(err, ERR_INTERNAL, "cannot make %s/ a "
		    "directory: %s", sub, strerror(errno));
	if (scope[0] == '\0')
		return sfd;
	if ((mkdirat(sfd, scope, SPOOL_DIR_MODE) == -1 && errno != EEXIST) ||
	    (tfd = openat(sfd, scope, SPOOL_OPEN_DIR)) == -1) {
		error_set(err, ERR_INTERNAL, "cannot make %s/%s/ a directory: "
		    "%s", sub, scope, strerror(errno));
		close(sfd);
		return -1;
	}
	close(sfd);
	return tfd;
}

static int
spool_taken(int fd, const char *name)
{
	struct stat sb;

	return fstatat(fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT;
}

/* rename that never replaces; where renameat2 is not supported the check
 * and the rename are two steps (only profd writes in done/ and failed/). */
static int
spool_move_noreplace(int from, const char *name, int to, const char *target)
{
	if (renameat2(from, name, to, target, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (spool_taken(to, target)) {
		errno = EEXIST;
		return -1;
	}
	return renameat(from, name, to, target);
}

/* Move name (in pfd) into tfd under its own name, else name.1, name.2, ...
 * (and, with_error, only where name.error is free too).  The new name, or
 * NULL with err. */
static char *
spool_put_away(int pfd, const char *name, int tfd, int with_error,
    struct error *err)
{
	char *target = NULL, *errname;
	int i, taken;

	for (i = 0; i < SPOOL_MAX_SUFFIX; i++) {
		free(target);
		if (i == 0)
			target = xstrdup(name);
		else
			xasprintf(&target, "%s.%d", name, i);
		if (with_error) {
			xasprintf(&errname, "%s.error", target);
			taken = spool_taken(tfd, errname);
			free(errname);
			if (taken)
				continue;
		}
		if (spool_move_noreplace(pfd, name, tfd, target) == 0)
			return target;
		if (errno != EEXIST && errno != ENOTEMPTY) {
			error_set(err, ERR_INTERNAL, "cannot move it: %s",
			    strerror(errno));
			free(target);
			return NULL;
		}
	}
	free(target);
	error_set(err, ERR_INTERNAL, "cannot move it: %s to %s.%d are all "
	    "taken", name, name, SPOOL_MAX_SUFFIX - 1);
	return NULL;
}

/* target.error, written aside and renamed so it is never half there. */
static int
spool_write_error(int tfd, const char *target, const char *text)
{
	char *tmp, *final;
	size_t len = strlen(text), off = 0;
	ssize_t n;
	int fd, rc = -1;

	xasprintf(&tmp, ".%s.error.tmp", target);
	xasprintf(&final, "%s.error", target);
	if ((fd = openat(tfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0660)) == -1)
		goto out;
	while (off < len && (n = write(fd, text + off, len - off)) > 0)
		off += (size_t)n;
	if (close(fd) == 0 && off == len && renameat(tfd, tmp, tfd, final) == 0)
		rc = 0;
	else
		unlinkat(tfd, tmp, 0);
out:
	free(tmp);
	free(final);
	return rc;
}

struct spool_ctx {
	struct spool_task *t;
	const struct spool_path *p;
	char *path;			/* DIR/rel, for messages */
	int dfd, pfd;
	const char *last;
	int ended;			/* activity_end called */
};

/* The import of the file ended: counted done (err NULL) or failed. */
static void
spool_end(struct spool_ctx *c, const struct error *err)
{
	c->ended = 1;
	activity_end(c->t->activity, ACT_SPOOL, c->path, c->p->scope, err);
}

/* Refuse the entry with the reason in t->err: into failed/<scope>/ with
 * a .error beside it.  If it cannot be moved it stays (retried later). */
static void
spool_refuse(struct spool_ctx *c)
{
	struct spool_task *t = c->t;
	struct error err = { 0 };
	char when[64], *target, *text;
	int tfd;

	if ((tfd = spool_open_sub(c->dfd, SPOOL_FAILED, c->p->scope,
	    &err)) == -1 ||
	    (target = spool_put_away(c->pfd, c->last, tfd, 1, &err)) == NULL) {
		xasprintf(&t->cleanup, "refused (%s), but %s", t->err.msg,
		    err.msg);
		t->outcome = SPOOL_RETRY;
		if (tfd != -1)
			close(tfd);
		return;
	}
	format_rfc3339(now_ns(), when, sizeof when);
	xasprintf(&text, "%s\n"
	    "file: %s\n"
	    "scope: %s\n"
	    "format: %s%s%s%s\n"
	    "time: %s\n"
	    "status: %d %s (what a push of the same bytes gets)\n",
	    t->err.msg, c->path, c->p->scope[0] ? c->p->scope : "(none)",
	    c->p->format, c->p->format_from ? " (from the " : "",
	    c->p->format_from ? c->p->format_from : "",
	    c->p->format_from ? ")" : "", when, error_http_status(&t->err),
	    error_kind_name(t->err.kind));
	if (spool_write_error(tfd, target, text) == -1)
		xasprintf(&t->cleanup, "refused, but cannot write %s.error: "
		    "%s", target, strerror(errno));
	free(text);
	xasprintf(&t->moved_to, "%s/%s%s%s/%s", t->dir, SPOOL_FAILED,
	    c->p->scope[0] ? "/" : "", c->p->scope, target);
	free(target);
	close(tfd);
	t->outcome = SPOOL_REFUSED;
}

static int spool_changed(int, struct spool_ctx *, const struct stat *);

/* After the commit: delete the file, or keep it in done/<scope>/.  Only
 * if the name still holds what was imported: a file renamed over it or
 * written again meanwhile is new, imported on its own. */
static void
spool_remove(struct spool_ctx *c, int fd, const struct stat *imported)
{
	struct spool_task *t = c->t;
	struct error err = { 0 };
	char *target;
	int tfd;

	if (spool_changed(fd, c, imported))
		return;
	if (!t->keep) {
		if (unlinkat(c->pfd, c->last, 0) == -1)
			xasprintf(&t->cleanup, "imported, but cannot remove "
			    "it: %s", strerror(errno));
		return;
	}
	if ((tfd = spool_open_sub(c->dfd, SPOOL_DONE, c->p->scope,
	    &err)) == -1 ||
	    (target = spool_put_away(c->pfd, c->last, tfd, 0, &err)) == NULL) {
		xasprintf(&t->cleanup, "imported, but %s", err.msg);
		if (tfd != -1)
			close(tfd);
		return;
	}
	xasprintf(&t->moved_to, "%s/%s/%s/%s", t->dir, SPOOL_DONE,
	    c->p->scope, target);
	free(target);
	close(tfd);
}

/* Did the file change while it was read (a writer still at it)? */
static int
spool_changed(int fd, struct spool_ctx *c, const struct stat *before)
{
	struct stat now, cur;

	if (fstat(fd, &now) == -1 ||
	    fstatat(c->pfd, c->last, &cur, AT_SYMLINK_NOFOLLOW) == -1)
		return 1;
	return now.st_size != before->st_size ||
	    now.st_mtim.tv_sec != before->st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != before->st_mtim.tv_nsec ||
	    cur.st_dev != before->st_dev || cur.st_ino != before->st_ino;
}

static void
spool_import_fd(struct importer *im, struct spool_ctx *c, int fd,
    const struct stat *st)
{
	struct spool_task *t = c->t;
	struct import_request req;
	struct import_result res;

	t->bytes = (uint64_t)st->st_size;
	activity_begin(t->activity, ACT_SPOOL, c->path, c->p->scope, fd,
	    (int64_t)st->st_size);
	memset(&req, 0, sizeof req);
	req.scope = c->p->scope;
	req.format = c->p->format;
	req.name = c->last;
	req.fd = fd;
	req.progress = activity_progress(t->activity);
	/* Whatever the file holds, only its dropper should see it. */
	req.no_quote = 1;
	req.opts.bucket_ns = 1000000000;
	if (importer_run(im, &req, &res, &t->err) == 0) {
		spool_end(c, NULL);
		t->outcome = res.duplicate ? SPOOL_DUPLICATE : SPOOL_IMPORTED;
		t->profile_id = res.profile_id;
		t->samples = res.samples;
		if (res.ncounts > 0) {
			char dropped[512];

			import_result_dropped(&res, dropped, sizeof dropped);
			t->dropped = xstrdup(dropped);
		}
		snprintf(t->format, sizeof t->format, "%s", res.format);
		import_result_clear(&res);
		spool_remove(c, fd, st);
		return;
	}
	if (t->err.kind == ERR_BUSY || t->err.kind == ERR_NO_SPACE ||
	    t->err.kind == ERR_INTERNAL) {
		/* Not the file's fault: it stays for a later try. */
		spool_end(c, &t->err);
		t->outcome = SPOOL_RETRY;
		return;
	}
	if (spool_changed(fd, c, st)) {
		activity_abandon(t->activity);
		t->outcome = SPOOL_LEFT;
		return;
	}
	spool_end(c, &t->err);
	spool_refuse(c);
}

void
spool_file_import(struct importer *im, struct spool_task *t)
{
	struct spool_path p;
	struct spool_ctx c;
	struct stat lst, st;
	int fd = -1;

	memset(&c, 0, sizeof c);
	c.t = t;
	c.p = &p;
	c.dfd = c.pfd = -1;
	t->outcome = SPOOL_RETRY;
	xasprintf(&c.path, "%s/%s", t->dir, t->rel);
	if (spool_path_parse(t->rel, &p) == -1) {
		error_set(&t->err, ERR_INTERNAL, "%s is not a path of the "
		    "spool's layout", t->rel);
		t->outcome = SPOOL_LEFT;
		goto out;
	}
	if ((c.dfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		error_set(&t->err, ERR_INTERNAL, "cannot open the spool "
		    "directory: %s", strerror(errno));
		goto out;
	}
	if ((c.pfd = spool_open_parent(c.dfd, t->rel, &c.last)) == -1 ||
	    fstatat(c.pfd, c.last, &lst, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			t->outcome = SPOOL_GONE;
		else
			error_set(&t->err, ERR_INTERNAL, "cannot look at it: "
			    "%s", strerror(errno));
		goto out;
	}
	if (p.depth == 1) {
		/* At the top only scope directories belong. */
		if (S_ISDIR(lst.st_mode) && spool_layout_dir(0, c.last) &&
		    !spool_name_reserved(c.last) &&
		    !spool_name_in_progress(c.last)) {
			t->outcome = SPOOL_LEFT;
			goto out;
		}
		if (S_ISDIR(lst.st_mode))
			error_set(&t->err, ERR_INPUT, "\"%.200s\" is not a "
			    "valid scope name ([A-Za-z0-9._-], 1 to 128 "
			    "characters)", c.last);
		else if (S_ISREG(lst.st_mode))
			error_set(&t->err, ERR_INPUT, "a file outside any "
			    "scope directory: put it in %s/<scope>/", t->dir);
		else
			error_set(&t->err, ERR_INPUT, "%s",
			    spool_type_reason(lst.st_mode));
		spool_end(&c, &t->err);
		spool_refuse(&c);
		goto out;
	}
	if (!S_ISREG(lst.st_mode)) {
		if (S_ISDIR(lst.st_mode) && p.depth == 2 &&
		    spool_layout_dir(1, c.last)) {
			t->outcome = SPOOL_LEFT;
			goto out;
		}
		error_set(&t->err, ERR_INPUT, "%s",
		    spool_type_reason(lst.st_mode));
		goto refuse;
	}
	if (lst.st_nlink > 1) {
		spool_link_reason(&t->err, &lst);
		goto refuse;
	}
	/* O_NONBLOCK: a FIFO swapped in after the fstatat does not hang
	 * the open. */
	fd = openat(c.pfd, c.last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT)
			t->outcome = SPOOL_GONE;
		else if (errno == ELOOP) {
			error_set(&t->err, ERR_INPUT, "%s",
			    spool_type_reason(S_IFLNK));
			goto refuse;
		} else if (errno == EACCES || errno == EPERM) {
			error_set(&t->err, ERR_INPUT, "profd cannot read it: "
			    "%s", strerror(errno));
			goto refuse;
		} else
			error_set(&t->err, ERR_INTERNAL, "cannot open it: %s",
			    strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) == -1) {
		error_set(&t->err, ERR_INTERNAL, "fstat: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		error_set(&t->err, ERR_INPUT, "%s",
		    spool_type_reason(st.st_mode));
		goto refuse;
	}
	/* Checked again on what was opened: a link made or a file swapped
	 * in since the fstatat. */
	if (st.st_nlink == 0) {
		t->outcome = SPOOL_GONE;
		goto out;
	}
	if (st.st_nlink > 1) {
		spool_link_reason(&t->err, &st);
		goto refuse;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if ((uint64_t)st.st_size > t->max_bytes) {
		error_set(&t->err, ERR_TOO_LARGE, "the file is %llu bytes "
		    "(limit %llu, max-upload)", (unsigned long long)st.st_size,
		    (unsigned long long)t->max_bytes);
		goto refuse;
	}
	spool_import_fd(im, &c, fd, &st);
	goto out;
refuse:
	spool_end(&c, &t->err);
	spool_refuse(&c);
out:
	/* A failure before the import (an unreadable directory): counted
	 * and kept as an import's would be. */
	if (!c.ended && t->outcome == SPOOL_RETRY)
		spool_end(&c, &t->err);
	if (fd != -1)
		close(fd);
	if (c.pfd != -1)
		close(c.pfd);
	if (c.dfd != -1)
		close(c.dfd);
	free(c.path);
}

void
spool_task_clear(struct spool_task *t)
{
	free(t->moved_to);
	free(t->cleanup);
	free(t->dropped);
	t->moved_to = t->cleanup = t->dropped = NULL;
}
