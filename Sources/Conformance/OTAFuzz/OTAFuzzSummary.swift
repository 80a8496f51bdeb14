import Foundation

/// What an over-the-air campaign did and found: printed at the end, JSON for CI (`--json`).
public struct OTAFuzzSummary: Codable, Sendable {
    public var dialect: String
    public var dut: String
    public var seed: UInt64
    /// The first batch's size (each batch the DUT survives doubles the next, up to `maxBatchSize`).
    public var batchSize: Int
    public var maxBatchSize: Int?
    public var batches = 0
    public var inputs = 0
    /// Inputs the tester's link could not carry (GATT values over 512 bytes): not sent.
    public var uncarried = 0
    /// Batches with link churn between their inputs (`LinkChurn`).
    public var churnedBatches = 0
    public var seconds = 0.0
    /// DUT sessions started while fuzzing (the first, restarts after deaths, periodic fresh
    /// sessions), not counting the replays of minimising.
    public var dutStarts = 0
    /// Replays on a fresh DUT, over all findings.
    public var replays = 0
    public var findings: [OTAFinding] = []
    /// Why the campaign stopped early without a verdict on the rest (INCONC), if it did.
    public var inconclusive: String?

    public var inputsPerSecond: Double { seconds > 0 ? Double(inputs) / seconds : 0 }

    /// The CLI's exit status (docs/fuzzing.md): 1 something found; 2 nothing found and the
    /// campaign could not run to its end (the DUT never answered, an adapter failed); else 0.
    public var exitStatus: Int32 { !findings.isEmpty ? 1 : inconclusive != nil ? 2 : 0 }

    public var text: String {
        var lines = ["\(dialect) over the air against \(dut): \(inputs) inputs in \(batches) batches of \(batchSize)\(maxBatchSize.map { $0 > batchSize ? " to \($0)" : "" } ?? "")\(uncarried > 0 ? " (\(uncarried) too long for the link, not sent)" : ""), \(String(format: "%.1f", seconds)) s (\(Int(inputsPerSecond))/s), \(churnedBatches) with link churn, \(dutStarts) DUT starts, \(replays) replays"]
        for f in findings {
            lines.append("FOUND \(f.kind) DUT: \(f.signature)\(f.secondsToFind.map { String(format: " (after %.1f s, \(f.inputsToFind ?? 0) inputs)", $0) } ?? "")")
            lines.append("  reason: \(f.reason.prefix(300))")
            let shown = f.sequence.prefix(4).map { "\($0.prefix(96))\($0.count > 96 ? "..." : "")" }
            lines.append("  sequence (\(f.sequence.count) step\(f.sequence.count == 1 ? "" : "s") from \(f.originalInputs), reproduced: \(f.reproduction.rawValue)\(f.minimised ? ", minimised" : "")): \(shown.joined(separator: " "))\(f.sequence.count > 4 ? " ..." : "")")
            lines.append("  saved: \(f.path)\(f.duplicates > 0 ? "; \(f.duplicates) more with the same signature" : "")")
        }
        if let inconclusive { lines.append("INCONC: \(inconclusive)") }
        lines.append("\(inputs) inputs, \(findings.count) finding(s)")
        return lines.joined(separator: "\n")
    }
}
