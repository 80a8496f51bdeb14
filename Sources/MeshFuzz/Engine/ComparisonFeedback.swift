import CSanitizerCoverage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The operands of the integer comparisons of one execution, in a build with SanitizerCoverage's
/// trace-cmp (`ci/fuzz-coverage` builds so; `Sources/CSanitizerCoverage` logs them): the values
/// a decoder compared part of its input against. Process-wide, like the edge counters.
public enum ComparisonLog {
    public struct Pair: Hashable, Sendable {
        public var a: UInt64
        public var b: UInt64
        /// Bytes of the compared values (2, 4 or 8: 1-byte comparisons are not logged).
        public var width: Int
        public init(a: UInt64, b: UInt64, width: Int) { self.a = a; self.b = b; self.width = width }
    }

    /// Whether the engine uses comparisons: a coverage build, unless MESHCONFORM_CMP_FEEDBACK=0
    /// (edge feedback alone, for comparison in the same binary). A coverage build without
    /// trace-cmp logs nothing, and the engine then never has a pair to use.
    public static var isEnabled: Bool {
        EdgeCoverage.isAvailable && getenv("MESHCONFORM_CMP_FEEDBACK").map { String(cString: $0) } != "0"
    }

    /// Logging on (emptying the log) or off (keeping what it holds).
    public static func enable(_ on: Bool) { meshconform_cmp_log_enable(on ? 1 : 0) }
    /// Logs a comparison by hand, as the instrumentation does (decoders in tests).
    public static func record(_ a: UInt64, _ b: UInt64, width: Int) { meshconform_cmp_log_record(a, b, UInt8(width)) }

    /// The comparisons logged since logging was last turned on, in the order they ran (at most 128).
    public static var pairs: [Pair] {
        let count = meshconform_cmp_log_count()
        guard count > 0, let entries = meshconform_cmp_log_entries() else { return [] }
        return (0..<count).map { Pair(a: entries[$0].a, b: entries[$0].b, width: Int(entries[$0].width)) }
    }
}

/// Input-to-state replacement (RedQueen's "input-to-state correspondence", the idea behind
/// libFuzzer's table of recent compares): when a decoder compares a value that stands in the
/// input as it is (little- or big-endian, the comparison's width) with another value, the input
/// with that value replaced by the other passes the comparison. One step solves what blind
/// mutation almost never does: a magic number, a length that must match, a checksum or hash
/// stored in one field and computed over others (the check fails on the mutant, the log holds
/// the computed value, the replacement stores it).
public enum InputToState {
    /// Inputs that differ from `input` in one operand's place, holding the other operand there.
    /// At most `limit`, drawn at random when there are more; none for a pair neither of whose
    /// operands stands in the input.
    ///
    /// Only the inputs returned are built: the places are collected first (a decoder's log can
    /// match hundreds of them, a 2-byte zero in a padded input; building and hashing an input
    /// per place made the follow-ups cost 15 times the executions), and a pair logged many
    /// times (a comparison in a loop) is scanned for once.
    public static func candidates(_ input: [UInt8], pairs: [ComparisonLog.Pair], limit: Int, rng: inout FuzzRandom) -> [[UInt8]] {
        var scanned: Set<ComparisonLog.Pair> = []
        var places: Set<Place> = []
        var picked: [Place] = []
        for pair in pairs where pair.width <= input.count && scanned.insert(pair).inserted {
            for (from, to) in [(pair.a, pair.b), (pair.b, pair.a)] {
                for bigEndian in [false, true] {
                    let pattern = bytes(from, width: pair.width, bigEndian: bigEndian)
                    let replacement = bytes(to, width: pair.width, bigEndian: bigEndian)
                    var at = 0
                    while let index = find(pattern, in: input, from: at) {
                        let place = Place(index: index, replacement: replacement)
                        // Reservoir sampling: each distinct place is kept with probability limit / seen.
                        if places.insert(place).inserted {
                            if picked.count < limit {
                                picked.append(place)
                            } else {
                                let slot = rng.below(places.count)
                                if slot < limit { picked[slot] = place }
                            }
                        }
                        at = index + 1
                    }
                }
            }
        }
        return picked.map { place in
            var candidate = input
            candidate.replaceSubrange(place.index..<(place.index + place.replacement.count), with: place.replacement)
            return candidate
        }
    }

    /// Where a candidate differs from the input, and the bytes it holds there: two pairs that
    /// write the same bytes at the same place make one candidate.
    private struct Place: Hashable {
        var index: Int
        var replacement: [UInt8]
    }

    static func bytes(_ value: UInt64, width: Int, bigEndian: Bool) -> [UInt8] {
        (0..<width).map { k in UInt8(truncatingIfNeeded: value >> (8 * UInt64(bigEndian ? width - 1 - k : k))) }
    }

    private static func find(_ pattern: [UInt8], in input: [UInt8], from start: Int) -> Int? {
        guard input.count >= pattern.count, start <= input.count - pattern.count else { return nil }
        let first = pattern[0]
        for i in start...(input.count - pattern.count) where input[i] == first {
            var k = 1
            while k < pattern.count, input[i + k] == pattern[k] { k += 1 }
            if k == pattern.count { return i }
        }
        return nil
    }
}
