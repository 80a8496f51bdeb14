import CSanitizerCoverage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Edge coverage of the running process, when it was built with SanitizerCoverage's inline
/// 8-bit counters (`ci/fuzz-coverage` builds the fuzz targets so): the engine's second kind of
/// feedback beside the decoders' outcomes. In any other build `isAvailable` is false and the
/// engine runs on outcomes alone, as before. Process-wide: the counters belong to the binary.
public enum EdgeCoverage {
    /// Whether instrumented modules registered counters.
    public static var isAvailable: Bool { meshconform_sancov_edges() > 0 }
    /// Whether the engine uses them: available, and not switched off by
    /// MESHCONFORM_EDGE_FEEDBACK=0 (the outcome-only engine in the same binary, for comparison).
    public static var isEnabled: Bool {
        isAvailable && getenv("MESHCONFORM_EDGE_FEEDBACK").map { String(cString: $0) } != "0"
    }
    /// Edges the instrumentation knows (every instrumented module of the binary).
    public static var edges: Int { meshconform_sancov_edges() }
    /// Distinct edges hit by any execution collected so far.
    public static var coveredEdges: Int { meshconform_sancov_covered_edges() }
    /// Distinct (edge, hit-count bucket) features collected so far.
    public static var features: Int { meshconform_sancov_features() }

    /// Zeroes the counters before an execution.
    public static func reset() { meshconform_sancov_reset() }
    /// Features of the execution since `reset` never seen before (now recorded as seen).
    public static func collectNew() -> Int { meshconform_sancov_collect() }
}
