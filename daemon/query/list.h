/* list.h: flat and cum per source line of the functions whose names
 * match a regular expression, as go tool pprof -list computes them: the
 * graph at line granularity (a node per function, file and line), nodes
 * of a function grouped by source file.  The source text is for the
 * client to read: it is where the user is, not where profd runs. */
#ifndef PROFD_LIST_H
#define PROFD_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct csindex;
struct rx;
struct selection;

struct list_params {
	const struct selection *sel;
	const struct rx *re;		/* unanchored, on function names */
	const char *re_src;
};

struct list_line {
	int64_t line, flat, cum;
};

struct list_file {
	char *file;
	int64_t start_line;		/* the function's, 0 = unknown */
	int64_t flat, cum;		/* sums of its lines', as pprof's */
	struct list_line *lines;	/* by line */
	size_t nlines;
};

struct list_func {
	char *name;
	struct list_file *files;	/* by file; none: no source info */
	size_t nfiles;
};

struct list_result {
	struct store_metric metric;
	int64_t total, nprofiles;
	struct list_func *funcs;	/* by name */
	size_t nfuncs;
};

/* ERR_NOT_FOUND when no function matches. */
struct stack_source;
int list_query(struct stack_source *, const struct list_params *,
    struct list_result *, struct error *);
void list_result_clear(struct list_result *);

#endif
