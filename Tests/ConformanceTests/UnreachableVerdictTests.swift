import Conformance
import MeshNode
import Testing

/// A FAIL says what the DUT did: one that stopped answering during the check (over the air:
/// died, or went out of reach) gets INCONC with the reason, except in the checks whose subject
/// is surviving bad input (ROB), where that is the FAIL.
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

    /// The probe is asked only before a FAIL: a PASS does not wait for it.
    @Test func aPassIsNotProbed() {
        let driver = ProbedDriver(faults: [], unreachable: "gone")
        let result = Runner(capabilities: .referenceNode(.relay), driver: driver).run(Catalog.all.first { $0.id == "DDP/BV-01" }!)
        #expect(result.verdict == .pass && driver.probes == 0)
    }
}

/// The reference node or a mutant, whose sessions answer the liveness probe with `unreachable`.
final class ProbedDriver: DUTDriver, @unchecked Sendable {
    let inner: VirtualDriver
    let unreachable: String?
    var probes = 0

    init(faults: Set<Fault>, unreachable: String?) {
        inner = VirtualDriver(faults: faults)
        self.unreachable = unreachable
    }

    var name: String { inner.name }

    func start(_ setup: DUTSetup) throws -> any DUTSession { Session(inner: try inner.start(setup), driver: self) }

    final class Session: DUTSession {
        let inner: any DUTSession
        let driver: ProbedDriver
        init(inner: any DUTSession, driver: ProbedDriver) {
            self.inner = inner
            self.driver = driver
        }
        var now: Instant { inner.now }
        func apply(_ event: NodeEvent) throws { try inner.apply(event) }
        func wait(until deadline: Instant) throws -> [DUTOutput] { try inner.wait(until: deadline) }
        func close() -> String? { inner.close() }
        func unreachableReason() -> String? {
            driver.probes += 1
            return driver.unreachable
        }
    }
}
