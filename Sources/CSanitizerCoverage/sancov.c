// The callbacks of SanitizerCoverage's inline 8-bit counters, for the in-process engine's
// coverage builds (ci/fuzz-coverage). The compiler gives every edge of an instrumented module
// one byte it increments in place; each module announces its array once, at start-up, through
// __sanitizer_cov_8bit_counters_init. This file keeps those arrays and turns their bytes into
// features the way libFuzzer does (edge x hit-count bucket), with one bit per feature seen.
//
// With trace-cmp the compiler also calls a hook with the two operands of every integer
// comparison and switch; the hooks below log them for the current execution (the engine's
// comparison feedback, `ComparisonLog`): a value the input is compared against is a value the
// mutator can put in its place.
//
// The definitions are weak: in a libFuzzer build (-sanitize=fuzzer) libFuzzer's own, strong
// ones take over and nothing here runs. This file itself is never instrumented (-Xswiftc
// flags do not reach C targets).
#include "CSanitizerCoverage.h"
#include <stdlib.h>
#include <string.h>

enum { MAX_REGIONS = 64 };
static struct { uint8_t *start, *stop; } regions[MAX_REGIONS];
static size_t region_count, edge_count;
static uint8_t *seen_features;   // 8 bits per edge: one per bucket
static uint8_t *seen_edges;      // 1 byte per edge
static size_t feature_count, covered_count;

__attribute__((weak)) void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop) {
    if (start == stop || region_count == MAX_REGIONS) return;
    // With static linking every module's counters share one section: the same range is
    // announced once per module.
    for (size_t i = 0; i < region_count; i++) if (regions[i].start == start) return;
    regions[region_count].start = start;
    regions[region_count].stop = stop;
    region_count++;
    edge_count += (size_t)(stop - start);
    // Start-up runs before main, single-threaded; the old tables hold only start-up edges.
    free(seen_features); free(seen_edges);
    seen_features = calloc(edge_count, 1);
    seen_edges = calloc(edge_count, 1);
    feature_count = covered_count = 0;
}

// pc-table, when a build asks for it (-sanitize-coverage=...,pc-table): not needed here.
__attribute__((weak)) void __sanitizer_cov_pcs_init(const uintptr_t *start, const uintptr_t *stop) { (void)start; (void)stop; }

size_t meshconform_sancov_edges(void) { return edge_count; }

void meshconform_sancov_reset(void) {
    for (size_t r = 0; r < region_count; r++) memset(regions[r].start, 0, (size_t)(regions[r].stop - regions[r].start));
}

static inline unsigned bucket(uint8_t count) {
    if (count >= 128) return 7;
    if (count >= 32) return 6;
    if (count >= 16) return 5;
    if (count >= 8) return 4;
    if (count >= 4) return 3;
    return (unsigned)count - 1;   // 1, 2, 3 -> 0, 1, 2
}

size_t meshconform_sancov_collect(void) {
    if (!seen_features) return 0;
    size_t fresh = 0, base = 0;
    for (size_t r = 0; r < region_count; r++) {
        const uint8_t *counters = regions[r].start;
        size_t n = (size_t)(regions[r].stop - regions[r].start), i = 0;
        while (i < n) {
            // Most counters are zero: skip them eight at a time.
            if (i + 8 <= n && (((uintptr_t)(counters + i)) & 7) == 0) {
                uint64_t word;
                memcpy(&word, counters + i, 8);
                if (word == 0) { i += 8; continue; }
            }
            uint8_t c = counters[i];
            if (c) {
                size_t edge = base + i;
                uint8_t bit = (uint8_t)(1u << bucket(c));
                if (!(seen_features[edge] & bit)) {
                    seen_features[edge] |= bit;
                    feature_count++;
                    fresh++;
                    if (!seen_edges[edge]) { seen_edges[edge] = 1; covered_count++; }
                }
            }
            i++;
        }
        base += n;
    }
    return fresh;
}

size_t meshconform_sancov_features(void) { return feature_count; }
size_t meshconform_sancov_covered_edges(void) { return covered_count; }

size_t meshconform_sancov_hit_now(void) {
    size_t hit = 0;
    for (size_t r = 0; r < region_count; r++)
        for (const uint8_t *p = regions[r].start; p < regions[r].stop; p++) hit += *p != 0;
    return hit;
}

// Comparison log: the operands of the first CMP_LOG_SIZE comparisons of one execution whose
// operands are 2 to 8 bytes wide. 1-byte comparisons are left out: they are the most frequent
// (every byte a parser looks at), a 1-byte value occurs all over an input, and the mutator's
// byte mutations reach any 1-byte value anyway. Logging is on only while the engine asks for it.
enum { CMP_LOG_SIZE = 128 };
static meshconform_cmp_entry cmp_log[CMP_LOG_SIZE];
static size_t cmp_count;
static int cmp_logging;

// Turning logging on empties the log; turning it off keeps what was logged, for the engine to read.
void meshconform_cmp_log_enable(int on) { if (on) cmp_count = 0; cmp_logging = on; }
size_t meshconform_cmp_log_count(void) { return cmp_count; }
const meshconform_cmp_entry *meshconform_cmp_log_entries(void) { return cmp_log; }

static inline void log_cmp(uint64_t a, uint64_t b, uint8_t width) {
    if (!cmp_logging || width < 2 || a == b || cmp_count == CMP_LOG_SIZE) return;
    cmp_log[cmp_count].a = a;
    cmp_log[cmp_count].b = b;
    cmp_log[cmp_count].width = width;
    cmp_count++;
}

void meshconform_cmp_log_record(uint64_t a, uint64_t b, uint8_t width) { log_cmp(a, b, width); }

__attribute__((weak)) void __sanitizer_cov_trace_cmp1(uint8_t a, uint8_t b) { log_cmp(a, b, 1); }
__attribute__((weak)) void __sanitizer_cov_trace_cmp2(uint16_t a, uint16_t b) { log_cmp(a, b, 2); }
__attribute__((weak)) void __sanitizer_cov_trace_cmp4(uint32_t a, uint32_t b) { log_cmp(a, b, 4); }
__attribute__((weak)) void __sanitizer_cov_trace_cmp8(uint64_t a, uint64_t b) { log_cmp(a, b, 8); }
__attribute__((weak)) void __sanitizer_cov_trace_const_cmp1(uint8_t a, uint8_t b) { log_cmp(a, b, 1); }
__attribute__((weak)) void __sanitizer_cov_trace_const_cmp2(uint16_t a, uint16_t b) { log_cmp(a, b, 2); }
__attribute__((weak)) void __sanitizer_cov_trace_const_cmp4(uint32_t a, uint32_t b) { log_cmp(a, b, 4); }
__attribute__((weak)) void __sanitizer_cov_trace_const_cmp8(uint64_t a, uint64_t b) { log_cmp(a, b, 8); }
// cases[0] = number of cases, cases[1] = the value's width in bits, cases[2...] = the cases.
__attribute__((weak)) void __sanitizer_cov_trace_switch(uint64_t value, uint64_t *cases) {
    uint8_t width = (uint8_t)(cases[1] / 8);
    for (uint64_t i = 0; i < cases[0] && i < 16; i++) log_cmp(value, cases[2 + i], width ? width : 8);
}
__attribute__((weak)) void __sanitizer_cov_trace_div4(uint32_t value) { (void)value; }
__attribute__((weak)) void __sanitizer_cov_trace_div8(uint64_t value) { (void)value; }
__attribute__((weak)) void __sanitizer_cov_trace_gep(uintptr_t index) { (void)index; }
