import Conformance
import MeshNode
import Testing

/// ROB/BI-07 draws its garbage from the check's seed; what it catches must not depend on the
/// seed (ci/seeds holds every mutant to one FAIL set). Seed 3 once held no truncated unit, so
/// crash-on-truncated passed it.
@Suite struct GarbageBurstTests {
    static let check = Catalog.all.first { $0.id == "ROB/BI-07" }!
    static let dialects = DialectName.probed.filter { check.dialects.contains($0) && Fault.crashOnTruncated.dialects.contains($0) }

    @Test(arguments: dialects)
    func crashOnTruncatedFailsForEverySeed(_ dialect: DialectName) {
        for seed: UInt64 in 1...8 {
            let runner = Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver(faults: [.crashOnTruncated]), seed: seed)
            let result = runner.run(Self.check)
            #expect(result.verdict == .fail, "\(dialect) seed \(seed): \(result.verdict) \(result.reason ?? "")")
        }
    }
}
