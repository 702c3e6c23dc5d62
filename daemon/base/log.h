/* log.h: logging to stderr, or to the journal with priorities when run by
 * systemd (JOURNAL_STREAM set).  Levels follow syslog. */
#ifndef PROFD_LOG_H
#define PROFD_LOG_H

#include <syslog.h>

void log_init(int level, int foreground);
/* On SIGHUP. */
void log_set_level(int level);
/* After detaching from the terminal. */
void log_to_syslog(void);
int log_level_parse(const char *);	/* -1 if unknown */
void log_msg(int prio, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
