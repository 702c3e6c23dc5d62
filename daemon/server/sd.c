/* sd.c: the only user of libsystemd (sd-daemon), so the rest of the daemon
 * builds and runs without it (tmux's compat/systemd.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "sd.h"

#if defined(__has_include)
#if __has_include(<systemd/sd-daemon.h>) && !defined(PROFD_NO_SYSTEMD)
#define PROFD_HAVE_SYSTEMD 1
#endif
#endif

#ifdef PROFD_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

static int sd_is_managed;
static uint64_t sd_wd_usec;

#ifdef PROFD_HAVE_SYSTEMD

void
sd_init(void)
{
	uint64_t usec = 0;

	sd_is_managed = getenv("NOTIFY_SOCKET") != NULL ||
	    getenv("LISTEN_FDS") != NULL;
	/* Keep WATCHDOG_USEC and NOTIFY_SOCKET: we notify all our life. */
	if (sd_watchdog_enabled(0, &usec) > 0)
		sd_wd_usec = usec;
}

void
sd_ready(const char *status)
{
	if (status != NULL)
		sd_notifyf(0, "READY=1\nSTATUS=%s", status);
	else
		sd_notify(0, "READY=1");
}

void
sd_status(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sd_notifyf(0, "STATUS=%s", buf);
}

void
sd_stopping(void)
{
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
}

void
sd_watchdog_ping(void)
{
	sd_notify(0, "WATCHDOG=1");
}

int
sd_listen_fd(const char *path)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof sun;
	int n, fd = SD_LISTEN_FDS_START, fl;

	if ((n = sd_listen_fds(1)) <= 0) {
		if (n < 0)
			log_warn("sd_listen_fds: %s", strerror(-n));
		return -1;
	}
	if (n != 1) {
		log_err("socket activation passed %d sockets; profd takes "
		    "one", n);
		return -1;
	}
	if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
		log_err("the socket passed by systemd is not a listening "
		    "AF_UNIX stream socket");
		return -1;
	}
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1) {
		log_err("fcntl on the activated socket: %s", strerror(errno));
		return -1;
	}
	memset(&sun, 0, sizeof sun);
	if (path != NULL && getsockname(fd, (struct sockaddr *)&sun,
	    &len) == 0 && sun.sun_path[0] != '\0' &&
	    strncmp(sun.sun_path, path, sizeof sun.sun_path) != 0)
		log_info("using the activated socket %.*s, not %s",
		    (int)sizeof sun.sun_path, sun.sun_path, path);
	return fd;
}

#else /* !PROFD_HAVE_SYSTEMD */

void
sd_init(void)
{
	sd_is_managed = getenv("NOTIFY_SOCKET") != NULL ||
	    getenv("LISTEN_FDS") != NULL;
}

void
sd_ready(const char *status)
{
}

void
sd_status(const char *fmt, ...)
{
}

void
sd_stopping(void)
{
}

void
sd_watchdog_ping(void)
{
}

int
sd_listen_fd(const char *path)
{
	if (getenv("LISTEN_FDS") != NULL)
		log_warn("LISTEN_FDS is set but profd was built without "
		    "systemd support; listening on %s itself", path);
	return -1;
}

#endif /* PROFD_HAVE_SYSTEMD */

int
sd_managed(void)
{
	return sd_is_managed;
}

uint64_t
sd_watchdog_usec(void)
{
	return sd_wd_usec;
}
