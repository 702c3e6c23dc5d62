/* cmd-profiles.c: list the profiles of one scope, GET /v1/profiles: the
 * selection flags that choose profiles, and every page the reply's
 * next_cursor leads to (or --limit rows), printed as one list. */
#include <getopt.h>
#include <stdlib.h>

#include "alloc.h"
#include "profctl.h"

/* The rows of profd's page (GET /v1/profiles) when limit= is not said. */
#define CMD_PROFILES_PAGE	1000

static int	cmd_profiles_exec(struct client *, int, char **);

const struct cmd_entry cmd_profiles_entry = {
	"profiles",
	"profiles --scope S [--since T] [--until T] [--metric TYPE[/UNIT]]\n"
	"    [--profile ID ...] [--label K=V|K!=V|K=~RE|K!~RE ...] [--limit N]\n"
	"    [--json]",
	cmd_profiles_exec
};

static int
cmd_profiles_option(const struct cmd_entry *e, int ch, const char *arg,
    void *p)
{
	if (ch == 'n')
		return cmd_limit_option(e, arg, p);
	return CMD_OPT_NOT_MINE;
}

/* The pages from the first on, their rows appended to all, until the
 * last page or limit rows (0: all); the next_cursor where it stopped
 * early goes in *cursor (else NULL). An exit code. */
static int
cmd_profiles_pages(struct client *c, const struct selection *sel,
    long long limit, json_t *all, char **cursor)
{
	struct http_reply	 reply;
	json_t			*rows, *next;
	char			*url;
	long long		 want;
	int			 rc;

	*cursor = NULL;
	do {
		want = CMD_PROFILES_PAGE;
		if (limit > 0 && limit - (long long)json_array_size(all) < want)
			want = limit - (long long)json_array_size(all);
		url = xstrdup("/v1/profiles");
		selection_query(sel, &url);
		if (want < CMD_PROFILES_PAGE)
			cmd_limit_query(&url, want);
		if (*cursor != NULL)
			http_query_add(&url, "cursor", *cursor);
		free(*cursor);
		*cursor = NULL;
		rc = client_get(c, url, &reply);
		free(url);
		if (rc != PROFCTL_EXIT_OK)
			return rc;
		rows = json_object_get(reply.json, "profiles");
		if (!json_is_array(rows)) {
			http_reply_clear(&reply);
			fprintf(stderr, "profctl: profiles: the reply has no "
			    "profiles\n");
			return PROFCTL_EXIT_REFUSED;
		}
		json_array_extend(all, rows);
		next = json_object_get(reply.json, "next_cursor");
		if (json_is_string(next))
			*cursor = xstrdup(json_string_value(next));
		http_reply_clear(&reply);
	} while (*cursor != NULL && (limit == 0 ||
	    (long long)json_array_size(all) < limit));
	return PROFCTL_EXIT_OK;
}

static int
cmd_profiles_exec(struct client *c, int argc, char **argv)
{
	/* The selection's flags that choose profiles (selection.c). */
	static const struct option	 opts[] = {
		{ "scope",	required_argument,	NULL, 's' },
		{ "metric",	required_argument,	NULL, 'm' },
		{ "since",	required_argument,	NULL, SELECTION_OPT + 2 },
		{ "until",	required_argument,	NULL, SELECTION_OPT + 3 },
		{ "profile",	required_argument,	NULL, SELECTION_OPT + 4 },
		{ "label",	required_argument,	NULL, SELECTION_OPT + 5 },
		{ "limit",	required_argument,	NULL, 'n' },
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};
	const struct cmd_entry	*e = &cmd_profiles_entry;
	struct cmd_args		 ca;
	long long		 limit = 0;
	json_t			*all, *reply;
	char			*cursor;
	int			 rc;

	rc = cmd_parse(e, c, argc, argv, "-:s:m:n:h", opts, &ca,
	    CMD_PARSE_SELECTION | CMD_PARSE_SCOPE, cmd_profiles_option,
	    &limit);
	if (rc != -1) {
		selection_clear(&ca.sel);
		return rc;
	}
	all = json_array();
	rc = cmd_profiles_pages(c, &ca.sel, limit, all, &cursor);
	if (rc == PROFCTL_EXIT_OK) {
		reply = json_pack("{s:s, s:o}", "scope", selection_get(&ca.sel,
		    "scope"), "profiles", json_incref(all));
		/* Stopped at --limit: where the rest begins. */
		if (cursor != NULL)
			json_object_set_new(reply, "next_cursor",
			    json_string(cursor));
		rc = cmd_render(reply, ca.json, render_profiles_json);
		json_decref(reply);
	}
	free(cursor);
	json_decref(all);
	selection_clear(&ca.sel);
	return rc;
}
