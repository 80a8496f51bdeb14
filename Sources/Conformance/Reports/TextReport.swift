/// The human report: one line per check as it finishes, the reason and evidence under each
/// FAIL / ERROR / INCONC, and a summary.
public enum TextReport {
    /// `FAIL  DDP/BV-01   the same message twice on one link is relayed once`.
    public static func line(_ r: CheckResult, verbose: Bool = false) -> String {
        let plain = TerminalText.plain
        var text = "\(r.verdict.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))\(r.id.padding(toLength: 11, withPad: " ", startingAt: 0)) \(r.purpose)"
        let explain = verbose || [.fail, .error, .inconclusive].contains(r.verdict)
        if let reason = r.reason, explain || r.verdict == .notApplicable { text += "\n        \(r.verdict == .notApplicable ? "NA: " : "")\(plain(reason))" }
        if explain {
            if let expected = r.expected { text += "\n        expected: \(plain(expected))" }
            if let seen = r.seen { text += "\n        seen:     \(plain(seen))" }
            if !r.evidence.isEmpty {
                text += "\n        evidence:"
                for e in r.evidence.prefix(maxEvidenceLines) { text += "\n          " + plain(e.line) }
                if r.evidence.count > maxEvidenceLines {
                    text += "\n          ... \(r.evidence.count - maxEvidenceLines) more (see --json)"
                }
            }
        }
        return text
    }

    static let maxEvidenceLines = 40

    public static func summary(_ report: RunReport) -> String {
        var lines = report.testerLinks.map { t in
            "tester \(t.adapter): \(t.links) link\(t.links == 1 ? "" : "s") to the DUT (\(t.note))"
        }
        lines += report.sections.map { s in
            let counts = Dictionary(grouping: s.results, by: \.verdict).mapValues(\.count)
            return "\(s.capabilities.dialect.rawValue): \(s.results.count) checks, " +
                Verdict.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", ")
                + (s.testerPath.map { "\n  tester path, round trip per link: \($0)" } ?? "")
        }
        lines.append(String(format: "DUT: %@; seed %llu; run base %llu; %.2f s; %@", report.dut, report.seed, report.runBase, report.wallSeconds,
                            report.exitStatus == 0 ? "all applicable checks passed" : "FAILED"))
        return lines.joined(separator: "\n")
    }
}
