/* sd.h: systemd's service protocol: readiness and status notifications,
 * the watchdog and socket activation.  Only sd.c includes libsystemd; when
 * built without it, or when not run by systemd, these do nothing. */
#ifndef PROFD_SD_H
#define PROFD_SD_H

#include <stdint.h>

/* Call first: notes whether systemd started us (NOTIFY_SOCKET or
 * LISTEN_FDS set) before sd_listen_fd() consumes LISTEN_FDS. */
void sd_init(void);
/* Run by systemd: stay in the foreground, whatever the command line says. */
int sd_managed(void);

/* READY=1 with STATUS=status (NULL: none). */
void sd_ready(const char *status);
void sd_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sd_stopping(void);

/* The watchdog interval in microseconds, 0 when there is none. */
uint64_t sd_watchdog_usec(void);
void sd_watchdog_ping(void);

/* The listening AF_UNIX stream socket passed by socket activation, made
 * non-blocking, or -1 when there is none (or it is not such a socket).
 * path is the socket we would have bound; a different one is used anyway,
 * with a note in the log, since systemd's unit decides. */
int sd_listen_fd(const char *path);

#endif
