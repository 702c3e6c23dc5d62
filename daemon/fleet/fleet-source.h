/* fleet-source.h: ClickHouse as a stack source (query/source.h): the
 * fleet's stacks of a selection, summed by ClickHouse per distinct stack
 * (fleet-sql.c), read on the query thread (ch-select.c) into an index
 * of the source's own, built frame by frame as the store's is, so that
 * every view walks them with the same code as a store's and answers
 * what one store holding the same profiles answers. */
#ifndef PROFD_FLEET_SOURCE_H
#define PROFD_FLEET_SOURCE_H

#include <stddef.h>

struct ch_select;
struct fleet_reader;
struct stack_source;

/* What the sources read through: the selects, the database, whether to
 * read a cluster's Distributed tables.  Made on the loop. */
struct fleet_reader *fleet_reader_new(struct ch_select *, const char *database,
    const char *cluster);
void fleet_reader_free(struct fleet_reader *);
/* query_worker's fleet_open: a source over the hosts (none: all),
 * which it points to until freed. */
struct stack_source *fleet_source_open(void *reader, char *const *hosts,
    size_t nhosts);

#endif
