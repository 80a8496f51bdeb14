import Conformance
import MeshNode
import Testing

/// DDP/BV-14 (issue 15): past its capacity a cache forgets its oldest entries first. The check
/// catches a node that evicts an arbitrary id (camp app row 2) naming the dialect's rule,
/// passes the reference node fresh, with history and with background traffic, runs on the
/// page's minimum capacity when none is declared, and is INCONC when the capacity is too large
/// for the budget.
@Suite struct EvictionOrderTests {
    static let check = CatalogTests.check("DDP/BV-14")
    static let rule: [DialectName: String] = [.relay: "RELAY-R3", .blemesh: "BLEMESH-R5", .bitchat: "BITCHAT-R3",
                                              .simple: "SIMPLE-R3", .camp: "CAMP-R2", .peat: "PEAT-R4"]

    static func run(_ dialect: DialectName, _ faults: Set<Fault> = [], capabilities: Capabilities? = nil, persistent: Bool = false) -> CheckResult {
        Runner(capabilities: capabilities ?? .referenceNode(dialect), driver: VirtualDriver(faults: faults, persistent: persistent)).run(check)
    }

    @Test(arguments: DialectName.probed)
    func arbitraryEvictionFailsNamingTheRule(_ dialect: DialectName) throws {
        let result = Self.run(dialect, [.evictArbitrary])
        #expect(result.verdict == .fail, "\(dialect): \(result.verdict) \(result.reason ?? "")")
        #expect(result.reason?.contains(try #require(Self.rule[dialect])) == true, "\(dialect): \(result.reason ?? "")")
    }

    @Test(arguments: DialectName.probed)
    func theReferenceNodePassesWithHistoryAndBackgroundTraffic(_ dialect: DialectName) {
        for (faults, persistent) in [(Set<Fault>(), true), ([.chatty], false)] {
            let result = Self.run(dialect, faults, persistent: persistent)
            #expect(result.verdict == .pass, "\(dialect) \(faults) persistent \(persistent): \(result.verdict) \(result.reason ?? "") \(result.seen ?? "")")
        }
    }

    /// Without a declaration the page's minimum decides: a node that evicts an arbitrary id
    /// from a cache of the page's size FAILs with no capabilities file; the reference node
    /// never FAILs (PASS, or INCONC where its cache is larger than the page's minimum and so
    /// never overflowed). A cache too large for the budget is INCONC, by type.
    @Test(arguments: DialectName.probed)
    func decidedOnThePageMinimumWithoutADeclaration(_ dialect: DialectName) {
        var unknown = Capabilities.referenceNode(dialect)
        unknown.dedupCapacity = nil
        let reference = Self.run(dialect, capabilities: unknown)
        #expect(reference.verdict == .pass || (reference.verdict == .inconclusive && reference.reason?.contains("declare dedupCapacity") == true),
                "\(dialect): \(reference.verdict) \(reference.reason ?? "")")
        if dialect.referenceDedupCapacity == DialectParameters.of(dialect).dedupCapacity {
            let arbitrary = Self.run(dialect, [.evictArbitrary], capabilities: unknown)
            #expect(arbitrary.verdict == .fail, "\(dialect): \(arbitrary.verdict) \(arbitrary.reason ?? "")")
            #expect(arbitrary.evidence.contains { $0.summary.contains("the page's minimum capacity") })
        }
    }

    @Test func theCampPageDecidesRobotHeartsEviction() {
        var unknown = Capabilities.referenceNode(.camp)
        unknown.dedupCapacity = nil
        #expect(Self.run(.camp, [.evictArbitrary], capabilities: unknown).verdict == .fail)
    }

    @Test func inconclusivePastTheBudget() {
        var large = Capabilities.referenceNode(.camp)
        large.dedupCapacity = 1_000_000
        large.checkBudgetSeconds = 30
        let budget = Self.run(.camp, capabilities: large)
        #expect(budget.verdict == .inconclusive && budget.inconclusiveCause == .budget && budget.reason?.contains("budget") == true, "\(budget.reason ?? "")")
    }

    /// A declaration larger than the cache is the DUT's own statement proved false, not a guess.
    @Test func aCacheSmallerThanDeclaredFails() {
        var overstated = Capabilities.referenceNode(.camp)
        overstated.dedupCapacity = 2000
        let result = Self.run(.camp, capabilities: overstated)
        #expect(result.verdict == .fail && result.reason?.contains("holds fewer than it declares") == true, "\(result.reason ?? "")")
    }
}
