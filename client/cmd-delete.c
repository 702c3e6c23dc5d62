/* cmd-delete.c: delete a scope or some of its profiles,
 * DELETE /v1/profiles. */
#include <getopt.h>
#include <stdlib.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_delete_exec(struct client *, int, char **);

const struct cmd_entry cmd_delete_entry = {
	"delete",
	"delete --scope S [--before TIME] [--id N]... [--json]",
	cmd_delete_exec
};

struct cmd_delete_args {
	const char	*scope, *before, **ids;
	size_t		 nids;
};

static int
cmd_delete_option(const struct cmd_entry *e, int ch, const char *arg,
    void *p)
{
	struct cmd_delete_args	*a = p;

	switch (ch) {
	case 's':
		a->scope = arg;
		return CMD_OPT_TAKEN;
	case 'b':
		a->before = arg;
		return CMD_OPT_TAKEN;
	case 'i':
		a->ids = xreallocarray(a->ids, a->nids + 1, sizeof *a->ids);
		a->ids[a->nids++] = arg;
		return CMD_OPT_TAKEN;
	}
	return CMD_OPT_NOT_MINE;
}

static int
cmd_delete_render(FILE *f, json_t *reply, char **cause)
{
	(void)cause;
	fprintf(f, "%s: deleted %lld profile(s), %lld sample(s)%s\n",
	    json_string_value(json_object_get(reply, "scope")),
	    (long long)json_integer_value(json_object_get(reply,
	    "deleted_profiles")),
	    (long long)json_integer_value(json_object_get(reply,
	    "deleted_samples")),
	    json_is_true(json_object_get(reply, "scope_deleted")) ?
	    "; the scope is gone" : "");
	return 0;
}

static int
cmd_delete_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "scope",	required_argument,	NULL, 's' },
		{ "before",	required_argument,	NULL, 'b' },
		{ "id",		required_argument,	NULL, 'i' },
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};
	const struct cmd_entry	*e = &cmd_delete_entry;
	struct cmd_delete_args	 a = { NULL, NULL, NULL, 0 };
	struct cmd_args		 ca;
	struct http_reply	 reply;
	char			*url;
	size_t			 i;
	int			 rc;

	rc = cmd_parse(e, c, argc, argv, "-:s:h", opts, &ca, 0,
	    cmd_delete_option, &a);
	if (rc == -1 && a.scope == NULL)
		rc = cmd_usage_error(e, "delete: --scope is required");
	if (rc != -1) {
		free(a.ids);
		return rc;
	}
	url = xstrdup("/v1/profiles");
	http_query_add(&url, "scope", a.scope);
	if (a.before != NULL)
		http_query_add(&url, "before", a.before);
	for (i = 0; i < a.nids; i++)
		http_query_add(&url, "id", a.ids[i]);
	free(a.ids);
	rc = client_call(c, "DELETE", url, NULL, 0, &reply, "delete");
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		return rc;
	rc = cmd_render(reply.json, ca.json, cmd_delete_render);
	http_reply_clear(&reply);
	return rc;
}
