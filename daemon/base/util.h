/* util.h: for now, the headers util.c's families went to; the last commit
 * of the split includes them where they are used and removes this file. */
#ifndef PROFD_UTIL_H
#define PROFD_UTIL_H

#include "alloc.h"
#include "backoff.h"
#include "buf.h"
#include "clock.h"
#include "mstr.h"
#include "nitems.h"
#include "rfc3339.h"
#include "scopename.h"

#endif
