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

/* Length of the UTF-8 sequence at p (n > 0 bytes left): 1 to 4, 0 if it is
 * invalid, -1 if it is valid so far but cut by the end.  The text
 * decoders' one check of names that end up in JSON replies. */
int folded_utf8(const uint8_t *p, size_t n);

/* Input bytes quoted in an error. */
#define FOLDED_QUOTE		48
/* Input text shown in an error (at most FOLDED_QUOTE bytes of it): ASCII
 * only, escaped, "..." when cut; buf of FOLDED_QUOTE * 4 + 8 bytes. */
const char *folded_quote(const uint8_t *p, size_t n, char *buf, size_t size);

/* The text decoders' errors: 'FORMAT: line N, byte AT: what: "text"',
 * the text quoted (folded_quote) unless NULL. */
int folded_error(struct error *err, enum error_kind kind, const char *format,
    uint64_t lineno, uint64_t at, const uint8_t *text, size_t n,
    const char *what);

#endif
