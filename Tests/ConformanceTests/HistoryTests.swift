import Conformance
import MeshNode
import Testing

/// Issue 13, history: a DUT on the air is never restarted, so the catalog must hold against a
/// node that keeps its state for the whole run, and every identifier a check makes must be new
/// to it (unique per run, apart between runs).
@Suite struct HistoryTests {
    /// The whole catalog of `dialect` against one node kept for the run.
    static func verdicts(_ dialect: DialectName, _ driver: VirtualDriver, runBase: UInt64? = nil) throws -> [CheckResult] {
        let runner = Runner(capabilities: .referenceNode(dialect), driver: driver, seed: 7, runBase: runBase)
        return try runner.run(Runner.select(Catalog.all, dialect: dialect))
    }

    static func failures(_ results: [CheckResult]) -> String {
        results.filter { $0.verdict != .pass }.map { r in
            "\(r.id) \(r.verdict): \(r.reason ?? "") seen: \(r.seen ?? "")\n" + r.evidence.suffix(30).map(\.line).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    @Test(arguments: DialectName.probed)
    func aPersistentNodePassesTheWholeCatalogLikeFreshOnes(_ dialect: DialectName) throws {
        let fresh = try Self.verdicts(dialect, VirtualDriver())
        let kept = try Self.verdicts(dialect, VirtualDriver(persistent: true))
        #expect(fresh.allSatisfy { $0.verdict == .pass }, "\(dialect) fresh:\n\(Self.failures(fresh))")
        #expect(kept.map(\.verdict) == fresh.map(\.verdict), "\(dialect) persistent:\n\(Self.failures(kept))")
    }

    /// The same catalog twice against one node, the second run with another run base: a
    /// device on the bench meets run after run.
    @Test(arguments: DialectName.probed)
    func aSecondRunAgainstTheSameNodePassesToo(_ dialect: DialectName) throws {
        let driver = VirtualDriver(persistent: true)
        _ = try Self.verdicts(dialect, driver, runBase: 1)
        let second = try Self.verdicts(dialect, driver, runBase: 0xFEED_F00D_0000)
        #expect(second.allSatisfy { $0.verdict == .pass }, "\(dialect) second run:\n\(Self.failures(second))")
    }

    /// Two checks of one run, and the same check in two runs, never make the same message.
    @Test(arguments: DialectName.probed)
    func identifiersAreUniquePerCheckAndPerRun(_ dialect: DialectName) throws {
        func key(_ runBase: UInt64, _ index: Int) throws -> String {
            let probe = dialect.makeProbe()!
            _ = try probe.setup(capabilities: .referenceNode(dialect), seed: 1, identifiers: RunIdentifiers(runBase: runBase, checkIndex: index))
            let m = try probe.message(MessageSpec(from: .stranger(1), to: probe.relayedDestination, payload: Array("same".utf8)))
            return m.key
        }
        let keys = try [key(10, 0), key(10, 1), key(1 << 40, 0), key(99, 5)]
        #expect(Set(keys).count == keys.count, "\(dialect): \(keys)")
        #expect(try key(10, 0) == key(10, 0), "\(dialect): a run base replays")
    }

    @Test func theRunBaseComesFromTheSeedUnlessGiven() {
        let a = Runner(capabilities: .referenceNode(.relay), driver: VirtualDriver(), seed: 3)
        let b = Runner(capabilities: .referenceNode(.relay), driver: VirtualDriver(), seed: 3)
        let c = Runner(capabilities: .referenceNode(.relay), driver: VirtualDriver(), seed: 3, runBase: 42)
        #expect(a.runBase == b.runBase && a.runBase != Runner.runBase(seed: 4))
        #expect(c.runBase == 42)
        #expect(Runner.randomRunBase() != Runner.randomRunBase())
    }
}
