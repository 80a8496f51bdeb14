// The host's state in two figures, for reading a series of SimBeaconRound runs (docs/performance.md,
// "The goal across the host's hours"): the time of a dependent 64-bit multiply (the core's clock)
// and of a dependent load over 64 MB of transparent huge pages, twice the last-level cache
// (memory latency, what the round waits on).
//   cc -O2 -o host-probe Benchmarks/host-probe.c && ./host-probe
//
// And what this VM's memory costs the simulator's kind of work (docs/performance.md, "Where the
// time goes now"), over a buffer of SIZE_MB in 2 MB pages (HUGE 1) or 4 KB pages (0):
//   ./host-probe latency SIZE_MB HUGE
//       random loads, each address depending on the load before (latency) and not (how many
//       the core keeps in flight)
//   ./host-probe lines SIZE_MB HUGE K SAME_PAGE WORK AHEAD
//       "events" that each read K random lines loaded AHEAD events earlier (0: not loaded
//       ahead), then do WORK dependent multiplies (about 3 cycles each); the K lines on K random
//       pages (SAME_PAGE 0) or on one (1), to tell a line's cost from its page's translation
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* SIZE bytes, 2 MB aligned, advised as asked and touched once (the first touch is not timed). */
static char *touchedBuffer(size_t size, int huge) {
    char *p = mmap(NULL, size + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { perror("mmap"); exit(2); }
    p = (char *)(((uintptr_t)p + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
    madvise(p, size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(p, 1, size);
    return p;
}

static void latency(size_t size, int huge) {
    char *p = touchedBuffer(size, huge);
    uint64_t x = 88172645463325252ull, sum = 0;
    long n = 20000000, lines = size / 64;
    double t0 = seconds();
    for (long i = 0; i < n; i++) sum += p[(xorshift(&x) % lines) * 64];
    double t1 = seconds();
    for (long i = 0; i < n / 4; i++) sum += p[((xorshift(&x) + sum) % lines) * 64];
    double t2 = seconds();
    printf("%zu MB, %s pages: dependent %.1f ns a load, independent %.1f ns (%d)\n", size >> 20,
           huge ? "2 MB" : "4 KB", (t2 - t1) / (n / 4) * 1e9, (t1 - t0) / n * 1e9, (int)(sum & 1));
}

enum { maxLines = 16, events = 2000000 };

static void lines(size_t size, int huge, int k, int samePage, int work, int ahead) {
    char *p = touchedBuffer(size, huge);
    size_t pages = size / 4096;
    uint64_t *at = malloc(sizeof(uint64_t) * (events + 8) * maxLines), x = 88172645463325252ull, acc = 1;
    if (at == NULL) exit(2);
    for (long e = 0; e < events + 8; e++) {
        size_t page = xorshift(&x) % pages;
        for (int j = 0; j < k; j++) {
            size_t where = samePage ? page : xorshift(&x) % pages;
            at[e * maxLines + j] = where * 4096 + (xorshift(&x) >> 20) % 64 * 64;
        }
    }
    double t0 = seconds();
    for (long e = 0; e < events; e++) {
        if (ahead) for (int j = 0; j < k; j++) __builtin_prefetch(p + at[(e + ahead) * maxLines + j], 0, 3);
        for (int j = 0; j < k; j++) acc += p[at[e * maxLines + j]];
        for (int w = 0; w < work; w++) acc = acc * 2862933555777941757ull + 3037000493ull;
    }
    double t1 = seconds();
    printf("%d lines on %s, loaded %d ahead, work %d: %.1f ns an event (%d)\n", k,
           samePage ? "one page" : "as many pages", ahead, work, (t1 - t0) / events * 1e9, (int)(acc & 1));
}

static int probeHost(void) {
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

int main(int argc, char **argv) {
    if (argc == 1) return probeHost();
    if (argc == 4 && !strcmp(argv[1], "latency")) {
        latency((size_t)atol(argv[2]) << 20, atoi(argv[3]));
    } else if (argc == 8 && !strcmp(argv[1], "lines") && atoi(argv[4]) >= 0 && atoi(argv[4]) <= maxLines) {
        lines((size_t)atol(argv[2]) << 20, atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]));
    } else {
        fprintf(stderr, "usage: %s | %s latency SIZE_MB HUGE | %s lines SIZE_MB HUGE K SAME_PAGE WORK AHEAD (K <= %d)\n",
                argv[0], argv[0], argv[0], maxLines);
        return 2;
    }
    return 0;
}
