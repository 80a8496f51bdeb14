/// A sequence of inputs after which the DUT stopped answering, as saved and reported.
public struct OTAFinding: Codable, Sendable, Equatable {
    public enum Reproduction: String, Codable, Sendable {
        /// The batch alone kills a fresh DUT.
        case batch
        /// Only the session's whole history up to and including the batch does.
        case history
        /// Nothing replayed on a fresh DUT killed it again (a timing effect, or state from
        /// before the session); the batch is kept as it was.
        case notReproduced = "not-reproduced"
        /// The DUT could not be replayed against (a device on the air that stays dead after
        /// reconnecting): the batch is kept as it was.
        case notTried = "not-tried"
    }

    public var dialect: String
    public var dut: String
    /// "silent" or "failed" (see `DUTDeath`), and the reason of the death that was found.
    public var kind: String
    public var reason: String
    /// What identifies the bug: the kind, for a failure its reason without numbers, and for
    /// each input of the minimised sequence how the tester reads it.
    public var signature: String
    /// The minimised sequence, in order, as hex (written by tester 1 to a DUT linked to testers 1 and 2).
    public var sequence: [String]
    /// For each input, how the tester reads it as a unit of the dialect: "valid", "incomplete"
    /// (a chunk of a longer message) or the error code.
    public var decoderVerdicts: [String]
    /// The number of inputs and bytes before minimising.
    public var originalInputs: Int
    public var originalBytes: Int
    public var reproduction: Reproduction
    /// Whether `sequence` is the minimised one (else it is the batch as it was).
    public var minimised: Bool
    /// Replays on a fresh DUT that minimising cost.
    public var trials: Int
    /// The DUT's diagnostics when it died (stderr tail of a process).
    public var diagnostics: String?
    /// Where it was saved (a folder with finding.json and one file per input).
    public var path: String
    /// Later deaths that minimised to the same signature (not saved again).
    public var duplicates: Int
    /// When the death was seen: wall seconds since the campaign started, and the inputs
    /// written by then (the time-to-find of docs/fuzzing.md).
    public var secondsToFind: Double?
    public var inputsToFind: Int?
}
