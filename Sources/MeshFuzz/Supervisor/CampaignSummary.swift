/// What a campaign did and found: printed at the end, and written as JSON for CI (`--json`).
public struct CampaignSummary: Codable, Sendable {
    public struct Finding: Codable, Sendable {
        public var target: String
        public var kind: OracleFailure.Kind
        public var signature: String
        public var detail: String
        /// The minimised input, hex.
        public var input: String
        public var originalLength: Int
        /// Where the minimised input was saved (a regression input) and the raw one.
        public var regressionPath: String
        public var rawPath: String
        /// Further inputs that ended with the same signature (not saved again).
        public var duplicates: Int
        /// When the supervisor saw it, from the start of its target's run (before minimising),
        /// and the executions of all jobs up to then: the time-to-find of docs/performance.md.
        public var secondsToFind: Double? = nil
        public var executionsToFind: Int? = nil
    }

    public struct TargetRun: Codable, Sendable {
        public var target: String
        public var executions: Int
        public var seconds: Double
        public var executionsPerSecond: Double
        public var corpusSize: Int
        public var newInputs: Int
        public var features: Int
        /// Edges the workers' executions hit, in a coverage build (`EdgeCoverage`); 0 otherwise.
        /// The most any one job saw, not a union over jobs.
        public var coveredEdges: Int = 0
        /// Inputs a job kept for new edges alone (its outcome was nothing new): the most of any job.
        public var keptForEdgesOnly: Int = 0
        public var workerRestarts: Int
    }

    public var seed: UInt64
    public var jobs: Int
    public var targets: [TargetRun] = []
    public var findings: [Finding] = []
    /// Workers that died on an input which, replayed alone in a fresh worker, does not crash: the
    /// death was outside the target (a fault of the fuzzing engine itself, e.g. in a mutator) or
    /// came from state earlier inputs left. Reported, saved under `crashes/`, not findings of the
    /// target: they do not stop a campaign or set the exit status.
    public var unreproduced: [Finding] = []

    public var executions: Int { targets.reduce(0) { $0 + $1.executions } }
    /// The CLI's exit status: 1 when anything was found (docs/fuzzing.md), else 0.
    public var exitStatus: Int32 { findings.isEmpty ? 0 : 1 }

    public var text: String {
        var lines = targets.map { t in
            "\(t.target): \(t.executions) execs in \(String(format1: t.seconds)) s (\(Int(t.executionsPerSecond))/s), corpus \(t.corpusSize) (+\(t.newInputs)), \(t.features) behaviours\(t.coveredEdges > 0 ? ", \(t.coveredEdges) edges (\(t.keptForEdgesOnly) inputs kept for edges alone)" : ""), \(t.workerRestarts) worker restarts"
        }
        for f in findings {
            lines.append("FOUND \(f.kind.rawValue) in \(f.target): \(f.signature)")
            lines.append("  input (\(f.input.count / 2) bytes, from \(f.originalLength)): \(f.input.prefix(160))\(f.input.count > 160 ? "..." : "")")
            lines.append("  saved: \(f.regressionPath)\(f.duplicates > 0 ? "; \(f.duplicates) more with the same signature" : "")")
        }
        for f in unreproduced {
            lines.append("NOT REPRODUCED \(f.kind.rawValue) in \(f.target): \(f.signature)")
            lines.append("  the input alone does not crash a fresh worker (an engine fault, or state from earlier inputs); saved: \(f.rawPath)\(f.duplicates > 0 ? "; \(f.duplicates) more" : "")")
        }
        lines.append("\(executions) executions, \(findings.count) finding(s)\(unreproduced.isEmpty ? "" : ", \(unreproduced.count) crash(es) not reproduced")")
        return lines.joined(separator: "\n")
    }
}

extension String {
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
