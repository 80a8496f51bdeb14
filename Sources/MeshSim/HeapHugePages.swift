import CMemoryHints
#if canImport(Glibc)
import Glibc
#endif

/// Asks Linux to back the heap a large simulation grows with transparent huge pages (2 MB).
///
/// A 10,000-node mesh keeps about 600 MB of node state in small allocations from the C heap,
/// and every event touches a different node: with 4 KB pages nearly each of those accesses
/// also misses the TLB, and the simulator's loads ahead (`SimulationRun.prefetchNode`) wait for
/// page walks. This machine's kernel gives huge pages only where asked (`madvise`, the
/// default); glibc would ask for its heap under `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, which
/// must be set before the process starts, so the simulator asks itself: the heap grows in
/// steps of `step` (`M_TOP_PAD`), and each new stretch is advised before it is first touched.
/// Only a hint: a kernel without transparent huge pages ignores it, and nothing else changes.
struct HeapHugePages {
    static let step = 64 << 20
    private static let hugePage = 2 << 20
    private var advisedEnd = 0

    /// Turned on for a run of `nodes` nodes; below about a thousand nodes the state fits the
    /// caches and the padding would only reserve address space.
    init(nodes: Int) {
        #if canImport(Glibc)
        guard nodes >= 1_000 else { return }
        _ = meshconform_heap_growth_step(Int32(Self.step))
        advisedEnd = Int(bitPattern: sbrk(0))
        #endif
    }

    /// Advises the heap grown since the last call (cheap: `sbrk(0)` reads a variable).
    mutating func adviseGrowth() {
        #if canImport(Glibc)
        guard advisedEnd != 0 else { return }
        let end = Int(bitPattern: sbrk(0))
        guard end > advisedEnd else { return }
        let start = (advisedEnd + Self.hugePage - 1) & ~(Self.hugePage - 1)
        let alignedEnd = end & ~(Self.hugePage - 1)
        if alignedEnd > start { _ = madvise(UnsafeMutableRawPointer(bitPattern: start), alignedEnd - start, MADV_HUGEPAGE) }
        advisedEnd = max(advisedEnd, alignedEnd)
        #endif
    }
}
