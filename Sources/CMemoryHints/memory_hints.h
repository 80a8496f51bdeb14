#ifndef MESHCONFORM_MEMORY_HINTS_H
#define MESHCONFORM_MEMORY_HINTS_H

/* Hints to the processor and the C library about memory the simulator is about to use: they
   change how fast a large simulation runs, never what it computes. Swift reaches neither
   primitive on its own (Glibc's module leaves out <malloc.h>). */

#include <malloc.h>

/* A hint that `address` will be read soon: the cache line starts loading while the CPU goes
   on with other work (a load would stall once it reached the head of the reorder buffer).
   Inlined into the caller. */
static inline void meshconform_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/* Makes the heap grow by at least `bytes` at a time (glibc's M_TOP_PAD), so that a stretch can
   be advised before it is first touched. Returns mallopt's status (1 on success). */
static inline int meshconform_heap_growth_step(int bytes) {
#ifdef M_TOP_PAD
    return mallopt(M_TOP_PAD, bytes);
#else
    return 0;
#endif
}

#endif
