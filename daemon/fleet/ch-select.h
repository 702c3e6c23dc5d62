/* ch-select.h: a query thread's SELECT to ClickHouse.  The thread asks
 * the loop (which alone speaks HTTP, through ch.c) and reads the answer
 * as the loop hands it over, line by line (fleet-tsv.c) into a row
 * callback: the work of a fleet view (its rows, its index, its answer)
 * is done on the query thread, never on the loop.  Memory is bounded on
 * both sides: the loop stops reading while a megabyte waits for the
 * thread, and the thread holds one line. */
#ifndef PROFD_CH_SELECT_H
#define PROFD_CH_SELECT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct ch;
struct ch_select;
struct fleet_tsv_field;

/* On the loop.  abort: set when a shutdown stops waiting (any thread
 * reads it); a select waiting then gives up. */
struct ch_select *ch_select_new(struct ch *, const atomic_int *abort);
/* On a query thread (a job's run): each line of sql's TabSeparated
 * answer to row; 0 at its end, -1 with err (ClickHouse's, row's, or a
 * shutdown's). */
int ch_select(struct ch_select *, const char *sql,
    int (*row)(void *arg, struct fleet_tsv_field *, size_t n, struct error *),
    void *arg, struct error *);
/* The same in two steps, so that a thread can have several selects in
 * flight at once (ClickHouse answers them side by side, each on its own
 * connection): start queues sql (its answer waits for the thread, a
 * megabyte at most before the loop stops reading), read takes it as
 * ch_select does, drop gives it up (ClickHouse's request cancelled);
 * either frees it, and every select started is read or dropped.
 * one_thread: a question of a few rows (ch_request's). */
struct chs_q;
struct chs_q *ch_select_start(struct ch_select *, const char *sql,
    int one_thread);
int ch_select_read(struct chs_q *,
    int (*row)(void *arg, struct fleet_tsv_field *, size_t n, struct error *),
    void *arg, struct error *);
void ch_select_drop(struct chs_q *);
/* The most bytes of an answer the loop held for a thread at once (the
 * bound: a megabyte and one read), and how often it stopped reading. */
void ch_select_counts(struct ch_select *, size_t *peak, uint64_t *pauses);
/* On the loop: every select asked or in flight fails ("profd is
 * shutting down"), and so does every later one. */
void ch_select_stop(struct ch_select *);
/* Once no query thread runs. */
void ch_select_free(struct ch_select *);

#endif
