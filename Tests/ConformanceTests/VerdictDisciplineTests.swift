import Conformance
import MeshNode
import Testing

/// What FAIL, INCONC and NA promise (docs/checks.md, "Verdicts"): a FAIL is a rule the DUT
/// broke, never the tester's blindness; what the tester could not see or decide is INCONC by
/// type. Each test runs the reference node behind a driver that changes what the tester sees.
@Suite struct VerdictDisciplineTests {
    /// The checks that end on a liveness probe ("the DUT still relays after ...").
    static let livenessChecks = ["RLY/BV-04", "RLY/BV-05", "RLY/BV-07", "DDP/BV-04", "DDP/BV-10", "ROB/BI-01", "ROB/BI-07"]

    static func run(_ id: String, _ dialect: DialectName, driver: any DUTDriver, slackMs: Int = 0) -> CheckResult {
        let check = Catalog.all.first { $0.id == id }!
        var capabilities = Capabilities.referenceNode(dialect)
        capabilities.timingSlackMs = slackMs
        return Runner(capabilities: capabilities, driver: driver).run(check)
    }

    static let livenessCases: [(String, DialectName)] = livenessChecks.flatMap { id in
        let check = Catalog.all.first { $0.id == id }!
        return DialectName.probed.filter(check.dialects.contains).map { (id, $0) }
    }

    /// A node whose every unit the tester can neither decode nor tie to a message by its bytes:
    /// the liveness checks cannot see it relay before the stimulus, so they are INCONC for want
    /// of a baseline, never FAIL "stopped relaying".
    @Test(arguments: livenessCases)
    func undecodableRelaysLeaveLivenessChecksInconclusive(_ id: String, _ dialect: DialectName) {
        let result = Self.run(id, dialect, driver: RewritingDriver(.garbled))
        #expect(result.verdict == .inconclusive, "\(id) \(dialect): \(result.verdict) \(result.reason ?? "")")
        #expect(result.inconclusiveCause == .noBaseline, "\(id) \(dialect): \(result.reason ?? "")")
        #expect(result.reason?.contains("no relay recognised before the stimulus") == true)
    }

    /// A node whose relays do not decode but whose bytes tie them to the message (a bitchat
    /// node re-padding its relays randomly): undecodable output is output, so the liveness
    /// checks see it relay, before the stimulus and after, and judge the rule they are about.
    /// Where a relay rewrites the unit's layout (blemesh re-chunks an envelope grown by a hop,
    /// simple's JSON changes length with its relay fields) a corrupted unit keeps too little of
    /// the bytes sent to be tied: there the checks stay INCONC for want of a baseline.
    @Test(arguments: livenessCases)
    func relaysTiedByTheirBytesAreSeen(_ id: String, _ dialect: DialectName) {
        let result = Self.run(id, dialect, driver: RewritingDriver(.undecodable))
        if [.blemesh, .simple].contains(dialect) {
            #expect(result.verdict == .inconclusive && result.inconclusiveCause == .noBaseline, "\(id) \(dialect): \(result.verdict) \(result.reason ?? "")")
        } else {
            #expect(result.verdict == .pass, "\(id) \(dialect): \(result.verdict) \(result.reason ?? "") \(result.seen ?? "")")
        }
    }

    /// A node that never sends anything: "stopped" needs a baseline too.
    @Test(arguments: livenessCases)
    func aSilentNodeLeavesLivenessChecksInconclusive(_ id: String, _ dialect: DialectName) {
        let result = Self.run(id, dialect, driver: RewritingDriver(.silent))
        #expect(result.verdict == .inconclusive && result.inconclusiveCause == .noBaseline, "\(id) \(dialect): \(result.verdict) \(result.reason ?? "")")
        #expect(result.reason?.contains("nothing from the DUT") == true)
    }

    /// The reference node passes them with its baseline, and the crash mutant still FAILs the
    /// robustness check: the baseline proved the tester could see its relays.
    @Test func aBaselineThenSilenceIsAFail() {
        let pass = Self.run("ROB/BI-01", .relay, driver: VirtualDriver())
        #expect(pass.verdict == .pass, "\(pass.reason ?? "")")
        #expect(pass.evidence.contains { $0.summary.hasPrefix("baseline:") })
        let crashed = Self.run("ROB/BI-01", .relay, driver: VirtualDriver(faults: [.crashOnTruncated]))
        #expect(crashed.verdict == .fail && crashed.reason?.contains("stopped relaying") == true, "\(crashed.reason ?? "")")
    }

    /// "Cannot judge" is INCONC by type: the de-duplication checks against a node that relays
    /// nothing have no first relay to build on.
    @Test(arguments: ["DDP/BV-01", "DDP/BV-02", "DDP/BV-06", "DDP/BV-07"])
    func aMissingPremiseIsInconclusive(_ id: String) {
        let result = Self.run(id, .bitchat, driver: RewritingDriver(.silent))
        #expect(result.verdict == .inconclusive && result.inconclusiveCause == .premise, "\(id): \(result.verdict) \(result.reason ?? "")")
        #expect(result.reason?.hasPrefix("cannot judge:") == true)
    }

    static let jitteredDialects = DialectName.probed.filter { DialectParameters.of($0).relayWindow.lowerBound > .zero }

    /// Slack widens only the late side of a window: a relay at once FAILs RLY/BV-02 whatever
    /// slack the DUT declares, in every dialect whose page asks a minimum delay.
    @Test(arguments: jitteredDialects, [0, 5, 50, 500])
    func noJitterFailsAtEverySlack(_ dialect: DialectName, _ slack: Int) {
        let result = Self.run("RLY/BV-02", dialect, driver: VirtualDriver(faults: [.noJitter]), slackMs: slack)
        #expect(result.verdict == .fail, "\(dialect) slack \(slack): \(result.verdict) \(result.reason ?? "")")
        #expect(result.reason?.contains("earlier than the page's minimum delay") == true)
        #expect(Self.run("RLY/BV-02", dialect, driver: VirtualDriver(), slackMs: slack).verdict == .pass)
    }

    @Test func everyDialectWithJitterIsCovered() {
        #expect(Set(Self.jitteredDialects) == [.blemesh, .simple])
    }
}

/// The reference node, with every unit it sends rewritten before the tester reads it.
struct RewritingDriver: DUTDriver {
    enum Rewrite: Sendable {
        /// Each unit's first byte inverted and seven random bytes after it: no dialect's decoder
        /// takes it (a bitchat node that re-pads its relays randomly is refused for the trailer
        /// alone; relay's packets take trailing bytes as body, so the first byte breaks them),
        /// but its bytes still tie it to the message it relays.
        case undecodable
        /// Each unit replaced by as many random bytes: undecodable, and tied to nothing.
        case garbled
        /// Nothing at all leaves the node.
        case silent
        /// Everything the node does reaches the tester this much later.
        case late(Duration)
    }
    let inner = VirtualDriver()
    let rewrite: Rewrite
    init(_ rewrite: Rewrite) { self.rewrite = rewrite }

    var name: String { inner.name }
    var startsFreshDUT: Bool { inner.startsFreshDUT }
    func start(_ setup: DUTSetup) throws -> any DUTSession { Session(inner: try inner.start(setup), rewrite: rewrite, seed: setup.seed) }

    final class Session: DUTSession {
        let inner: any DUTSession
        let rewrite: Rewrite
        var rng: SeededRandom
        /// `late`: what the node did, held until its delayed time.
        var held: [DUTOutput] = []
        init(inner: any DUTSession, rewrite: Rewrite, seed: UInt64) {
            self.inner = inner
            self.rewrite = rewrite
            rng = SeededRandom(seed: seed)
        }
        var now: Instant { inner.now }
        func apply(_ event: NodeEvent) throws { try inner.apply(event) }
        func wait(until deadline: Instant) throws -> [DUTOutput] {
            let outputs = try inner.wait(until: deadline)
            if case .late(let delay) = rewrite {
                held += outputs.map { DUTOutput(at: $0.at + delay, kind: $0.kind) }
                let due = held.prefix { $0.at <= deadline }
                held.removeFirst(due.count)
                return Array(due)
            }
            return outputs.compactMap { output in
                guard case .sent(let bytes, let link) = output.kind else { return output }
                switch rewrite {
                case .silent: return nil
                case .undecodable:
                    var unit = bytes + (0..<7).map { _ in UInt8.random(in: 0...255, using: &rng) }
                    unit[0] ^= 0xFF
                    return DUTOutput(at: output.at, kind: .sent(unit, on: link))
                case .garbled:
                    var unit = bytes.map { _ in UInt8.random(in: 0...255, using: &rng) }
                    unit[0] = 0xEE   // no dialect's first byte
                    return DUTOutput(at: output.at, kind: .sent(unit, on: link))
                case .late: return output
                }
            }
        }
        func close() -> String? { inner.close() }
    }
}
