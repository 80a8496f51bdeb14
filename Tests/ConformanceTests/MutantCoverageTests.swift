import Conformance
import MeshNode
import Testing

/// The converse of CatalogTests' mutant proof: every named mutant is caught, i.e. FAILs at
/// least one check of each dialect whose reference node carries it. A mutant no check catches
/// is either a check missing from the catalog or a deviation the page allows.
@Suite struct MutantCoverageTests {
    /// Dialects without a probe have no checks yet; their mutants are proven in MeshNodeTests.
    static let cases: [(DialectName, Fault)] = DialectName.probed.flatMap { d in
        Fault.allCases.filter { $0.dialects.contains(d) }.map { (d, $0) }
    }

    @Test(arguments: cases)
    func everyMutantFailsSomeCheck(_ dialect: DialectName, _ fault: Fault) async {
        let catching = await CatalogTests.mutants.value.filter { $0.value[dialect]?.contains(fault) ?? false }.map(\.key).sorted()
        #expect(!catching.isEmpty, "\(dialect): no check fails mutant \(fault.rawValue) (\(fault.summary))")
    }
}
