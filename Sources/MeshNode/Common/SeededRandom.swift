import Foundation

/// The project's seedable generator (SplitMix64): a node's only source of randomness (jitter,
/// nonces, fan-out choices, ids), the simulator's seeding, and every randomised test. Seeded
/// per node, so the same seed and the same events give the same actions.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A delay in nanoseconds drawn uniformly from a window of milliseconds. Whole nanoseconds,
    /// not a `Duration`: adding one to an `Instant` is then one addition, where a `Duration`
    /// costs a 128-bit multiply to build and a 128-bit division to read back.
    mutating func delayNanoseconds(in window: JitterWindow) -> Int64 {
        let low = window.minimum, high = window.maximum
        guard high > low else { return low }
        return Int64.random(in: low...high, using: &self)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        p >= 1 || Double(next() >> 11) / Double(1 << 53) < p
    }

    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }

    /// A random (version 4) UUID.
    public mutating func uuid() -> UUID {
        var b = bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}

/// A relay delay window in nanoseconds, inclusive at both ends.
struct JitterWindow: Hashable, Sendable {
    var minimum: Int64
    var maximum: Int64

    static func milliseconds(_ low: Int64, _ high: Int64) -> JitterWindow {
        JitterWindow(minimum: low * 1_000_000, maximum: high * 1_000_000)
    }

    /// The window relays use under `faults`: the late-relay mutant waits three times its end,
    /// or three times `latest` where the page allows relays later than the node's own window.
    func relays(under faults: Set<Fault>, latest: JitterWindow? = nil) -> JitterWindow {
        let end = (latest ?? self).maximum * 3
        return faults.contains(.lateRelay) ? JitterWindow(minimum: end, maximum: end) : self
    }
}
