/* test_client_stream_rss.c: profctl query and traces hold a bounded
 * amount of memory whatever the size of the reply. A fake profd (a
 * process of its own) streams replies of 64 and 96 MB (2 and 3 times
 * the bound), made as they are sent; each command runs in a child of
 * its own, its output read and counted here, and the child's peak RSS
 * (getrusage's ru_maxrss) must stay under RSS_MAX_KB. Reading the reply
 * whole, as profctl did, took from once the reply (text) to three or
 * four times (a query) and fifteen times (traces as JSON): 104 MB to
 * 1.5 GB here. */

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <assert.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profctl.h"

#define RSS_MAX_KB	(32 * 1024)

/* AddressSanitizer keeps what is freed in quarantine (256 MB) and shadow
 * memory besides: its RSS says nothing of profctl's. */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_SANITIZED	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_SANITIZED	1
#endif
#endif
#define QUERY_BYTES	((size_t)96 << 20)	/* a /v1/query reply: 3 times the bound */
#define TRACES_BYTES	((size_t)64 << 20)	/* a /v1/traces reply */

static char	 dir[] = "/tmp/profctl-rss-XXXXXX";
static int	 failures;
static char	 sock[256];

/* The body as chunks, a buffer of about 64 KiB at a time. */
struct gen {
	int	 fd;
	char	 buf[70000];
	size_t	 n;
	size_t	 sent;
};

static void
gen_flush(struct gen *g)
{
	char	 head[32];
	size_t	 off;
	ssize_t	 w;

	if (g->n == 0)
		return;
	snprintf(head, sizeof head, "%zx\r\n", g->n);
	memcpy(g->buf + g->n, "\r\n", 2);
	if (write(g->fd, head, strlen(head)) != (ssize_t)strlen(head))
		_exit(1);
	for (off = 0; off < g->n + 2; off += (size_t)w) {
		if ((w = write(g->fd, g->buf + off, g->n + 2 - off)) <= 0)
			_exit(1);
	}
	g->sent += g->n;
	g->n = 0;
}

static void __attribute__((format(printf, 2, 3)))
gen_add(struct gen *g, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	g->n += (size_t)vsnprintf(g->buf + g->n, sizeof g->buf - g->n, fmt,
	    ap);
	va_end(ap);
	if (g->n >= 65536)
		gen_flush(g);
}

/* Rows of (x, 280 hex digits, x * 1.5, a string) until QUERY_BYTES. */
static void
gen_query(struct gen *g)
{
	static const char	 pad[] = "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef";
	long	 i;

	gen_add(g, "{\"columns\":[\"x\",\"pad\",\"r\",\"s\"],\"rows\":[");
	for (i = 1; g->sent + g->n < QUERY_BYTES; i++)
		gen_add(g, "%s[%ld,\"%s\",%.17g,\"a,b\\\"c\"]", i > 1 ? "," : "",
		    i, pad, (double)i * 1.5);
	gen_add(g, "],\"truncated\":false,\"elapsed_ms\":1.5}\n");
}

/* Traces as text (pprof's blocks) or JSON, until TRACES_BYTES. */
static void
gen_traces(struct gen *g, int text)
{
	long	 i;

	if (text)
		gen_add(g, "Scope: s (1 profile)\nType: cpu\n");
	else
		gen_add(g, "{\"scope\":\"s\",\"metric\":{\"type\":\"cpu\","
		    "\"unit\":\"nanoseconds\"},\"unit\":\"nanoseconds\","
		    "\"total\":1,\"profiles\":1,\"traces_total\":1,"
		    "\"traces\":[");
	for (i = 0; g->sent + g->n < TRACES_BYTES; i++) {
		if (text)
			gen_add(g, "-----------+-------------------------------"
			    "------------------------\n%10ldms   main.f%ld\n"
			    "             main.g\n             runtime.main\n",
			    i, i % 100);
		else
			gen_add(g, "%s{\"value\":%ld,\"label_set\":0,"
			    "\"frames\":[%ld,1,2,3,4,5,6,7]}", i > 0 ? "," : "",
			    i * 10000000, i % 100);
	}
	if (text)
		gen_add(g, "-----------+-------------------------------------"
		    "------------------\n");
	else
		gen_add(g, "],\"functions\":[\"main.f\"],\"label_sets\":"
		    "[{\"labels\":{},\"num_labels\":{}}]}\n");
}

/* The fake profd: one reply per connection, by the request line. */
static void
serve(int lfd)
{
	struct gen	*g = malloc(sizeof *g);
	char		 req[65536], *end;
	size_t		 n;
	ssize_t		 r;

	for (;;) {
		if ((g->fd = accept(lfd, NULL, NULL)) == -1)
			_exit(0);
		n = 0;
		/* The head; the SQL, if any, fits in the same read. */
		do {
			if ((r = read(g->fd, req + n, sizeof req - 1 - n)) <= 0)
				_exit(1);
			n += (size_t)r;
			req[n] = '\0';
		} while ((end = strstr(req, "\r\n\r\n")) == NULL);
		dprintf(g->fd, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n",
		    strstr(req, "format=text") != NULL ? "text/plain" :
		    "application/json");
		g->n = g->sent = 0;
		if (strncmp(req, "POST /v1/query", 14) == 0)
			gen_query(g);
		else
			gen_traces(g, strstr(req, "format=text") != NULL);
		gen_flush(g);
		dprintf(g->fd, "0\r\n\r\n");
		close(g->fd);
	}
}

/* Run e (argv NULL-terminated) in a child; its output counted here.
 * Returns its peak RSS in kB; *bytes, *lines what it printed. */
static long
run(const struct cmd_entry *e, int *rc, size_t *bytes, size_t *lines,
    char **argv)
{
	struct client	 c;
	struct rusage	 ru;
	char		 buf[65536];
	pid_t		 pid;
	ssize_t		 r, i;
	int		 p[2], st, argc;

	for (argc = 0; argv[argc] != NULL; argc++)
		;
	fflush(stdout);
	assert(pipe(p) == 0);
	assert((pid = fork()) != -1);
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 1);
		close(p[1]);
		memset(&c, 0, sizeof c);
		c.socket = strdup(sock);
		st = e->exec(&c, argc, argv);
		client_free(&c);
		_exit(cmd_finish(st));
	}
	close(p[1]);
	*bytes = *lines = 0;
	while ((r = read(p[0], buf, sizeof buf)) > 0) {
		*bytes += (size_t)r;
		for (i = 0; i < r; i++)
			*lines += buf[i] == '\n';
	}
	close(p[0]);
	assert(wait4(pid, &st, 0, &ru) == pid);
	assert(WIFEXITED(st));
	*rc = WEXITSTATUS(st);
	return ru.ru_maxrss;
}

/* Run e with the arguments (NULL-terminated): exit 0, at least
 * min_bytes printed, a peak RSS under RSS_MAX_KB. */
static void
check(const char *what, const struct cmd_entry *e, size_t min_bytes, ...)
{
	va_list		 ap;
	const char	*a;
	char		*argv[16];
	size_t		 bytes, lines;
	long		 kb;
	int		 rc, argc = 0;

	argv[argc++] = strdup(e->name);
	va_start(ap, min_bytes);
	while ((a = va_arg(ap, const char *)) != NULL)
		argv[argc++] = strdup(a);
	va_end(ap);
	argv[argc] = NULL;
	kb = run(e, &rc, &bytes, &lines, argv);
	while (argc > 0)
		free(argv[--argc]);
	printf("%s: %zu bytes, %zu lines printed, peak RSS %ld kB\n", what,
	    bytes, lines, kb);
	assert(rc == 0);
	assert(bytes >= min_bytes);
	if (kb >= RSS_MAX_KB) {
		fprintf(stderr, "FAIL %s: peak RSS %ld kB, not under %d kB\n",
		    what, kb, RSS_MAX_KB);
		failures++;
	}
}

int
main(void)
{
	struct sockaddr_un	 sun;
	pid_t			 srv;
	int			 fd;
#ifdef RSS_SANITIZED
	printf("skip: built with AddressSanitizer\n");
	return 0;
#endif
	assert(mkdtemp(dir) != NULL);
	snprintf(sock, sizeof sock, "%s/profd.sock", dir);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, sock);
	assert((fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	assert(bind(fd, (struct sockaddr *)&sun, sizeof sun) == 0);
	assert(listen(fd, 4) == 0);
	assert((srv = fork()) != -1);
	if (srv == 0) {
		/* Gone with the test, whatever way it ends; not holding
		 * its output open. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(open("/dev/null", O_WRONLY), 1);
		serve(fd);
	}
	close(fd);

	/* The table is printed at the end, from its file. */
	check("query", &cmd_query_entry, QUERY_BYTES * 8 / 10, "--max-rows",
	    "1000000", "SELECT", NULL);
	check("query --csv", &cmd_query_entry, QUERY_BYTES * 8 / 10, "--csv",
	    "SELECT", NULL);
	check("query --json", &cmd_query_entry, QUERY_BYTES, "--json",
	    "SELECT", NULL);
	check("traces", &cmd_traces_entry, TRACES_BYTES, "--scope", "s",
	    NULL);
	check("traces --json", &cmd_traces_entry, TRACES_BYTES, "--scope",
	    "s", "--json", NULL);

	kill(srv, SIGTERM);
	waitpid(srv, NULL, 0);
	unlink(sock);
	rmdir(dir);
	if (failures != 0)
		return 1;
	printf("ok\n");
	return 0;
}
