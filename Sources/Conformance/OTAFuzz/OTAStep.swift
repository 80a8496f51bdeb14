import MeshFuzz
import MeshWire

/// One step of an over-the-air sequence: an input written by a tester, or link churn between
/// inputs (a tester's link dropped and brought up again). A phone's links come and go while
/// messages are in flight: state a DUT keeps per link, or should drop with it (an assembly in
/// progress, a peer's MTU, a route learnt on it), is only exercised when links churn.
public enum OTAStep: Hashable, Sendable {
    /// Written on the link of tester `tester` (1 or 2).
    case input([UInt8], tester: Int)
    /// Tester `tester`'s link goes down, then up again (a reconnection, with the tester's
    /// introduction where the dialect has one).
    case relink(tester: Int)

    public static func input(_ bytes: [UInt8]) -> OTAStep { .input(bytes, tester: 1) }

    public var bytes: [UInt8]? {
        if case .input(let bytes, _) = self { bytes } else { nil }
    }

    /// As a finding records it: the input as hex (from tester 1; `T2:` before it from tester
    /// 2), or `relink T1`.
    public var text: String {
        switch self {
        case .input(let bytes, 1): Hex.encode(bytes)
        case .input(let bytes, let tester): "T\(tester):\(Hex.encode(bytes))"
        case .relink(let tester): "relink T\(tester)"
        }
    }

    public init?(text: String) {
        if text.hasPrefix("relink T"), let tester = Int(text.dropFirst(8)) {
            self = .relink(tester: tester)
        } else if text.hasPrefix("T"), let colon = text.firstIndex(of: ":"), let tester = Int(text[text.index(after: text.startIndex)..<colon]),
                  let bytes = Hex.decode(String(text[text.index(after: colon)...])) {
            self = .input(bytes, tester: tester)
        } else if let bytes = Hex.decode(text) {
            self = .input(bytes, tester: 1)
        } else {
            return nil
        }
    }
}

/// Where link churn goes in a batch (docs/fuzzing.md, "Link churn"): seeded, so a campaign
/// with the same seed churns the same way, and recorded as steps, so every replay of a death
/// (and anyone reading the finding) repeats it.
public struct LinkChurn: Sendable {
    /// Chance that a batch carries churn, as one in `perBatch` (0: never). One batch in two by
    /// default: over the air a reconnection costs about a second, a batch up to 1024 inputs.
    public var oneBatchIn: Int

    public init(oneBatchIn: Int = 2) { self.oneBatchIn = oneBatchIn }

    public static let none = LinkChurn(oneBatchIn: 0)

    /// `inputs` as steps from tester 1 with, in one batch in `oneBatchIn`, one event at a
    /// random gap between two inputs: tester 1's link relinked (half the time: the inputs'
    /// link), tester 2's (a quarter), or the rest of the batch written by tester 2 (a quarter:
    /// the link carrying the inputs changes, a message started on one link goes on on
    /// another). Never before the first input or after the last: churn between inputs.
    public func steps(_ inputs: [[UInt8]], rng: inout FuzzRandom) -> [OTAStep] {
        var steps = inputs.map { OTAStep.input($0) }
        guard oneBatchIn > 0, inputs.count >= 2, rng.oneIn(oneBatchIn) else { return steps }
        let gap = 1 + rng.below(inputs.count - 1)
        switch rng.below(4) {
        case 0, 1: steps.insert(.relink(tester: 1), at: gap)
        case 2: steps.insert(.relink(tester: 2), at: gap)
        default: for i in gap..<steps.count { steps[i] = .input(inputs[i], tester: 2) }
        }
        return steps
    }
}
