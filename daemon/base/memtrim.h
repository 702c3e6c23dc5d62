/* memtrim.h: the heap's free memory handed back to the system once large
 * buffers (request bodies) are freed. */
#ifndef PROFD_MEMTRIM_H
#define PROFD_MEMTRIM_H

/* malloc_trim(0) on a thread of its own, unless one is under way. */
void memtrim_async(void);

#endif
