import Conformance
import MeshNode
import Testing

/// docs/checks.md, "Verdicts": a FAIL is a rule the DUT broke, never the tester's blindness.
/// Every check of every dialect runs against the reference node behind a driver that changes
/// what the tester sees of it: it never sends, its units do not decode (tied to what they relay
/// by their bytes, or garbled past that), or everything it does comes late. The node underneath
/// conforms, so each FAIL must name what the rewrite made it break.
@Suite struct BlindnessTests {
    enum Blind: String, CaseIterable, Sendable {
        case silent, undecodable, garbled, late
    }

    static let cases: [(DialectName, Blind)] = DialectName.probed.flatMap { d in Blind.allCases.map { (d, $0) } }

    static func results(_ dialect: DialectName, _ blind: Blind) -> [CheckResult] {
        let rewrite: RewritingDriver.Rewrite = switch blind {
        case .silent: .silent
        case .undecodable: .undecodable
        case .garbled: .garbled
        // Past the relay window's end by 10 ms more than the check's quiet period: every
        // answer comes after the window the check listened in.
        case .late: .late(DialectParameters.of(dialect).quietPeriod + .milliseconds(10))
        }
        return Runner.select(Catalog.all, dialect: dialect).map {
            Runner(capabilities: .referenceNode(dialect), driver: RewritingDriver(rewrite)).run($0)
        }
    }

    /// Late answers of a kind the review does not tie to the check: the beacon train of
    /// BCN/BV-01 is the DUT's own traffic, judged by its period (the first beacon came late, a
    /// true FAIL of RELAY-R10.1); a peat document is state, written every 2 s whatever the
    /// tester did, so a merge written late reads as the wrong merge.
    static let lateExceptions: Set<String> = ["relay BCN/BV-01", "peat ACK/BV-20", "peat ACK/BV-21"]

    @Test(arguments: cases)
    func noFailRestsOnBlindness(_ dialect: DialectName, _ blind: Blind) {
        let prefix = dialect.rawValue.uppercased() + "-"
        for r in Self.results(dialect, blind) where r.verdict == .fail {
            let what = "\(dialect) \(blind) \(r.id): \(r.finding.map(\.rawValue) ?? "-") \(r.failedRule ?? "-") \(r.reason ?? "")"
            switch blind {
            case .undecodable, .garbled:
                // The only rule the node broke is the wire format: its units do not decode. The
                // review names it, or the check is itself one of the wire format's (BCN/BV-21
                // reads a peat document whose first byte became a frame marker).
                let wireCheck = Catalog.all.first { $0.id == r.id }!.rules.contains { $0.hasPrefix(prefix + "W") }
                #expect(r.finding == .undecodableOutput && r.failedRule?.hasPrefix(prefix + "W") == true || wireCheck,
                        "\(what) \(r.seen ?? "")")
            case .silent:
                // A node that sends nothing breaks the rules that ask it to send, and FAILs
                // only for what it did not do; "stopped" needs a baseline (INCONC without).
                #expect(r.finding == .check && r.reason?.contains("stopped") == false, "\(what)")
            case .late:
                // Late answers FAIL the page's timing rule: RLY/BV-02 judges the window itself,
                // the rest are reviewed and name the rule.
                let timing = r.id == "RLY/BV-02" || (r.finding == .lateAnswer && r.failedRule != nil)
                #expect(timing || Self.lateExceptions.contains("\(dialect) \(r.id)"), "\(what)")
            }
        }
    }

    /// The review changes the reason, never the verdict: a late copy does not turn a FAIL into
    /// a PASS, and a relay the tester cannot decode still FAILs the content checks.
    @Test func theReviewKeepsTheCheckFindingInItsReason() {
        let late = Self.results(.bitchat, .late).first { $0.id == "RLY/BV-01" }!
        #expect(late.verdict == .fail && late.finding == .lateAnswer && late.failedRule == "BITCHAT-R6.4", "\(late.reason ?? "")")
        #expect(late.reason?.contains("the check's own finding, made before it came: not relayed once on each other link") == true)
        let junk = Self.results(.relay, .garbled).first { $0.id == "RLY/BV-01" }!
        #expect(junk.verdict == .fail && junk.failedRule == "RELAY-W1" && junk.reason?.contains("blind to what they said") == true, "\(junk.reason ?? "")")
    }
}
