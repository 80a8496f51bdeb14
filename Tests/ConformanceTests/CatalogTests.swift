import Conformance
import MeshNode
import Testing

/// DESIGN.md section 6: every check PASSes against the reference node and FAILs against at
/// least one named mutant; a check no mutant fails is not a check.
@Suite struct CatalogTests {
    static let cases: [(DialectName, String)] = DialectName.allCases.flatMap { d in
        Runner.select(Catalog.all, dialect: d, pattern: nil).map { (d, $0.id) }
    }

    static func check(_ id: String) -> Check { Catalog.all.first { $0.id == id }! }

    @Test(arguments: cases)
    func passesAgainstTheReferenceNode(_ dialect: DialectName, _ id: String) {
        let runner = Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver())
        let result = runner.run(Self.check(id))
        #expect(result.verdict == .pass, "\(dialect) \(id): \(result.verdict) \(result.reason ?? "") seen: \(result.seen ?? "")\n\(result.evidence.map(\.line).joined(separator: "\n"))")
    }

    @Test(arguments: cases)
    func failsAgainstSomeMutant(_ dialect: DialectName, _ id: String) {
        let failing = MutantTable.mutants(failing: Self.check(id), dialect: dialect)
        #expect(!failing.isEmpty, "\(dialect) \(id): no mutant fails it")
    }
}
