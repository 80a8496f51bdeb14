/// Where a check's identifiers come from. A device on the air is never restarted: it keeps
/// its de-duplication cache, its routes, the beacon and document counters it heard, for the
/// whole run and across runs. So every identifier a check makes (sequence numbers, message
/// ids, nonces, fragment ids, the testers' and strangers' own ids where the dialect keys
/// state on them) must be new to the DUT: unique within the run, and apart from other runs.
///
/// A run draws one random `runBase` (recorded in the reports; `meshconform run --run-base N`
/// replays it; the built-in node's run derives it from `--seed`, so that run is reproducible).
/// Each check gets its own index in the run, and every identifier comes from the pair.
public struct RunIdentifiers: Sendable, Equatable {
    public var runBase: UInt64
    /// The check's position in the run, from 0.
    public var checkIndex: Int

    public init(runBase: UInt64, checkIndex: Int) {
        self.runBase = runBase
        self.checkIndex = checkIndex
    }

    /// A number no other check of the run has: the run base plus the check's index. Short ids
    /// take its low bytes (`tag`), so checks of one run never share one however few bytes there are.
    public var checkNumber: UInt64 { runBase &+ UInt64(checkIndex) }

    /// The low `count` bytes of `checkNumber`, big-endian (at most 8).
    public func tag(_ count: Int) -> [UInt8] {
        (0..<min(count, 8)).reversed().map { UInt8(truncatingIfNeeded: checkNumber >> (UInt64($0) * 8)) }
    }

    /// 64 well-mixed bits for `purpose` (a sequence base, a seed), apart per run, check and
    /// purpose: for identifiers wide enough that a hash does not collide.
    public func value(_ purpose: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ runBase
        for byte in purpose.utf8 + Array("#\(checkIndex)".utf8) { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
        // splitmix64's finaliser: FNV alone leaves the high bits weak for short inputs.
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 31)
    }

    /// What a probe set up outside a run (a node taking the suite's identity, a fuzz
    /// campaign) uses: the seed as the run base, the first check.
    public static func outsideRun(seed: UInt64) -> RunIdentifiers { RunIdentifiers(runBase: seed, checkIndex: 0) }
}
