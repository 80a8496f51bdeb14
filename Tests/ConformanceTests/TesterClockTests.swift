@testable import Conformance
import Foundation
import MeshNode
import Synchronization
import Testing

/// The stdio protocol's tester clock (docs/stdio-dut.md section 6): the DUT runs its timers on
/// the time the tester sends, so a check's waits cost no wall time and its times are exact.
@Suite("process driver: the tester's clock", .serialized,
       .enabled(if: DUTPrograms.hasCryptography, "needs Python with the `cryptography` package (ci/test installs it in .venv)"))
struct TesterClockTests {
    static let capabilities: Capabilities = {
        do { return try Capabilities.load(DUTPrograms.root.appendingPathComponent("examples/relay-dut.tester-clock.json").path) } catch {
            fatalError("examples/relay-dut.tester-clock.json: \(error)")
        }
    }()

    static func driver(_ flags: String = "") -> ProcessDriver {
        ProcessDriver(command: DUTPrograms.relayDUT(flags), clock: .tester)
    }

    @Test func theExampleFileAsksForIt() {
        #expect(Self.capabilities.clock == .tester)
        // Without checkBudgetSeconds, the retention check fits the budget.
        #expect(Self.capabilities.checkBudgetSeconds >= 300)
    }

    /// Beacons every 2 s (RELAY-R9) land at exactly 2, 4 and 6 s of virtual time: the DUT's
    /// timers ran on the time lines, and the tester stamped each output with its timer's instant.
    @Test func beaconsFallOnTheTestersInstants() throws {
        let session = try Self.driver().start(try RelayProbe().setup(capabilities: Self.capabilities, seed: 7))
        defer { _ = session.close() }
        #expect(session.now == .zero)
        try session.apply(.linkUp(LinkID(1), peer: nil))
        let outputs = try session.wait(until: .milliseconds(6500))
        #expect(session.now == .milliseconds(6500))
        let sent = outputs.filter { if case .sent = $0.kind { true } else { false } }.map(\.at)
        #expect(sent == [.milliseconds(2000), .milliseconds(4000), .milliseconds(6000)], "\(outputs)")
    }

    /// The whole relay catalog, the 290 s retention check included: every check decided and
    /// passed, and the same report (ids, verdicts, reasons) with four checks at once.
    @Test func theRelayCatalogIsDecidedAndJobsDoNotChangeTheReport() throws {
        let checks = Runner.select(Catalog.all, dialect: .relay)
        let one = try Runner(capabilities: Self.capabilities, driver: Self.driver()).run(checks)
        #expect(one.count == checks.count)
        for r in one where r.verdict != .pass { Issue.record("\(r.id): \(r.verdict) \(r.reason ?? "") seen: \(r.seen ?? "")") }
        let four = try Runner(capabilities: Self.capabilities, driver: Self.driver()).run(checks, jobs: 4)
        #expect(four.map(\.id) == checks.map(\.id))
        #expect(four.map(\.verdict) == one.map(\.verdict))
    }

    /// A DUT that forgets after 60 s fails the retention check (and only it): the cache's
    /// clock is the tester's.
    @Test func aShortRetentionFailsTheRetentionCheck() {
        let runner = Runner(capabilities: Self.capabilities, driver: Self.driver("--retention 60"))
        let retention = runner.run(DUTPrograms.check("DDP/BV-07"))
        #expect(retention.verdict == .fail && retention.reason == "forgot a message before the retention minimum",
                "\(retention.verdict) \(retention.reason ?? "")")
        #expect(runner.run(DUTPrograms.check("DDP/BV-01")).verdict == .pass)
    }
}

/// `--jobs` on the wall clock: the same ids and verdicts in the same order as one at a time.
/// The fragile DUT (standard library only) floods every unit at once, so its verdicts do not
/// depend on how loaded the machine is.
@Suite("runner: checks at once")
struct ConcurrentRunTests {
    static let fragile = "python3 '\(DUTPrograms.root.appendingPathComponent("Tests/Support/fragile-dut.py").path)'"

    @Test func jobsKeepOrderAndVerdicts() throws {
        let checks = Runner.select(Catalog.all, dialect: .relay, patterns: ["RLY/*", "ROB/*"])
        let runner = Runner(capabilities: HostileDUTTests.capabilities, driver: ProcessDriver(command: Self.fragile))
        let one = try runner.run(checks)
        let order = Mutex<[String]>([])
        let three = try runner.run(checks, jobs: 3, progress: { r in order.withLock { $0.append(r.id) } })
        #expect(three.map(\.id) == checks.map(\.id))
        #expect(order.withLock { $0 } == checks.map(\.id), "progress is called in catalog order")
        #expect(three.map(\.verdict) == one.map(\.verdict), "\(zip(one, three).filter { $0.verdict != $1.verdict }.map { "\($0.id): \($0.verdict) vs \($1.verdict)" })")
        #expect(one.contains { $0.verdict == .fail } && one.contains { $0.verdict == .pass })
    }

    /// A command that cannot run stops a concurrent run as it stops a serial one.
    @Test func anUnavailableDUTStopsTheRun() {
        let runner = Runner(capabilities: HostileDUTTests.capabilities, driver: ProcessDriver(command: "/nonexistent/dut"))
        #expect(throws: DUTUnavailable.self) { try runner.run(Runner.select(Catalog.all, dialect: .relay), jobs: 4) }
    }
}

/// A DUT that gets the tester's clock wrong gets a verdict with the reason, in bounded time.
@Suite("process driver: the tester's clock, hostile DUTs")
struct HostileTesterClockTests {
    static let ready = #"echo '{"type":"ready","version":1,"clock":"tester"}'"#
    static func driver(_ command: String) -> ProcessDriver {
        ProcessDriver(command: command, clock: .tester, startTimeout: .seconds(1), writeTimeout: .seconds(1),
                      stopGrace: .milliseconds(200), stepTimeout: .seconds(1), maxTimeSteps: 200)
    }

    @Test("a DUT that mishandles the tester's clock", arguments: [
        // Does not confirm the clock in ready: the setup is wrong, the run stops (exit 2).
        (#"read l; echo '{"type":"ready","version":1}'; sleep 30"#, Verdict.error, "does not confirm it"),
        // Never answers with idle.
        ("read l; \(ready); sleep 30", .fail, "with \"idle\" within 1.0 s"),
        // After a time line, names a timer that should have run.
        ("read l; \(ready); while read l; do echo '{\"type\":\"idle\",\"nextUs\":0}'; done", .fail, "must run every timer due"),
        // A timer 1 us after every time it is given: virtual time crawls.
        ("read l; \(ready); n=1; while read l; do n=$((n+1)); echo \"{\\\"type\\\":\\\"idle\\\",\\\"nextUs\\\":$n}\"; done", .fail, "more than 200 time steps"),
        // A bad idle line.
        (#"read l; \#(ready); read l; echo '{"type":"idle","nextUs":-5}'; sleep 30"#, .fail, "nextUs -5"),
    ])
    func hostile(_ command: String, _ verdict: Verdict, _ reason: String) {
        let started = ContinuousClock.now
        let runner = Runner(capabilities: HostileDUTTests.capabilities, driver: Self.driver(command))
        let result = runner.run(DUTPrograms.check("RLY/BV-01"))
        #expect(result.verdict == verdict, "\(command): \(result.verdict) \(result.reason ?? "")")
        #expect((result.reason ?? "").contains(reason), "\(command): \(result.reason ?? "no reason")")
        #expect(ContinuousClock.now - started < .seconds(6))
    }

    /// `idle` from a DUT on its own clock is a protocol error.
    @Test func idleOnTheWallClock() {
        let command = #"read l; echo '{"type":"ready","version":1}'; read l; echo '{"type":"idle","nextUs":5}'; sleep 30"#
        let result = Runner(capabilities: HostileDUTTests.capabilities, driver: HostileDUTTests.driver(command)).run(DUTPrograms.check("RLY/BV-01"))
        #expect(result.verdict == .fail && (result.reason ?? "").contains("only a DUT on the tester's clock sends"), "\(result.reason ?? "")")
    }
}
