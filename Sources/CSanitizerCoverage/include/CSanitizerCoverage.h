#ifndef CSANITIZERCOVERAGE_H
#define CSANITIZERCOVERAGE_H

#include <stddef.h>
#include <stdint.h>

/// Edge counters of a build instrumented with SanitizerCoverage's inline 8-bit counters
/// (docs/fuzzing.md, "Coverage feedback"). In a build without the instrumentation no module
/// registers counters and every call below is a no-op that finds nothing.

/// Number of edge counters registered by instrumented modules (0: not a coverage build).
size_t meshconform_sancov_edges(void);

/// Zeroes every counter: call before the execution whose edges `collect` should see.
void meshconform_sancov_reset(void);

/// Reads the counters hit since the last reset: each hit edge with its hit-count bucket
/// (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+) is a feature. Returns how many of those features
/// this process never saw before and records them as seen. Leaves the counters as they are.
size_t meshconform_sancov_collect(void);

/// Features seen so far (edge and bucket pairs) and distinct edges ever hit.
size_t meshconform_sancov_features(void);
size_t meshconform_sancov_covered_edges(void);

/// Counters hit since the last reset (the edges of one execution, or of a replayed corpus).
size_t meshconform_sancov_hit_now(void);

/// Comparison operands (a build with -sanitize-coverage=...,trace-cmp): the integer
/// comparisons and switch cases of one execution, in the order they ran, equal pairs left out.
typedef struct { uint64_t a, b; uint8_t width; } meshconform_cmp_entry;

/// Turns logging on, emptying the log (call before the execution whose comparisons it should
/// hold), or off, keeping what it holds (off by default: a build without trace-cmp never logs).
void meshconform_cmp_log_enable(int on);
size_t meshconform_cmp_log_count(void);
/// Logs one comparison as the trace-cmp hooks do (for decoders in tests, which are not instrumented).
void meshconform_cmp_log_record(uint64_t a, uint64_t b, uint8_t width);
const meshconform_cmp_entry *meshconform_cmp_log_entries(void);

#endif
