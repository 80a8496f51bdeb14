// The host's state in two figures, for reading a series of SimBeaconRound runs (docs/performance.md,
// "The goal across the host's hours"): the time of a dependent 64-bit multiply (the core's clock)
// and of a dependent load over 64 MB of transparent huge pages, twice the last-level cache
// (memory latency, what the round waits on).
//   cc -O2 -o host-probe Benchmarks/host-probe.c && ./host-probe
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t xorshift(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int main(void) {
    const long multiplies = 100000000;
    uint64_t x = 12345;
    double start = seconds();
    for (long i = 0; i < multiplies; i++) x = x * 6364136223846793005ull + 1;
    double multiply = (seconds() - start) / multiplies * 1e9;

    // One random cycle through every line of the buffer: each load's address is the last load's value.
    const size_t bytes = 64 << 20, lines = bytes / 64;
    uint64_t *buffer = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint32_t *order = malloc(lines * sizeof *order);
    if (buffer == MAP_FAILED || order == NULL) return 1;
    madvise(buffer, bytes, MADV_HUGEPAGE);
    uint64_t seed = 88172645463325252ull;
    for (size_t i = 0; i < lines; i++) order[i] = (uint32_t)i;
    for (size_t i = lines - 1; i > 0; i--) {
        size_t j = xorshift(&seed) % (i + 1);
        uint32_t t = order[i]; order[i] = order[j]; order[j] = t;
    }
    for (size_t i = 0; i < lines; i++) buffer[order[i] * 8] = (uint64_t)order[(i + 1) % lines] * 8;
    const long loads = 2000000;
    uint64_t at = order[0] * 8;
    start = seconds();
    for (long i = 0; i < loads; i++) at = buffer[at];
    double chase = (seconds() - start) / loads * 1e9;

    // The last bit of both chains, so that neither loop is optimised away.
    printf("mul %.3f ns chase64 %.1f ns %lu\n", multiply, chase, (unsigned long)((x ^ at) & 1));
    return 0;
}
