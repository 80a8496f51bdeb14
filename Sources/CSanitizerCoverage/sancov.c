// The callbacks of SanitizerCoverage's inline 8-bit counters, for the in-process engine's
// coverage builds (ci/fuzz-coverage). The compiler gives every edge of an instrumented module
// one byte it increments in place; each module announces its array once, at start-up, through
// __sanitizer_cov_8bit_counters_init. This file keeps those arrays and turns their bytes into
// features the way libFuzzer does (edge x hit-count bucket), with one bit per feature seen.
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
