/* scopename.h: what a scope may be named. */
#ifndef PROFD_SCOPENAME_H
#define PROFD_SCOPENAME_H

/* Scope names: [A-Za-z0-9._-]{1,128}, neither "." nor "..". */
int scope_name_valid(const char *);

#endif
