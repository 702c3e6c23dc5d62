/* profctl.h: the client's modules and their prototypes, grouped by file.
 * profctl knows the HTTP API and how to render it, nothing of the daemon. */
#ifndef PROFCTL_H
#define PROFCTL_H

#include <sys/types.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#ifndef PROFD_VERSION
#define PROFD_VERSION "0.1.0"
#endif

/* Exit codes, documented in profctl --help. */
/* A sum of values from a reply, wrapping as Go's int64 does in pprof
 * (a signed overflow would be undefined; fuzz_client_render found one). */
static inline int64_t
profctl_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

#define PROFCTL_EXIT_OK		0	/* success */
#define PROFCTL_EXIT_REFUSED	1	/* the daemon refused the request */
#define PROFCTL_EXIT_USAGE	2	/* usage error or daemon unreachable */

/* paths.c: where profd's socket is when nobody says otherwise. */
char	*paths_socket_for(uid_t, const char *);
char	*paths_default_socket(void);
char	*paths_socket(const char *);
char	*paths_config_socket(const char *);
#define PATHS_SYSTEM_CONFIG	"/etc/profd/profd.conf"

/* http.c: one request and its reply over profd's Unix socket, the reply
 * read whole (http_request) or as it streams in (http_stream_*). */
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
int		 http_request_type(struct http *, const char *, const char *,
		     const char *, const void *, size_t, struct http_reply *,
		     char **);
struct http_stream;
int		 http_stream_open(struct http *, const char *, const char *,
		     const char *, const void *, size_t, struct http_stream **,
		     char **);
long		 http_stream_status(const struct http_stream *);
ssize_t		 http_stream_read(struct http_stream *, char *, size_t,
		     char **);
int		 http_stream_rest(struct http_stream *, size_t,
		     struct http_reply *, char **);
void		 http_stream_close(struct http_stream *);
void		 http_query_add(char **, const char *, const char *);
char		*http_escape(const char *);
/* What a request in progress says while it lasts (profctl push's live
 * line): sent after each slice of the body, waiting every
 * HTTP_WAIT_TICK_MS while profd has taken the body and not answered.
 * Requests the callbacks make themselves on the same struct http are
 * not watched. */
#define HTTP_WAIT_TICK_MS	250
struct http_watch {
	void	(*sent)(void *, uint64_t done, uint64_t total);
	void	(*waiting)(void *);
	void	(*answered)(void *);	/* the reply begins, or it failed */
	void	 *arg;
};
/* Watch the requests made from now on (NULL: none). */
void		 http_watch(struct http *, const struct http_watch *);

/* progress.c: how far long work is, for a person: the phrase for an import
 * in flight (GET /v1/status's importing) and a live line on a terminal,
 * redrawn in place. */
#define PROGRESS_LINE_MAX	512
#define PROGRESS_WIDTH		79	/* columns drawn, so it never wraps */
struct progress {
	FILE	*f;			/* the terminal: stderr */
	int	 on;			/* 0: nothing is ever drawn */
	int64_t	 drawn_ns;		/* CLOCK_MONOTONIC of the last */
	char	 last[PROGRESS_LINE_MAX];
};
const char	*progress_count(int64_t, char *, size_t);
const char	*progress_bytes(int64_t, char *, size_t);
const char	*progress_import(json_t *, char *, size_t);
void		 progress_show(struct progress *, int, const char *, ...)
		     __attribute__((format(printf, 3, 4)));
void		 progress_clear(struct progress *);
int64_t		 progress_now_ns(void);	/* CLOCK_MONOTONIC */
int64_t		 progress_per_s(int64_t, double);

/* http-reply.c: the reply parser (its internals in http-int.h). */
void		 http_reply_clear(struct http_reply *);

/* jstream.c: a JSON reply read as it arrives, each scalar and each
 * container the user takes whole handed over as a jansson value. */
enum jstream_ev {
	JSTREAM_OBJECT,		/* an object begins: KEY, value, ..., END */
	JSTREAM_OBJECT_END,
	JSTREAM_ARRAY,		/* an array begins: its values, END */
	JSTREAM_ARRAY_END,
	JSTREAM_KEY,		/* a member's key; its value follows */
	JSTREAM_VALUE		/* a scalar, or a container taken whole */
};
struct jstream_event {
	enum jstream_ev	 ev;
	size_t		 depth;	/* containers around the value (the top
				   one: 0); for KEY, around its value */
	json_t		*key;	/* the member's key (a string) in an
				   object, NULL in an array and at the top */
	json_t		*value;	/* JSTREAM_VALUE */
};
/* Is the container beginning ('[' or '{') at depth, under key, taken
 * whole? */
typedef int	(*jstream_whole_fn)(void *, size_t, json_t *, int);
typedef int	(*jstream_event_fn)(void *, const struct jstream_event *,
		    char **);
struct jstream;
struct jstream	*jstream_new(jstream_whole_fn, jstream_event_fn, void *);
void		 jstream_free(struct jstream *);
int		 jstream_feed(struct jstream *, const char *, size_t, char **);
int		 jstream_end(struct jstream *, char **);

/* termsafe.c: what profctl prints that it did not write itself (profd's
 * replies, a profile's names, file names) shown, never obeyed, by the
 * terminal: controls, C1 controls and bytes that are not UTF-8 as
 * escapes. The render_* functions print a reply termsafe_json has made
 * safe; the rest of what they print is profctl's own. */
#define TERMSAFE_NL	0x1	/* newlines stay */
#define TERMSAFE_TAB	0x2	/* tabs stay */
#define TERMSAFE_TEXT	(TERMSAFE_NL | TERMSAFE_TAB)	/* lines of text */
struct termsafe_out {
	FILE	*f;
	int	 flags;
	char	 held[4];	/* a UTF-8 sequence's start, until its rest */
	size_t	 nheld;
};
char	*termsafe(const char *, int);
char	*termsafe_mem(const char *, size_t, int, size_t *);
void	 termsafe_write(FILE *, const char *, size_t, int);
void	 termsafe_line(FILE *, const char *, ...)
	     __attribute__((format(printf, 2, 3)));
void	 termsafe_vline(FILE *, const char *, va_list)
	     __attribute__((format(printf, 2, 0)));
void	 termsafe_out_init(struct termsafe_out *, FILE *, int);
void	 termsafe_out_write(struct termsafe_out *, const char *, size_t);
void	 termsafe_out_end(struct termsafe_out *);
void	 termsafe_json(json_t *);
size_t	 termsafe_width(const char *);
size_t	 termsafe_fit(const char *, size_t);
void	 termsafe_pad(FILE *, const char *, size_t, int);

/* units.c (daemon/base, shared with profd): pprof's measurement rules. */
#include "units.h"

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
void		 render_head(FILE *, json_t *);
void		 render_type(FILE *, json_t *);
void		 render_showing(FILE *, const char *, const char *, int64_t,
		     int64_t);
int		 render_int(json_t *, const char *, int64_t *);
const char	*render_str(json_t *, const char *);

/* render-views.c: pprof's -tags; render-list.c -list. */
int		 render_tags_json(FILE *, json_t *, char **);
struct render_list_opts {
	const char	*source_path;	/* NULL: the working directory */
	const char	*trim_path;	/* NULL: none */
};
int		 render_list(FILE *, json_t *, const struct render_list_opts *,
		     char **);
int		 render_scopes_json(FILE *, json_t *, char **);
int		 render_profiles_json(FILE *, json_t *, char **);
const char	*render_time(json_t *, const char *, char *, size_t);
int		 render_bad(char **, const char *);
int64_t		 render_get_int(json_t *, const char *);
int64_t		 render_abs(int64_t);
const char	*render_unit(json_t *);
const char	*render_output_unit_for(const char *, int64_t, int64_t);

/* render-json.c: a reply as --json prints it, whole or as it streams. */
void		 render_json(FILE *, json_t *);
struct render_json_stream;
struct render_json_stream *render_json_stream_new(FILE *);
void		 render_json_stream_free(struct render_json_stream *);
int		 render_json_stream_feed(void *, const char *, size_t, char **);
int		 render_json_stream_error(const struct render_json_stream *,
		     const char **, const char **);

/* render-tree.c: GET /v1/tree as an indented tree. */
int		 render_tree_json(FILE *, json_t *, char **);

/* render-diff.c: GET /v1/diff as a table of the top deltas. */
int		 render_diff_json(FILE *, json_t *, char **);

/* render-query.c: POST /v1/query's rows as a table, CSV, as they come. */
struct render_query;
struct render_query *render_query_new(FILE *, int);
void		 render_query_free(struct render_query *);
int		 render_query_feed(void *, const char *, size_t, char **);
size_t		 render_query_rows(const struct render_query *);
int		 render_query_truncated(const struct render_query *);
int		 render_query_failed(const struct render_query *, const char **,
		     const char **);
void		 render_query_csv_field(FILE *, const char *);

/* render-timeline.c: GET /v1/timeline as a sparkline. */
#define RENDER_TIMELINE_COLUMNS	120
size_t		 render_timeline_bin(const double *, size_t, double *, size_t);
void		 render_timeline_sparkline(FILE *, const double *, size_t);
int		 render_timeline_json(FILE *, json_t *, char **);

/* render-status.c: GET /v1/status as lines a person reads. */
int		 render_status_json(FILE *, json_t *, char **);

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
void	 client_watch(struct client *, const struct http_watch *);
int	 client_try_get(struct client *, const char *, struct http_reply *);
int	 client_get_raw(struct client *, const char *, struct http_reply *);
int	 client_post_type(struct client *, const char *, const char *,
	     const void *, size_t, struct http_reply *);
#define CLIENT_STREAM_BUF	65536		/* a piece of a streamed body */
#define CLIENT_ERROR_MAX	((size_t)1 << 20)	/* of an error reply */
typedef int	(*client_feed_fn)(void *, const char *, size_t, char **);
int	 client_stream(struct client *, const char *, const char *,
	     const char *, const void *, size_t, client_feed_fn, void *);

/* selection.c: the selection flags the query commands share. Options with
 * codes 's' and 'm' (--scope, --metric), SELECTION_OPT + i and
 * SELECTION_BASE_OPT + i (--base-…, a diff's base.* parameters). */
#define SELECTION_NKEYS		11
#define SELECTION_OPT		0x100
#define SELECTION_BASE_OPT	0x200
#define SELECTION_OPTIONS						\
	{ "scope",	required_argument,	NULL, 's' },			\
	{ "metric",	required_argument,	NULL, 'm' },			\
	{ "since",	required_argument,	NULL, SELECTION_OPT + 2 },	\
	{ "until",	required_argument,	NULL, SELECTION_OPT + 3 },	\
	{ "profile",	required_argument,	NULL, SELECTION_OPT + 4 },	\
	{ "label",	required_argument,	NULL, SELECTION_OPT + 5 },	\
	{ "focus",	required_argument,	NULL, SELECTION_OPT + 6 },	\
	{ "ignore",	required_argument,	NULL, SELECTION_OPT + 7 },	\
	{ "hide",	required_argument,	NULL, SELECTION_OPT + 8 },	\
	{ "show",	required_argument,	NULL, SELECTION_OPT + 9 },	\
	{ "aggregate",	required_argument,	NULL, SELECTION_OPT + 10 }
#define SELECTION_BASE_OPTIONS						\
	{ "base-scope",	required_argument, NULL, SELECTION_BASE_OPT + 0 }, \
	{ "base-metric", required_argument, NULL, SELECTION_BASE_OPT + 1 }, \
	{ "base-since",	required_argument, NULL, SELECTION_BASE_OPT + 2 }, \
	{ "base-until",	required_argument, NULL, SELECTION_BASE_OPT + 3 }, \
	{ "base-profile", required_argument, NULL, SELECTION_BASE_OPT + 4 }, \
	{ "base-label",	required_argument, NULL, SELECTION_BASE_OPT + 5 }, \
	{ "base-focus",	required_argument, NULL, SELECTION_BASE_OPT + 6 }, \
	{ "base-ignore", required_argument, NULL, SELECTION_BASE_OPT + 7 }, \
	{ "base-hide",	required_argument, NULL, SELECTION_BASE_OPT + 8 }, \
	{ "base-show",	required_argument, NULL, SELECTION_BASE_OPT + 9 }, \
	{ "base-aggregate", required_argument, NULL, SELECTION_BASE_OPT + 10 }
/* --fleet and --host H (repeatable): the view of the whole fleet, as
 * ClickHouse holds it (fleet=1, host=H), for the views that have one. */
#define FLEET_OPT		0x380
#define FLEET_OPTIONS							\
	{ "fleet",	no_argument,		NULL, FLEET_OPT },		\
	{ "host",	required_argument,	NULL, FLEET_OPT + 1 }
#define FLEET_USAGE							\
	"--fleet asks the fleet (every profd shipping to the ClickHouse of\n" \
	"    this profd's --fleet-url) instead of this host; --host H (more\n" \
	"    than once) limits it to those hosts\n"
/* The usage of the flags, for the commands' usage lines and --help. */
#define SELECTION_USAGE							\
	"SELECTION is --scope S [--scope S ...] [--metric TYPE[/UNIT]]\n"	\
	"    [--since T] [--until T] [--profile ID ...]\n"			\
	"    [--label K=V|K!=V|K=~RE|K!~RE ...] [--focus RE] [--ignore RE]\n" \
	"    [--hide RE] [--show RE] [--aggregate delta|sum|avg|last|max];\n" \
	"    BASE-SELECTION the same flags as --base-scope,\n"		\
	"    --base-metric, --base-since, ... (diff, flamegraph)\n"
struct selection_param {
	char		*key;		/* "scope", "base.label", ... */
	const char	*value;		/* the option's argument, not a copy */
};
struct selection {
	struct selection_param	*params;
	size_t			 n;
	int			 has_scope;
	int			 has_base;	/* any --base-… flag */
	int			 has_base_scope;
};
void		 selection_clear(struct selection *);
int		 selection_option(struct selection *, int, const char *,
		     char **);
void		 selection_query(const struct selection *, char **);
const char	*selection_get(const struct selection *, const char *);

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
int			 cmd_finish(int);
#define CMD_OPT_TAKEN		-1	/* cmd_option_fn took the option */
#define CMD_OPT_NOT_MINE	-2	/* ... or it is not the command's */
#define CMD_PARSE_OPERANDS	0x1	/* operands after "--" are the caller's */
#define CMD_PARSE_SCOPE		0x2	/* --scope is required */
#define CMD_PARSE_SELECTION	0x4	/* the selection options are taken */
/* What cmd_parse gathers for every command. */
struct cmd_args {
	struct selection	 sel;	/* with CMD_PARSE_SELECTION */
	int			 json;	/* --json: the reply as profd sent it */
};
struct option;
/* --json, in the option table of a command that prints a JSON reply. */
#define CMD_OPT_JSON		0x300
#define CMD_JSON_OPTION	{ "json", no_argument, NULL, CMD_OPT_JSON }
/* The end of every command's option table: --socket, --help. */
#define CMD_COMMON_OPTIONS						\
	{ "socket",	required_argument,	NULL, 'S' },			\
	{ "help",	no_argument,		NULL, 'h' },			\
	{ NULL,		0,			NULL, 0 }
typedef int	(*cmd_option_fn)(const struct cmd_entry *, int, const char *,
		    void *);
typedef int	(*cmd_render_fn)(FILE *, json_t *, char **);
int			 cmd_parse(const struct cmd_entry *, struct client *,
			     int, char **, const char *, const struct option *,
			     struct cmd_args *, int, cmd_option_fn, void *);
int			 cmd_need_scope(const struct cmd_entry *,
			     const struct selection *);
struct cmd_string {
	int		 ch;		/* the option's code */
	const char	*value;		/* its argument, NULL if not given */
};
int			 cmd_string_option(const struct cmd_entry *, int,
			     const char *, void *);
int			 cmd_get_exec(const struct cmd_entry *,
			     struct client *, int, char **, const char *,
			     cmd_render_fn);
int			 cmd_double(const char *, double *);
int			 cmd_limit_option(const struct cmd_entry *,
			     const char *, long long *);
void			 cmd_limit_query(char **, long long);
int			 cmd_render(json_t *, int, cmd_render_fn);
int			 cmd_get_render(struct client *, char *, int,
			     cmd_render_fn);
int			 cmd_write_file(const char *, int (*)(FILE *, void *),
			     void *);
void			 cmd_reply_cut(const char *, const char *,
			     const char *, const char *);
int			 cmd_stream_json(struct client *, const char *,
			     const char *, const char *, const void *, size_t,
			     const char *);

/* cmd-*.c: one file per command. */
extern const struct cmd_entry	cmd_push_entry;
extern const struct cmd_entry	cmd_scopes_entry;
extern const struct cmd_entry	cmd_profiles_entry;
extern const struct cmd_entry	cmd_delete_entry;
extern const struct cmd_entry	cmd_top_entry;
extern const struct cmd_entry	cmd_flamegraph_entry;
extern const struct cmd_entry	cmd_tree_entry;
extern const struct cmd_entry	cmd_peek_entry;
extern const struct cmd_entry	cmd_traces_entry;
extern const struct cmd_entry	cmd_tags_entry;
extern const struct cmd_entry	cmd_list_entry;
extern const struct cmd_entry	cmd_diff_entry;
extern const struct cmd_entry	cmd_export_entry;
extern const struct cmd_entry	cmd_query_entry;
extern const struct cmd_entry	cmd_timeline_entry;
extern const struct cmd_entry	cmd_status_entry;
extern const struct cmd_entry	cmd_web_entry;
extern const struct cmd_entry	cmd_record_entry;
/* cmd-push.c: a file pushed as profctl push pushes it. */
int			 cmd_push_file(struct client *, const char *,
			     const char *, const char *, const char *);

#endif
