/* cmd-delete.c: delete a scope or some of its profiles,
 * DELETE /v1/profiles. */
#include <getopt.h>
#include <stdlib.h>

#include "profctl.h"

static int	cmd_delete_exec(struct client *, int, char **);

const struct cmd_entry cmd_delete_entry = {
	"delete",
	"delete --scope S [--before TIME] [--id N]... [--json]",
	cmd_delete_exec
};

static int
cmd_delete_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "scope",	required_argument,	NULL, 's' },
		{ "before",	required_argument,	NULL, 'b' },
		{ "id",		required_argument,	NULL, 'i' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "socket",	required_argument,	NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_delete_entry;
	struct http_reply	 reply;
	const char		*scope = NULL, *before = NULL, **ids = NULL;
	char			*url;
	size_t			 nids = 0, i;
	int			 ch, rc, json = 0;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:s:h", opts, NULL)) != -1) {
		switch (ch) {
		case 1:
			free(ids);
			return (cmd_usage_error(e, "delete: unexpected "
			    "argument \"%s\"", optarg));
		case 's':
			scope = optarg;
			continue;
		case 'b':
			before = optarg;
			continue;
		case 'i':
			ids = xreallocarray(ids, nids + 1, sizeof *ids);
			ids[nids++] = optarg;
			continue;
		case 'j':
			json = 1;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1) {
			free(ids);
			return (rc);
		}
	}
	if (optind < argc || scope == NULL) {
		free(ids);
		if (scope == NULL)
			return (cmd_usage_error(e, "delete: --scope is "
			    "required"));
		return (cmd_usage_error(e, "delete: unexpected argument "
		    "\"%s\"", argv[optind]));
	}
	url = xstrdup("/v1/profiles");
	http_query_add(&url, "scope", scope);
	if (before != NULL)
		http_query_add(&url, "before", before);
	for (i = 0; i < nids; i++)
		http_query_add(&url, "id", ids[i]);
	free(ids);
	rc = client_call(c, "DELETE", url, NULL, 0, &reply, "delete");
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		return (rc);
	if (json)
		render_json(stdout, reply.json);
	else
		printf("%s: deleted %lld profile(s), %lld sample(s)%s\n",
		    json_string_value(json_object_get(reply.json, "scope")),
		    (long long)json_integer_value(json_object_get(reply.json,
		    "deleted_profiles")),
		    (long long)json_integer_value(json_object_get(reply.json,
		    "deleted_samples")),
		    json_is_true(json_object_get(reply.json, "scope_deleted")) ?
		    "; the scope is gone" : "");
	http_reply_clear(&reply);
	return (rc);
}
