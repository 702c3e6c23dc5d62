/* profctl.h: the client's modules and their prototypes, grouped by file.
 * profctl knows the HTTP API and how to render it, nothing of the daemon. */
#ifndef PROFCTL_H
#define PROFCTL_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#ifndef PROFD_VERSION
#define PROFD_VERSION "0.1.0"
#endif

/* Exit codes, documented in profctl --help. */
#define PROFCTL_EXIT_OK		0	/* success */
#define PROFCTL_EXIT_REFUSED	1	/* the daemon refused the request */
#define PROFCTL_EXIT_USAGE	2	/* usage error or daemon unreachable */

/* xmalloc.c: allocators that abort instead of returning NULL. */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/* paths.c: where profd's socket is when nobody says otherwise. */
char	*paths_socket_for(uid_t, const char *);
char	*paths_default_socket(void);
char	*paths_socket(const char *);

/* http.c: one request and its reply over profd's Unix socket. */
#define HTTP_ECONNECT	-1	/* profd could not be reached */
#define HTTP_EBROKEN	-2	/* the exchange broke off */
struct http;
struct http_reply {
	long	 status;	/* HTTP status code */
	char	*body;		/* NUL-terminated */
	size_t	 len;
	json_t	*json;		/* the parsed body, NULL if it was not JSON */
};
struct http	*http_new(const char *);
void		 http_free(struct http *);
const char	*http_socket(const struct http *);
int		 http_request(struct http *, const char *, const char *,
		     const void *, size_t, struct http_reply *, char **);
void		 http_reply_clear(struct http_reply *);
void		 http_query_add(char **, const char *, const char *);
char		*http_escape(const char *);

/* units.c: pprof's measurement rules (scaling, labels, percentages). */
#define UNITS_LABEL_MAX	256
#define UNITS_PERCENT_MAX	32
double		 units_scale(int64_t, const char *, const char *,
		     const char **);
const char	*units_scaled_label(int64_t, const char *, const char *,
		     char *, size_t);
const char	*units_percentage(int64_t, int64_t, char *, size_t);

/* render.c: text output of the replies (tables, pprof's -top). */
struct render_top_row {
	const char	*name;
	int64_t		 flat;
	int64_t		 cum;
	const char	*inl;	/* "inline", "partial-inline" or NULL */
};
struct render_top {
	const char			*unit;		/* sample unit */
	int64_t				 total;		/* sum of |value| */
	const struct render_top_row	*rows;		/* in display order */
	size_t				 nrows;
	size_t				 rows_total;	/* rows before limit */
	size_t				 dropped;	/* nodes under cutoff */
	int64_t				 cutoff;
};
const char	*render_output_unit(const struct render_top *);
void		 render_top(FILE *, const struct render_top *);
int		 render_top_json(FILE *, json_t *, char **);
int		 render_scopes_json(FILE *, json_t *, char **);
int		 render_profiles_json(FILE *, json_t *, char **);
void		 render_json(FILE *, json_t *);
void		 render_clean(char *);

/* flamegraph.c: a tree reply as an interactive SVG flame graph. */
struct flamegraph_opts {
	const char	*title;		/* NULL: "[Differential ]Flame Graph" */
	double		 width;		/* px, 0: 1200 */
	double		 min_px;	/* narrower frames left out, 0: 0.1 */
};
int		 flamegraph_render(FILE *, json_t *,
		     const struct flamegraph_opts *, char **);
const char	*flamegraph_kind(const char *, const char *);
void		 flamegraph_color(const char *, const char *, char *, size_t);
double		 flamegraph_diff_change(int64_t, int64_t, int64_t, int64_t);
void		 flamegraph_diff_color(int64_t, int64_t, int64_t, int64_t,
		     char *, size_t);
json_t		*flamegraph_diff_merge(json_t *, json_t *);

/* client.c: the connection the commands share and their common errors. */
struct client {
	char		*socket;	/* --socket, NULL for the default */
	struct http	*http;		/* made on first use */
};
void	 client_free(struct client *);
int	 client_call(struct client *, const char *, const char *,
	     const void *, size_t, struct http_reply *, const char *);
int	 client_get(struct client *, const char *, struct http_reply *);

/* cmd.c: the command table and option helpers. */
struct cmd_entry {
	const char	*name;
	const char	*usage;
	int		(*exec)(struct client *, int, char **);
};
extern const struct cmd_entry	*cmd_table[];
const struct cmd_entry	*cmd_find(const char *);
void			 cmd_print_usage(FILE *, const struct cmd_entry *);
int			 cmd_usage_error(const struct cmd_entry *,
			     const char *, ...)
			    __attribute__((format(printf, 2, 3)));
int			 cmd_common_option(const struct cmd_entry *,
			     struct client *, int, char **);
int			 cmd_finish(int);

/* cmd-*.c: one file per command. */
extern const struct cmd_entry	cmd_push_entry;
extern const struct cmd_entry	cmd_scopes_entry;
extern const struct cmd_entry	cmd_profiles_entry;
extern const struct cmd_entry	cmd_top_entry;
extern const struct cmd_entry	cmd_flamegraph_entry;

#endif
