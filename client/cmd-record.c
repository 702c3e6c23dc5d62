/* cmd-record.c: profile native code with Linux perf and push it: perf
 * record -g into a temporary directory, perf script's text of it, and
 * that text pushed as profctl push pushes a file (format perf-script). */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_record_exec(struct client *, int, char **);

const struct cmd_entry cmd_record_entry = {
	"record",
	"record [--scope S] [--pid P | --all] [--seconds N] "
	"[--frequency HZ] [-- COMMAND...]",
	cmd_record_exec
};

/* perf record -F's default here: flame graph one-liners' 99 Hz, off the
 * beat of timers that run at round rates. */
#define RECORD_FREQUENCY	"99"
/* How long --pid and --all record without --seconds. */
#define RECORD_SECONDS		"10"

struct cmd_record_args {
	const char	 *scope;
	const char	 *pid;
	const char	 *seconds;
	const char	 *frequency;
	int		  all;
	char		**command;	/* after "--", NULL-ended */
};

/* 0 if s is a whole number from 1 to max. */
static int
cmd_record_number(const char *s, long max)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && v >= 1 && v <= max ?
	    0 : -1;
}

static int
cmd_record_option(const struct cmd_entry *e, int ch, const char *arg,
    void *p)
{
	struct cmd_record_args	*a = p;

	switch (ch) {
	case 's':
		a->scope = arg;
		return CMD_OPT_TAKEN;
	case 'p':
		if (cmd_record_number(arg, INT_MAX) == -1)
			return cmd_usage_error(e, "record: --pid \"%s\" is not "
			    "a process id", arg);
		a->pid = arg;
		return CMD_OPT_TAKEN;
	case 'a':
		a->all = 1;
		return CMD_OPT_TAKEN;
	case 'n':
		if (cmd_record_number(arg, 86400) == -1)
			return cmd_usage_error(e, "record: --seconds \"%s\" is "
			    "not a number of seconds from 1 to 86400", arg);
		a->seconds = arg;
		return CMD_OPT_TAKEN;
	case 'F':
		if (cmd_record_number(arg, 100000) == -1)
			return cmd_usage_error(e, "record: --frequency \"%s\" "
			    "is not a rate in Hz from 1 to 100000", arg);
		a->frequency = arg;
		return CMD_OPT_TAKEN;
	}
	return CMD_OPT_NOT_MINE;
}

/*
 * Whether the kernel lets this process record: root, CAP_PERFMON (38) or
 * CAP_SYS_ADMIN (21) always; otherwise perf_event_paranoid must be at
 * most 0 for every CPU (--all) and at most 2 for a process of one's own
 * (user space only). NULL if it does (or cannot be told), else why not.
 */
static const char *
cmd_record_permitted(int all, char *buf, size_t size)
{
	FILE			*f;
	char			 line[256];
	unsigned long long	 cap = 0;
	int			 paranoid = 2;

	if (geteuid() == 0)
		return NULL;
	if ((f = fopen("/proc/self/status", "r")) != NULL) {
		while (fgets(line, sizeof line, f) != NULL)
			if (sscanf(line, "CapEff: %llx", &cap) == 1)
				break;
		fclose(f);
	}
	if (cap & (1ull << 38 | 1ull << 21))
		return NULL;
	if ((f = fopen("/proc/sys/kernel/perf_event_paranoid", "r")) == NULL)
		return NULL;
	if (fscanf(f, "%d", &paranoid) != 1)
		paranoid = 2;
	fclose(f);
	if (paranoid <= (all ? 0 : 2))
		return NULL;
	snprintf(buf, size, "the kernel does not let this user record %s: "
	    "/proc/sys/kernel/perf_event_paranoid is %d (%s needs %s); run "
	    "as root, give perf CAP_PERFMON, or lower it (sysctl "
	    "kernel.perf_event_paranoid=%d)", all ? "every CPU" :
	    "a process", paranoid, all ? "--all" : "a process of one's own",
	    all ? "0 or less" : "2 or less", all ? 0 : 2);
	return buf;
}

/*
 * Runs argv with stdout to out (-1: profctl's). 0 when it exited 0, else
 * -1 with why in buf: perf not found, or its exit status. SIGINT and
 * SIGTERM are ignored meanwhile, so that Ctrl-C stops perf record (which
 * then writes what it has) and not profctl.
 */
static int
cmd_record_run(const char *const argv[], int out, char *buf, size_t size)
{
	struct sigaction	 ign, oint, oterm;
	pid_t			 pid;
	char			**v;
	size_t			 i, n_args;
	int			 fds[2], status, err = 0, rc = -1;
	ssize_t			 n;

	if (pipe2(fds, O_CLOEXEC) == -1) {
		snprintf(buf, size, "pipe: %s", strerror(errno));
		return -1;
	}
	/* execvp's argv is not const: copies, made before the fork. */
	for (n_args = 0; argv[n_args] != NULL; n_args++)
		;
	v = xcalloc(n_args + 1, sizeof *v);
	for (i = 0; i < n_args; i++)
		v[i] = xstrdup(argv[i]);
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGTERM, &ign, &oterm);
	if ((pid = fork()) == -1) {
		snprintf(buf, size, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGTERM, &oterm, NULL);
		if (out != -1 && dup2(out, STDOUT_FILENO) == -1)
			_exit(127);
		execvp(v[0], v);
		err = errno;
		(void)!write(fds[1], &err, sizeof err);
		_exit(127);
	}
	close(fds[1]);
	fds[1] = -1;
	while ((n = read(fds[0], &err, sizeof err)) == -1 && errno == EINTR)
		;
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof err)
		snprintf(buf, size, "%s: %s%s", argv[0], strerror(err),
		    err == ENOENT && strcmp(argv[0], "perf") == 0 ?
		    " (perf is not installed: on Debian and Ubuntu, apt-get "
		    "install linux-perf; Fedora: dnf install perf)" : "");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		rc = 0;
	else if (WIFEXITED(status))
		snprintf(buf, size, "%s %s exited with status %d", argv[0],
		    argv[1], WEXITSTATUS(status));
	else
		snprintf(buf, size, "%s %s was killed by signal %d", argv[0],
		    argv[1], WIFSIGNALED(status) ? WTERMSIG(status) : 0);
out:
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGTERM, &oterm, NULL);
	for (i = 0; i < n_args; i++)
		free(v[i]);
	free(v);
	close(fds[0]);
	if (fds[1] != -1)
		close(fds[1]);
	return rc;
}

/* The scope a recording goes to without --scope: the command's base
 * name, the process's name, or "host" for every CPU; characters a
 * scope may not hold made '_'. */
static char *
cmd_record_scope(const struct cmd_record_args *a)
{
	char	 path[64], comm[64] = "";
	char	*s, *p;
	FILE	*f;

	if (a->command != NULL) {
		p = strrchr(a->command[0], '/');
		s = xstrdup(p != NULL ? p + 1 : a->command[0]);
	} else if (a->pid != NULL) {
		snprintf(path, sizeof path, "/proc/%s/comm", a->pid);
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(comm, sizeof comm, f) == NULL)
				comm[0] = '\0';
			fclose(f);
		}
		comm[strcspn(comm, "\n")] = '\0';
		s = xstrdup(comm[0] != '\0' ? comm : "pid");
	} else
		s = xstrdup("host");
	for (p = s; *p != '\0'; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789._-", *p) == NULL)
			*p = '_';
	if (s[0] == '\0' || strlen(s) > 128) {
		free(s);
		s = xstrdup("perf");
	}
	return s;
}

/* perf record, then perf script, in dir; 0 or an exit code. */
static int
cmd_record_perf(const struct cmd_record_args *a, const char *dir,
    const char *text)
{
	char		 data[PATH_MAX + 16], why[512];
	const char	*argv[64];
	char		**cmd;
	const char	*script[] = { "perf", "script", "--header", "-F", "+pid",
			    "-i", data, NULL };
	struct stat	 sb;
	size_t		 n = 0;
	int		 out, rc;

	snprintf(data, sizeof data, "%s/perf.data", dir);
	argv[n++] = "perf";
	argv[n++] = "record";
	argv[n++] = "-g";
	argv[n++] = "-F";
	argv[n++] = a->frequency != NULL ? a->frequency : RECORD_FREQUENCY;
	argv[n++] = "-o";
	argv[n++] = data;
	if (a->pid != NULL) {
		argv[n++] = "-p";
		argv[n++] = a->pid;
	} else if (a->all)
		argv[n++] = "-a";
	argv[n++] = "--";
	if (a->command != NULL) {
		for (cmd = a->command; *cmd != NULL &&
		    n + 1 < sizeof argv / sizeof argv[0]; cmd++)
			argv[n++] = *cmd;
	} else {
		argv[n++] = "sleep";
		argv[n++] = a->seconds != NULL ? a->seconds : RECORD_SECONDS;
	}
	argv[n] = NULL;
	rc = cmd_record_run(argv, -1, why, sizeof why);
	/* perf record exits as the command does; what it wrote is kept. */
	if (stat(data, &sb) == -1 || sb.st_size == 0) {
		termsafe_line(stderr, "profctl: record: perf record wrote no "
		    "data%s%s", rc == -1 ? ": " : "", rc == -1 ? why : "");
		return PROFCTL_EXIT_REFUSED;
	}
	if (rc == -1)
		termsafe_line(stderr, "profctl: record: %s; pushing what it "
		    "recorded", why);
	if ((out = open(text, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1) {
		termsafe_line(stderr, "profctl: record: %s: %s", text,
		    strerror(errno));
		return PROFCTL_EXIT_REFUSED;
	}
	rc = cmd_record_run(script, out, why, sizeof why);
	close(out);
	if (rc == -1) {
		termsafe_line(stderr, "profctl: record: %s", why);
		return PROFCTL_EXIT_REFUSED;
	}
	return PROFCTL_EXIT_OK;
}

static int
cmd_record_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "scope",	required_argument,	NULL, 's' },
		{ "pid",	required_argument,	NULL, 'p' },
		{ "all",	no_argument,		NULL, 'a' },
		{ "seconds",	required_argument,	NULL, 'n' },
		{ "frequency",	required_argument,	NULL, 'F' },
		CMD_COMMON_OPTIONS
	};
	const struct cmd_entry	*e = &cmd_record_entry;
	struct cmd_record_args	 a;
	struct cmd_args		 ca;
	const char		*tmp, *denied;
	char			 dir[PATH_MAX], data[PATH_MAX + 16];
	char			 text[PATH_MAX + 16], why[512], *scope, *name;
	int			 rc;

	memset(&a, 0, sizeof a);
	rc = cmd_parse(e, c, argc, argv, "+:s:p:an:F:h", opts, &ca,
	    CMD_PARSE_OPERANDS, cmd_record_option, &a);
	if (rc != -1)
		return rc;
	if (optind < argc)
		a.command = argv + optind;
	if ((a.pid != NULL) + a.all + (a.command != NULL) != 1)
		return cmd_usage_error(e, "record: give one of --pid P, --all "
		    "or -- COMMAND");
	if (a.command != NULL && a.seconds != NULL)
		return cmd_usage_error(e, "record: --seconds is for --pid and "
		    "--all; a COMMAND is recorded until it exits");
	if ((denied = cmd_record_permitted(a.all, why, sizeof why)) != NULL) {
		termsafe_line(stderr, "profctl: record: %s", denied);
		return PROFCTL_EXIT_REFUSED;
	}

	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
		tmp = "/tmp";
	snprintf(dir, sizeof dir, "%s/profctl-record.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL) {
		termsafe_line(stderr, "profctl: record: %s: %s", dir,
		    strerror(errno));
		return PROFCTL_EXIT_REFUSED;
	}
	snprintf(data, sizeof data, "%s/perf.data", dir);
	snprintf(text, sizeof text, "%s/perf.txt", dir);
	rc = cmd_record_perf(&a, dir, text);
	if (rc == PROFCTL_EXIT_OK) {
		scope = a.scope != NULL ? xstrdup(a.scope) :
		    cmd_record_scope(&a);
		if (a.command != NULL)
			xasprintf(&name, "perf record of %s", a.command[0]);
		else if (a.pid != NULL)
			xasprintf(&name, "perf record of pid %s", a.pid);
		else
			name = xstrdup("perf record of every CPU");
		rc = cmd_push_file(c, text, scope, "perf-script", name);
		free(scope);
		free(name);
	}
	unlink(text);
	unlink(data);
	/* perf record leaves perf.data.old beside a second run's file. */
	snprintf(data, sizeof data, "%s/perf.data.old", dir);
	unlink(data);
	rmdir(dir);
	return rc;
}
