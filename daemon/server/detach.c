/* detach.c: leaving the terminal (daemon(3)) safely.
 *
 * fork() copies only the thread that calls it: a thread started before
 * profd detaches is absent from the detached process, and whatever waits
 * for it there (a commit waiting for a checkpoint round, a join at exit)
 * waits forever.  So nothing may start a thread before detaching, and
 * detaching refuses when one runs instead of leaving a daemon that hangs
 * later. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detach.h"

int
detach_threads(void)
{
	DIR *d;
	struct dirent *e;
	int n = 0;

	if ((d = opendir("/proc/self/task")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int
detach(struct error *err)
{
	int n = detach_threads();

	if (n > 1)
		return error_set(err, ERR_INTERNAL, "refusing to detach: %d "
		    "threads run and only this one would survive the fork "
		    "(a bug in profd; --foreground runs without detaching)",
		    n);
	if (daemon(1, 0) == -1)
		return error_set(err, ERR_INTERNAL, "daemon: %s",
		    strerror(errno));
	return 0;
}
