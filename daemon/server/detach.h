/* detach.h: leaving the terminal, only while one thread runs. */
#ifndef PROFD_DETACH_H
#define PROFD_DETACH_H

#include "error.h"

/* The threads of this process (/proc/self/task); -1 if unknown. */
int detach_threads(void);
/* daemon(3) with the working directory kept and stdio on /dev/null;
 * -1 with err, not detached, when another thread runs. */
int detach(struct error *);

#endif
