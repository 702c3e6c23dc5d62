/* test_tcp_auth.c: the TCP listener's credentials (issue 28): a writer's
 * admits writes only, a reader's reads only (403 for the other kind's),
 * nothing or a stranger's is 401, no credential set opens everything;
 * the settings' checks apply to the readers' twins as to the writers'. */
#include <string.h>

#include "config.h"
#include "tcp-auth.h"
#include "testlib.h"

#define W	TCP_AUTH_WRITE
#define R	TCP_AUTH_READ

int
main(void)
{
	struct tcp_creds c = { { "wtoken-0123456789", "rtoken-0123456789" },
	    { "agent:pw", "grafana:gpw" } };
	struct tcp_creds none = { { NULL, NULL }, { NULL, NULL } };
	struct tcp_creds wonly = { { "wtoken-0123456789", NULL },
	    { NULL, NULL } };
	struct config cfg;
	char why[300], warn[300], gp[] = "g:p";
	size_t i;
	static const struct {
		struct tcp_creds c;
		const char *why;
	} bad[] = {
		{ { { NULL, NULL }, { "nocolon", NULL } },
		    "tcp-basic-auth is not USER:PASSWORD" },
		{ { { NULL, NULL }, { NULL, "nocolon" } },
		    "tcp-read-basic-auth is not USER:PASSWORD" },
		{ { { NULL, NULL }, { NULL, ":pw" } },
		    "tcp-read-basic-auth is not USER:PASSWORD" },
		{ { { NULL, NULL }, { "agent:", NULL } },
		    "tcp-basic-auth has an empty password" },
		{ { { NULL, NULL }, { NULL, "grafana:" } },
		    "tcp-read-basic-auth has an empty password" },
		{ { { "", NULL }, { NULL, NULL } }, "tcp-auth-token is empty" },
		{ { { NULL, "" }, { NULL, NULL } }, "tcp-read-token is empty" },
		{ { { "same-0123456789abc", "same-0123456789abc" },
		    { NULL, NULL } }, "tcp-read-token is tcp-auth-token" },
		{ { { NULL, NULL }, { "a:b", "a:b" } },
		    "tcp-read-basic-auth is tcp-basic-auth" },
	};

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK(tcp_creds_check(&bad[i].c, why, sizeof why, warn,
		    sizeof warn) == -1);
		CHECK(strstr(why, bad[i].why) != NULL);
	}
	CHECK(tcp_creds_check(&c, why, sizeof why, warn, sizeof warn) == 0);
	CHECK(warn[0] == '\0');
	{
		struct tcp_creds shortr = { { NULL, "short" }, { NULL, NULL } };

		CHECK(tcp_creds_check(&shortr, why, sizeof why, warn,
		    sizeof warn) == 0);
		CHECK(strstr(warn, "tcp-read-token is 5 characters") != NULL);
	}

	/* Who proves what. */
	CHECK(tcp_auth_kinds(&c, NULL) == 0);
	CHECK(tcp_auth_kinds(&c, "Bearer wtoken-0123456789") == W);
	CHECK(tcp_auth_kinds(&c, "bearer rtoken-0123456789") == R);
	CHECK(tcp_auth_kinds(&c, "Bearer wtoken-012345678") == 0);
	CHECK(tcp_auth_kinds(&c, "Bearer wtoken-01234567890") == 0);
	CHECK(tcp_auth_kinds(&c, "Bearer ") == 0);
	CHECK(tcp_auth_kinds(&c, "Basic YWdlbnQ6cHc=") == W);	/* agent:pw */
	CHECK(tcp_auth_kinds(&c, "Basic Z3JhZmFuYTpncHc=") == R);
	CHECK(tcp_auth_kinds(&c, "Basic d3Rva2VuLTAxMjM0NTY3ODk=") == 0);
	CHECK(tcp_auth_kinds(&c, "wtoken-0123456789") == 0);

	/* The verdicts. */
	CHECK(tcp_auth_decide(&none, W, NULL) == TCP_ALLOW);
	CHECK(tcp_auth_decide(&none, R, "Bearer x") == TCP_ALLOW);
	CHECK(tcp_auth_decide(&c, W, NULL) == TCP_UNAUTHORIZED);
	CHECK(tcp_auth_decide(&c, R, NULL) == TCP_UNAUTHORIZED);
	CHECK(tcp_auth_decide(&c, W, "Bearer nope") == TCP_UNAUTHORIZED);
	CHECK(tcp_auth_decide(&c, W, "Bearer wtoken-0123456789") == TCP_ALLOW);
	CHECK(tcp_auth_decide(&c, R, "Bearer rtoken-0123456789") == TCP_ALLOW);
	CHECK(tcp_auth_decide(&c, W, "Bearer rtoken-0123456789") ==
	    TCP_FORBIDDEN);
	CHECK(tcp_auth_decide(&c, R, "Bearer wtoken-0123456789") ==
	    TCP_FORBIDDEN);
	CHECK(tcp_auth_decide(&c, R, "Basic YWdlbnQ6cHc=") == TCP_FORBIDDEN);
	CHECK(tcp_auth_decide(&c, W | R, "Basic Z3JhZmFuYTpncHc=") ==
	    TCP_ALLOW);
	/* Only writers set: a read route is no one's, and a writer's
	 * credential is still refused there as the other kind's. */
	CHECK(tcp_auth_decide(&wonly, R, NULL) == TCP_UNAUTHORIZED);
	CHECK(tcp_auth_decide(&wonly, R, "Bearer wtoken-0123456789") ==
	    TCP_FORBIDDEN);

	CHECK(strcmp(tcp_auth_names(&c, W), "token basic") == 0);
	CHECK(strcmp(tcp_auth_names(&wonly, R), "none") == 0);
	CHECK(strcmp(tcp_auth_names(&wonly, W), "token") == 0);

	memset(&cfg, 0, sizeof cfg);
	cfg.tcp_read_basic_auth = gp;
	tcp_creds_of(&none, &cfg);
	CHECK(none.basic[1] != NULL && tcp_creds_any(&none) &&
	    strcmp(tcp_auth_names(&none, R), "basic") == 0);
	return 0;
}
