import Conformance
import MeshNode
import Testing

/// DDP/BV-14 (issue 15): past its capacity a cache forgets its oldest entries first. The check
/// catches a node that evicts an arbitrary id (camp app row 2) naming the dialect's rule,
/// passes the reference node fresh, with history and with background traffic, and is NA,
/// never a guess, when the capacity is unknown or too large for the budget.
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

    @Test func naWithoutADeclaredCapacityOrPastTheBudget() {
        var unknown = Capabilities.referenceNode(.camp)
        unknown.dedupCapacity = nil
        let na = Self.run(.camp, capabilities: unknown)
        #expect(na.verdict == .notApplicable && na.reason?.contains("dedupCapacity") == true, "\(na.reason ?? "")")
        var large = Capabilities.referenceNode(.camp)
        large.dedupCapacity = 1_000_000
        large.checkBudgetSeconds = 30
        let budget = Self.run(.camp, capabilities: large)
        #expect(budget.verdict == .notApplicable && budget.reason?.contains("budget") == true, "\(budget.reason ?? "")")
    }

    /// A declaration larger than the cache is the DUT's own statement proved false, not a guess.
    @Test func aCacheSmallerThanDeclaredFails() {
        var overstated = Capabilities.referenceNode(.camp)
        overstated.dedupCapacity = 2000
        let result = Self.run(.camp, capabilities: overstated)
        #expect(result.verdict == .fail && result.reason?.contains("holds fewer than it declares") == true, "\(result.reason ?? "")")
    }
}
