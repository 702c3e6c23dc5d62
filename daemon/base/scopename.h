/* scopename.h: what a scope may be named. */
#ifndef PROFD_SCOPENAME_H
#define PROFD_SCOPENAME_H

#include <stddef.h>

/* Scope names: [A-Za-z0-9._-]{1,128}, neither "." nor "..". */
int scope_name_valid(const char *);
/* A scope name made of a producer's service name (n bytes at v): at
 * most 128 of its bytes, each a scope cannot hold made '_' (Alloy's eBPF
 * service names hold '/'), "." and ".." made "_" and "_.". */
void scope_name_from(const char *v, size_t n, char out[129]);

#endif
