/* spool-file.h: the spool directory's file work, which blocks and so runs
 * on the import or I/O thread: what a path in the spool means, listing the
 * tree (spool-list.c), importing one file and putting it away (deleted,
 * done/ or failed/ with a .error beside it).  No libevent, no HTTP; spool.c drives it.
 *
 *   DIR/<scope>/<name>            imported into <scope>, format from the
 *                                 extension, else detected
 *   DIR/<scope>/<format>/<name>   the format of the directory
 *   DIR/done/<scope>/<name>       imported, kept (--spool-keep)
 *   DIR/failed/<scope>/<name>     refused, beside <name>.error
 *
 * Names starting with a dot or ending in ".tmp" are being written and left
 * alone.  The rules are in docs/SPOOL.md. */
#ifndef PROFD_SPOOL_FILE_H
#define PROFD_SPOOL_FILE_H

#include <sys/types.h>

#include <fcntl.h>

#include <stddef.h>
#include <stdint.h>

#include "activity.h"
#include "error.h"

struct importer;

#define SPOOL_OPEN_DIR	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

#define SPOOL_DONE	"done"
#define SPOOL_FAILED	"failed"

/* A name being written (dot-file, *.tmp): not ours yet. */
int spool_name_in_progress(const char *name);
/* A top-level name that is not a scope: done, failed. */
int spool_name_reserved(const char *name);
/* The format a file name's extension forces, or NULL. */
const char *spool_ext_format(const char *name);

/* What a file's path relative to the spool means. */
struct spool_path {
	char scope[129];		/* "" for an entry at the top */
	const char *format;		/* forced format, or "auto" */
	const char *format_from;	/* "directory", "extension", NULL */
	const char *name;		/* the last component, in rel */
	int depth;			/* components: 1 top, 2, 3 */
};
/* 0, or -1 if rel is not a path of the layout. */
int spool_path_parse(const char *rel, struct spool_path *);

/* The spool directory, made if missing, with done/ and failed/ layout
 * checks; fills err with what is wrong for a clear start-up message. */
int spool_prepare(const char *dir, struct error *);

/* One entry found by a listing. */
struct spool_found {
	char *rel;
	int is_dir;			/* a scope or format directory */
	mode_t type;			/* S_IFREG, S_IFLNK, ... */
	uint64_t size;
	int64_t mtime_ns;
};

struct spool_listing {
	struct spool_found *v;
	size_t n, cap;
	size_t max;			/* files at most (dirs always);
					 * SIZE_MAX: no bound */
	int truncated;			/* more files than max */
	int young;			/* files skipped as too recent */
};

/* List the tree under rel ("" for all of it) as the layout reads it:
 * scope and format directories and the entries to handle, in progress
 * names left out.  Regular files modified less than settle_ns ago are
 * left out (and young set): a writer may still have them open. */
int spool_list(const char *dir, const char *rel, int64_t settle_ns,
    struct spool_listing *, struct error *);
void spool_listing_clear(struct spool_listing *);
/* lstat of one entry: 0, or -1 with errno (ENOENT: gone). */
int spool_stat(const char *dir, const char *rel, struct spool_found *);

/* The outcome of handling one file. */
enum spool_outcome {
	SPOOL_IMPORTED,		/* stored, then removed or kept in done/ */
	SPOOL_DUPLICATE,	/* already stored, removed or kept */
	SPOOL_REFUSED,		/* moved to failed/ with a .error */
	SPOOL_GONE,		/* no longer there */
	SPOOL_LEFT,		/* still being written: left for later */
	SPOOL_RETRY,		/* not the file's fault (store busy, I/O) */
};

struct spool_task {
	/* In. */
	const char *dir;
	const char *rel;
	int keep;			/* move to done/ instead of deleting */
	uint64_t max_bytes;		/* a larger file is refused */
	struct activity *activity;	/* or NULL */
	/* Out. */
	enum spool_outcome outcome;
	struct error err;		/* why refused / to retry */
	int64_t profile_id;
	char format[16];
	int64_t samples;
	char *dropped;			/* import_result_dropped(), or NULL */
	uint64_t bytes;
	char *moved_to;			/* done/ or failed/ path, or NULL */
	char *cleanup;			/* an error after the import, or NULL */
};

/* Import one file with the importer (on the import thread). */
void spool_file_import(struct importer *, struct spool_task *);
void spool_task_clear(struct spool_task *);
/* Path components in a spool-relative path ("" has none). */
int spool_depth(const char *rel);
/* Open the directory rel names (ncomp components of it), each component
 * without following links (a group member could plant one); -1 with
 * errno. */
int spool_open_rel(int dfd, const char *rel, int ncomp);
/* The directory holding rel's last component; *last names it. */
int spool_open_parent(int dfd, const char *rel, const char **last);
/* Whether a directory of that name belongs at that depth: a scope at the
 * top (0), a format under a scope (1). */
int spool_layout_dir(int depth, const char *name);

#endif
