/* nitems.h: the number of elements of an array. */
#ifndef PROFD_NITEMS_H
#define PROFD_NITEMS_H

#define NITEMS(a) (sizeof(a) / sizeof((a)[0]))

#endif
