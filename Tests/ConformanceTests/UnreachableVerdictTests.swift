import Conformance
import MeshNode
import Testing

/// A verdict says what the DUT did: one that stopped answering during the check (over the air:
/// died, or went out of reach) gets INCONC with the reason instead of a PASS or FAIL, except
/// for a FAIL of the checks whose subject is surviving bad input (ROB): there that is the FAIL.
@Suite struct UnreachableVerdictTests {
    static func run(_ id: String, _ fault: Fault, unreachable: String?) -> CheckResult {
        let check = Catalog.all.first { $0.id == id }!
        return Runner(capabilities: .referenceNode(.relay), driver: ProbedDriver(faults: [fault], unreachable: unreachable)).run(check)
    }

    @Test func aFailOfADUTThatStoppedAnsweringIsInconclusive() {
        let result = Self.run("DDP/BV-01", .noDedup, unreachable: "no answer to an ATT read within 5 s")
        #expect(result.verdict == .inconclusive)
        #expect(result.reason == "the DUT became unreachable during the check: no answer to an ATT read within 5 s")
        #expect(result.expected == nil && result.seen == nil)
        // The would-be FAIL stays in the evidence.
        #expect(result.evidence.contains { $0.summary.contains("it would have FAILed: ") })
    }

    @Test func aFailOfADUTThatStillAnswersStands() {
        let result = Self.run("DDP/BV-01", .noDedup, unreachable: nil)
        #expect(result.verdict == .fail && result.expected != nil)
    }

    /// Surviving bad input is the subject of the ROB checks: a DUT that stops answering after
    /// a malformed unit FAILs there.
    @Test func aRobustnessFailStandsThoughTheDUTStoppedAnswering() {
        let result = Self.run("ROB/BI-01", .crashOnTruncated, unreachable: "no answer to an ATT read within 5 s")
        #expect(result.verdict == .fail, "\(result.reason ?? "")")
    }

    /// A DUT that dies in the middle of a check sends nothing more, which is just what a check
    /// that expects silence looks for: RTE/BI-01 sees the first RREQ forwarded (about 1.1 s into
    /// the check), then judges that the repeated one (2.0 s) is not. A DUT that dies in between
    /// PASSes it unless the PASS is confirmed by the DUT still answering at the check's end.
    @Test func aPassOfADUTThatDiedMidCheckIsInconclusive() {
        let check = Catalog.all.first { $0.id == "RTE/BI-01" }!
        let caps = Capabilities.referenceNode(.blemesh)
        // A session that cannot see the death: the silence passes (what the probe is for).
        let blind = Runner(capabilities: caps, driver: ProbedDriver(faults: [], unreachable: nil, diesAt: .milliseconds(1500))).run(check)
        #expect(blind.verdict == .pass, "\(blind.reason ?? "")")
        let result = Runner(capabilities: caps, driver: ProbedDriver(faults: [], unreachable: "it did not answer an ATT request on L1", diesAt: .milliseconds(1500))).run(check)
        #expect(result.verdict == .inconclusive)
        #expect(result.reason == "the DUT became unreachable during the check: it did not answer an ATT request on L1")
        #expect(result.evidence.contains { $0.summary.contains("it would have PASSed") })
        // The same DUT dying after the check is over still PASSes it.
        let alive = Runner(capabilities: caps, driver: ProbedDriver(faults: [], unreachable: "it did not answer an ATT request on L1", diesAt: .seconds(3600))).run(check)
        #expect(alive.verdict == .pass, "\(alive.reason ?? "")")
    }

    /// Every PASS costs one probe (over the air one ATT round trip), a ROB check's PASS too:
    /// its survival was shown before the check's end, not at it.
    @Test func everyPassIsProbedOnce() {
        for (id, dialect) in [("DDP/BV-01", DialectName.relay), ("ROB/BI-01", .relay)] {
            let driver = ProbedDriver(faults: [], unreachable: nil)
            let result = Runner(capabilities: .referenceNode(dialect), driver: driver).run(Catalog.all.first { $0.id == id }!)
            #expect(result.verdict == .pass && driver.probes == 1, "\(id): \(result.verdict) after \(driver.probes) probes")
            let gone = Runner(capabilities: .referenceNode(dialect), driver: ProbedDriver(faults: [], unreachable: "gone"))
                .run(Catalog.all.first { $0.id == id }!)
            #expect(gone.verdict == .inconclusive, "\(id): \(gone.verdict)")
        }
    }
}

/// The reference node or a mutant, whose sessions answer the liveness probe with `unreachable`.
/// With `diesAt` the DUT dies that far into the check (takes no more input, sends nothing more)
/// and the probe gives `unreachable` only from then on, as the GATT session's does over the air.
final class ProbedDriver: DUTDriver, @unchecked Sendable {
    let inner: VirtualDriver
    let unreachable: String?
    let diesAt: Duration?
    var probes = 0

    init(faults: Set<Fault>, unreachable: String?, diesAt: Duration? = nil) {
        inner = VirtualDriver(faults: faults)
        self.unreachable = unreachable
        self.diesAt = diesAt
    }

    var name: String { inner.name }

    func start(_ setup: DUTSetup) throws -> any DUTSession { Session(inner: try inner.start(setup), driver: self) }

    final class Session: DUTSession {
        let inner: any DUTSession
        let driver: ProbedDriver
        let death: Instant?
        init(inner: any DUTSession, driver: ProbedDriver) {
            self.inner = inner
            self.driver = driver
            death = driver.diesAt.map { inner.now + $0 }
        }
        var dead: Bool { death.map { now >= $0 } ?? false }
        var now: Instant { inner.now }
        func apply(_ event: NodeEvent) throws {
            if !dead { try inner.apply(event) }
        }
        func wait(until deadline: Instant) throws -> [DUTOutput] {
            let outputs = try inner.wait(until: deadline)   // time goes on either way
            return death.map { death in outputs.filter { $0.at < death } } ?? outputs
        }
        func close() -> String? { inner.close() }
        func unreachableReason() -> String? {
            driver.probes += 1
            return death == nil || dead ? driver.unreachable : nil
        }
    }
}
