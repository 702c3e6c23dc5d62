/* stackhash.h: a stack's identity as the views see it: a 64-bit hash of
 * every field of its frames the index holds (printable name, file, line,
 * start line, mapping, inline flag), leaf to root; not the addresses,
 * which no view shows.  The fleet keys its stacks by it (one row in
 * ClickHouse however many hosts and addresses have the stack), and a
 * series' average is rounded per stack of it (aggregate.c), as
 * ClickHouse rounds it per stack. */
#ifndef PROFD_STACKHASH_H
#define PROFD_STACKHASH_H

#include <stdint.h>

struct csindex;

/* The identity of the stack that ends at callsite leaf (held index). */
uint64_t stack_hash(const struct csindex *, int64_t leaf);

#endif
