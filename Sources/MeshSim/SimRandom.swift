import MeshNode

/// The simulator's one source of randomness: xoshiro256** seeded through SplitMix64, so a run
/// is reproducible from a single `UInt64` on every platform (the standard library's generator
/// is neither seedable nor stable across releases).
public struct SimRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    public init(seed: UInt64) {
        var mixer = SeededRandom(seed: seed)
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
    }

    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in [0, 1), with 53 random bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A seed for one node, independent of the order in which nodes draw from the simulator's
    /// generator: node `i` gets the same seed whatever the topology or workload.
    public static func derive(_ seed: UInt64, _ index: Int, salt: UInt64 = 0) -> UInt64 {
        var mixer = SeededRandom(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15) ^ (salt &* 0xD1B5_4A32_D192_ED03))
        return mixer.next()
    }
}
