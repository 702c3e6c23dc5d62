/* log.c: one line per message; under systemd the <N> prefix lets the
 * journal keep the priority of lines written to stderr. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static atomic_int log_max = LOG_INFO;
static int log_journal;
static int log_syslog;

void
log_init(int level, int foreground)
{
	log_max = level;
	log_journal = getenv("JOURNAL_STREAM") != NULL;
	log_syslog = 0;
}

void
log_set_level(int level)
{
	log_max = level;
}

void
log_to_syslog(void)
{
	openlog("profd", LOG_PID, LOG_DAEMON);
	log_syslog = 1;
}

int
log_level_parse(const char *s)
{
	static const struct {
		const char *name;
		int level;
	} names[] = {
		{ "error", LOG_ERR }, { "err", LOG_ERR },
		{ "warning", LOG_WARNING }, { "warn", LOG_WARNING },
		{ "notice", LOG_NOTICE }, { "info", LOG_INFO },
		{ "debug", LOG_DEBUG },
	};
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].level;
	return -1;
}

void
log_msg(int prio, const char *fmt, ...)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	char line[2048];
	va_list ap;

	if (prio > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (log_syslog) {
		syslog(prio, "%s", line);
		return;
	}
	pthread_mutex_lock(&mu);
	if (log_journal)
		fprintf(stderr, "<%d>%s\n", prio, line);
	else
		fprintf(stderr, "profd: %s\n", line);
	fflush(stderr);
	pthread_mutex_unlock(&mu);
}
