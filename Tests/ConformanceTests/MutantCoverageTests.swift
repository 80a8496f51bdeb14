import Conformance
import MeshNode
import Testing

/// The converse of CatalogTests' mutant proof: every named mutant is caught, i.e. FAILs at
/// least one check of each dialect whose reference node carries it. A mutant no check catches
/// is either a check missing from the catalog or a deviation the page allows.
@Suite struct MutantCoverageTests {
    /// Dialects without a probe have no checks yet; their mutants are proven in MeshNodeTests.
    static let cases: [(DialectName, Fault)] = DialectName.probed.flatMap { d in
        Fault.allCases.filter { $0.dialects.contains(d) && !$0.policyDialects.contains(d) }.map { (d, $0) }
    }
    /// An app's policy inside the page's envelope (bitchat's jitter by degree, fan-out subset ...).
    static let policies: [(DialectName, Fault)] = DialectName.probed.flatMap { d in
        Fault.allCases.filter { $0.dialects.contains(d) && $0.policyDialects.contains(d) }.map { (d, $0) }
    }

    @Test(arguments: cases)
    func everyMutantFailsSomeCheck(_ dialect: DialectName, _ fault: Fault) async {
        let catching = await CatalogTests.mutants.value.filter { $0.value[dialect]?.contains(fault) ?? false }.map(\.key).sorted()
        #expect(!catching.isEmpty, "\(dialect): no check fails mutant \(fault.rawValue) (\(fault.summary))")
    }

    /// A policy is what a real implementation does inside the page's envelope: run as that
    /// implementation declares itself (its profile's capabilities), no check FAILs it.
    @Test(arguments: policies)
    func policiesFailNoCheck(_ dialect: DialectName, _ fault: Fault) {
        let profile = AppProfile.all(of: dialect).first { $0.faults.contains(fault) }
        let caps = Capabilities.referenceNode(dialect, as: MutantSelection(profile: profile?.mutantName))
        let runner = Runner(capabilities: caps, driver: VirtualDriver(faults: [fault]))
        let failed = Runner.select(Catalog.all, dialect: dialect).map(runner.run).filter { $0.verdict == .fail }
        #expect(failed.isEmpty, "\(dialect): the policy \(fault.rawValue) FAILs \(failed.map(\.id)): \(failed.first?.reason ?? "")")
    }
}
