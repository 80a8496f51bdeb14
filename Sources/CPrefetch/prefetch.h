#ifndef MESHCONFORM_PREFETCH_H
#define MESHCONFORM_PREFETCH_H

/* A hint that `address` will be read soon: the cache line starts loading while the CPU goes
   on with other work (a load would stall once it reached the head of the reorder buffer).
   Swift has no such primitive; this is inlined into the caller. */
static inline void meshconform_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
