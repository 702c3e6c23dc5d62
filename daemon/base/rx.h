/* rx.h: regular expressions in Go's syntax (RE2), as pprof's focus,
 * ignore, hide, show and drop_frames use them, matched in time linear in
 * the subject and compiled within a memory budget: a hostile pattern is
 * refused at compile time instead of stalling or growing the daemon.  A
 * C interface to a C++ shim (rx.cc), the one file that includes re2.  A
 * compiled rx is immutable: several threads may match with it at once. */
#ifndef PROFD_RX_H
#define PROFD_RX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest pattern accepted, in bytes: a query string names it, so it is
 * checked before anything is compiled. */
#define RX_MAX_PATTERN	4096
/* Memory a compiled expression may keep (RE2::Options max_mem): its
 * program and the lazily built automata.  A pattern whose program does not
 * fit is refused; a search whose automaton outgrows the rest falls back to
 * RE2's NFA, slower but still linear.  Compiling passes through about ten
 * times this (19 MB for \pL{100}, the largest of its kind that fits),
 * once per worker at a time.  Real filters need a few kB. */
#define RX_MAX_MEM	(2 << 20)

struct rx;

/* Compile the n bytes at pattern (NUL bytes allowed); whole: as
 * "^(" pattern ")$", the way pprof compiles drop_frames.  NULL on failure,
 * with why (NUL terminated, cut to whylen) saying what is wrong: syntax,
 * too long, too large for the budget, out of memory. */
struct rx *rx_new(const char *pattern, size_t n, int whole, char *why,
    size_t whylen);
/* Does the expression match anywhere in the n bytes at s (unanchored, as
 * Go's MatchString)? */
int rx_match(const struct rx *, const char *s, size_t n);
void rx_free(struct rx *);

#ifdef __cplusplus
}
#endif

#endif
