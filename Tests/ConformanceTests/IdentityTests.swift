import Conformance
import MeshNode
import MeshWire
import Testing

/// Issue 13, identity: a DUT keeps an id of its own. The tester takes it from the capabilities
/// (`address`), or learns it from the DUT's own traffic; a check that needs it while it is
/// unknown is NA with the reason, never FAIL (a guessed id gave "relayed its own message").
@Suite struct IdentityTests {
    static func run(_ dialect: DialectName, faults: Set<Fault> = [], address: String? = nil, announces: Bool = false) throws -> [CheckResult] {
        var capabilities = Capabilities.referenceNode(dialect)
        capabilities.keepsOwnIdentity = true
        capabilities.address = address
        let driver = VirtualDriver(faults: faults, persistent: true, ownIdentity: true, announces: announces)
        return try Runner(capabilities: capabilities, driver: driver).run(Runner.select(Catalog.all, dialect: dialect))
    }

    /// A node that names itself (chatty: announces, beacons, documents, own messages in every
    /// dialect) is learnt, and then the catalog passes as against an assigned id; relay frames
    /// to the DUT alone stay NA, for a DUT's key is not in its traffic.
    @Test(arguments: DialectName.probed)
    func anIdentityLearntFromTrafficGivesTheAssignedVerdicts(_ dialect: DialectName) throws {
        let results = try Self.run(dialect, faults: [.chatty])
        let bad = results.filter { $0.verdict != .pass && !($0.verdict == .notApplicable && $0.reason?.contains("publicKey") == true) }
        #expect(bad.isEmpty, "\(dialect):\n\(HistoryTests.failures(bad))")
        let learnt = results.flatMap(\.evidence).first { $0.summary.hasPrefix("DUT identity") }
        #expect(learnt != nil, "\(dialect): the identity was never learnt")
    }

    /// The reference node with an id of its own: some dialects' nodes never name themselves
    /// unasked (bitchat, camp, simple send nothing of their own), so checks that need the id
    /// are NA, with the reason; none FAILs.
    @Test(arguments: DialectName.probed)
    func anUnknownIdentityIsNANeverFail(_ dialect: DialectName) throws {
        let results = try Self.run(dialect)
        let failed = results.filter { $0.verdict == .fail || $0.verdict == .error }
        #expect(failed.isEmpty, "\(dialect):\n\(HistoryTests.failures(failed))")
        for r in results where r.verdict == .notApplicable && r.reason?.contains("own id") == true {
            #expect(r.reason?.contains("declare it as address") == true)
        }
        if [.bitchat, .camp, .simple].contains(dialect) {
            #expect(results.contains { $0.verdict == .notApplicable && $0.reason?.contains("own id, which is unknown") == true }, "\(dialect)")
        }
    }

    /// The node as `meshconform node` runs it on the air: it announces itself as its page says
    /// (bitchat BITCHAT-R12, camp CAMP-R8; relay, blemesh and peat name themselves anyway), so
    /// its id is learnt and the checks that need it are decided and pass. simple has no such
    /// traffic (SIMPLE-R2): there they stay NA.
    @Test(arguments: DialectName.probed)
    func anAnnouncingNodeIsLearntAndPasses(_ dialect: DialectName) throws {
        let results = try Self.run(dialect, announces: true)
        let isUnknown = { (r: CheckResult) in r.verdict == .notApplicable && r.reason?.contains("own id, which is unknown") == true }
        let unknown = results.filter(isUnknown)
        let bad = results.filter { $0.verdict != .pass && !($0.verdict == .notApplicable && $0.reason?.contains("publicKey") == true) && !isUnknown($0) }
        #expect(bad.isEmpty, "\(dialect):\n\(HistoryTests.failures(bad))")
        let learnt = results.flatMap(\.evidence).contains { $0.summary.hasPrefix("DUT identity") }
        if dialect == .simple {
            #expect(!unknown.isEmpty && !learnt, "simple: nothing of its own names the node")
        } else {
            #expect(unknown.isEmpty && learnt, "\(dialect): the identity was not learnt: \(unknown.map(\.id))")
        }
    }

    /// Declared, the id needs no learning: the run passes from the first check.
    @Test func aDeclaredIdentityIsUsedAsIs() throws {
        let results = try Self.run(.blemesh, address: VirtualDriver.ownAddress.description)
        #expect(results.allSatisfy { $0.verdict == .pass }, "\(HistoryTests.failures(results))")
        #expect(!results.flatMap(\.evidence).contains { $0.summary.hasPrefix("DUT identity") })
    }

    /// Only a packet the sender sent as its own names it, and never a party the tester plays.
    @Test func onlyOwnPacketsNameTheDUT() throws {
        let probe = RelayProbe()
        _ = try probe.setup(capabilities: .referenceNode(.relay), seed: 1)
        let other = VirtualDriver.ownAddress.uuid!
        #expect(probe.ownIdentity(in: .beacon(Beacon(origin: other, seqNo: 4, ttl: 8, hop: 0))) == VirtualDriver.ownAddress)
        #expect(probe.ownIdentity(in: .beacon(Beacon(origin: other, seqNo: 4, ttl: 7, hop: 1))) == nil, "a relayed beacon")
        let tester = probe.address(of: .tester(1)).uuid!
        #expect(probe.ownIdentity(in: .beacon(Beacon(origin: tester, seqNo: 4, ttl: 8, hop: 0))) == nil, "a tester's beacon")
    }
}
