import Conformance
import MeshNode
import Testing

/// Over the air a loaded host delays every relay, sometimes past a page's jitter window: a
/// relay that comes late is not a relay missing (docs/radio.md, "Verdicts"). The reference
/// node behind a session that holds back everything it sends by `delay`, as a host at load 30
/// did (650 ms), stands in for it here, on the virtual clock.
@Suite struct AirLatencyTests {
    static func run(_ ids: [String], _ dialect: DialectName, faults: Set<Fault> = [], delay: Duration,
                    overTheAir: Bool, budget: Double? = nil) -> [CheckResult] {
        var capabilities = Capabilities.referenceNode(dialect)
        if let budget { capabilities.checkBudgetSeconds = budget }
        let driver = DelayingDriver(inner: VirtualDriver(faults: faults), delay: delay, overTheAir: overTheAir)
        let checks = Catalog.all.filter { ids.contains($0.id) && $0.dialects.contains(dialect) }
        return (try? Runner(capabilities: capabilities, driver: driver).run(checks)) ?? []
    }

    /// The evidence of a stability run (DDP/BV-01, blemesh, load 30), replayed: with windows
    /// fixed, the late relay is taken for none (INCONC: de-duplication cannot be seen without
    /// a first relay); over the air the check waits for it.
    @Test func aLateRelayIsWaitedForOverTheAirAndOnlyThere() throws {
        let fixed = try #require(Self.run(["DDP/BV-01"], .blemesh, delay: .milliseconds(650), overTheAir: false).first)
        #expect(fixed.verdict == .inconclusive && fixed.inconclusiveCause == .premise, "\(fixed.reason ?? "")")
        #expect(fixed.reason?.hasPrefix("cannot judge: the first copy was not relayed") == true)
        let air = try #require(Self.run(["DDP/BV-01"], .blemesh, delay: .milliseconds(650), overTheAir: true).first)
        #expect(air.verdict == .pass, "\(air.reason ?? "")")
        #expect(air.evidence.contains { $0.summary.hasPrefix("over the air: what the check waits for came") })
    }

    /// Waiting for late relays must not hide a DUT's bug: the no-dedup mutant still FAILs, its
    /// second relay seen in a window widened to the latency the first one showed.
    @Test func aDelayedBugStillFails() throws {
        for id in ["DDP/BV-01", "DDP/BV-02"] {
            let result = try #require(Self.run([id], .blemesh, faults: [.noDedup], delay: .milliseconds(650), overTheAir: true).first)
            #expect(result.verdict == .fail, "\(id): \(result.reason ?? "")")
        }
    }

    /// A relay later than the air's allowance is missing from the check's window: the check
    /// has waited the allowance, and the FAIL's review, listening on, names it late.
    @Test func aMissingRelayFailsAfterTheAirsAllowance() throws {
        let result = try #require(Self.run(["RLY/BV-06"], .blemesh, delay: .seconds(3), overTheAir: true).first)
        #expect(result.verdict == .fail && result.reason?.hasSuffix("made before it came: not relayed") == true, "\(result.reason ?? "")")
        #expect(result.finding == .lateAnswer && result.failedRule == "BLEMESH-R10")
        #expect(result.evidence.contains { $0.summary.hasPrefix("over the air: listened 2.0 seconds past the window") })
    }

    /// bitchat's fragment relays (three 504-byte packets per link) came later on the air than
    /// the single relays earlier checks had measured, and DDP/BV-12 and FRG/BV-05 judged them
    /// "not relayed once on L2" (ci/radio-stability, 2026-11-26, 1 adapter, load 15): every
    /// bitchat check that judges a relay waits for it over the air, from its first check on.
    @Test(arguments: [("DDP/BV-12", Fault.noFragmentDedup), ("FRG/BV-05", .relayToSender), ("RLY/BV-18", .unpadFirst)])
    func bitchatRelayChecksWaitForLateRelays(_ id: String, _ fault: Fault) throws {
        // (Not waiting, DDP/BV-12 cannot see the first relays it builds on: INCONC premise.)
        let fixed = try #require(Self.run([id], .bitchat, delay: .milliseconds(650), overTheAir: false).first)
        #expect(fixed.verdict == .fail || fixed.inconclusiveCause == .premise, "\(id): \(fixed.verdict) \(fixed.reason ?? "")")
        let air = try #require(Self.run([id], .bitchat, delay: .milliseconds(650), overTheAir: true).first)
        #expect(air.verdict == .pass, "\(id): \(air.reason ?? "")")
        #expect(air.evidence.contains { $0.summary.hasPrefix("over the air: what the check waits for came") })
        // The bug the check is for still FAILs behind the slow host.
        let mutant = try #require(Self.run([id], .bitchat, faults: [fault], delay: .milliseconds(650), overTheAir: true).first)
        #expect(mutant.verdict == .fail, "\(id) \(fault): \(mutant.reason ?? "")")
    }

    /// Each dialect's whole catalog behind a 650 ms host: over the air no check FAILs the
    /// reference node; lateness it cannot judge is INCONC at most (RLY/BV-02 before any relay
    /// was measured).
    @Test(arguments: DialectName.allCases) func theReferenceNodeFailsNothingBehindASlowHost(_ dialect: DialectName) {
        let results = Self.run(Catalog.all.map(\.id), dialect, delay: .milliseconds(650), overTheAir: true)
        #expect(results.count > 10)
        let fails = results.filter { $0.verdict == .fail || $0.verdict == .error }
        #expect(fails.isEmpty, "\(fails.map { "\($0.id): \($0.reason ?? "")" })")
    }

    /// A relay later than the page's window by more than the air's allowance FAILs the jitter
    /// check even over the air; on the air within it, INCONC with the reason.
    @Test func lateRelaysAreInconclusiveOnlyWithinTheAirsAllowance() throws {
        let within = try #require(Self.run(["RLY/BV-02"], .relay, delay: .milliseconds(650), overTheAir: true).first)
        #expect(within.verdict == .inconclusive && within.reason?.contains("may be the hosts' load, not the DUT's") == true,
                "\(within.verdict) \(within.reason ?? "")")
        let fixed = try #require(Self.run(["RLY/BV-02"], .relay, delay: .milliseconds(650), overTheAir: false).first)
        #expect(fixed.verdict == .fail)
        let beyond = try #require(Self.run(["RLY/BV-02"], .relay, delay: .milliseconds(2500), overTheAir: true).first)
        #expect(beyond.verdict == .fail)
    }

    /// DDP/BV-06's fill takes longer than a short budget: the check raises its budget to carry
    /// the fill, says so, and decides; past the ceiling it is INCONC, saying how far it was raised.
    @Test func theCacheFillCarriesItsOwnBudget() throws {
        let raised = try #require(Self.run(["DDP/BV-06"], .relay, delay: .zero, overTheAir: false, budget: 3).first)
        #expect(raised.verdict == .pass, "\(raised.reason ?? "")")
        #expect(raised.evidence.contains { $0.summary.hasPrefix("budget raised to") })
        let short = try #require(Self.run(["DDP/BV-06"], .relay, delay: .zero, overTheAir: false, budget: 0.5).first)
        #expect(short.verdict == .inconclusive && short.reason?.contains("as raised for its own work") == true, "\(short.reason ?? "")")
    }
}

/// `inner`'s sessions with everything the DUT sends held back by `delay`, and, when
/// `overTheAir`, saying their latency varies as a radio's does.
struct DelayingDriver: DUTDriver {
    let inner: VirtualDriver
    let delay: Duration
    let overTheAir: Bool

    var name: String { inner.name + " behind a slow host" }

    func start(_ setup: DUTSetup) throws -> any DUTSession {
        Session(inner: try inner.start(setup), delay: delay, overTheAir: overTheAir)
    }

    final class Session: DUTSession {
        let inner: any DUTSession
        let delay: Duration
        let latencyVaries: Bool
        private var held: [DUTOutput] = []

        init(inner: any DUTSession, delay: Duration, overTheAir: Bool) {
            self.inner = inner
            self.delay = delay
            latencyVaries = overTheAir
        }

        var now: Instant { inner.now }
        func apply(_ event: NodeEvent) throws { try inner.apply(event) }
        func close() -> String? { inner.close() }

        func wait(until deadline: Instant) throws -> [DUTOutput] {
            held += try inner.wait(until: deadline).map { DUTOutput(at: $0.at + delay, kind: $0.kind) }
            let due = held.filter { $0.at <= deadline }
            held.removeAll { $0.at <= deadline }
            return due
        }
    }
}
