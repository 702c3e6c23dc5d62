/* folded.h: decoder for folded stacks, the input of Brendan Gregg's
 * flamegraph.pl (also written by inferno, stackcollapse-*, speedscope). */
#ifndef PROFD_FOLDED_H
#define PROFD_FOLDED_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "error.h"
#include "model.h"
#include "stream.h"

/* 1 if the head of an input is folded text: no NUL or other control byte
 * (tab, CR, LF aside), valid UTF-8 (a sequence cut by the end of the head
 * allowed), and each of the first 8 complete non-blank lines is
 * "STACK COUNT" (a non-blank stack, a space or tab, decimal digits, then
 * only blanks).  With no complete line, the head must be one such line (a
 * short input without a final newline) or, when the head fills
 * FORMAT_SNIFF_BYTES (a first line longer than the head), contain a ';'. */
int folded_sniff(const uint8_t *head, size_t n);

/* Read "root;...;leaf COUNT" lines one at a time and emit one metric (the
 * one opts names, "samples"/"count" by default), a function and a frame per
 * distinct frame name, a stack and a sample per line, then meta.  Errors
 * name the line, the byte offset and the offending text. */
int folded_decode(struct stream *, const struct decode_opts *,
    const struct limits *, const struct sink *, struct error *);

#endif
