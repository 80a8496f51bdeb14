import Conformance
import Foundation
import MeshNode
import Testing

/// DESIGN.md section 6: every check PASSes against the reference node and FAILs against at
/// least one named mutant (a check no mutant fails is not a check), and docs/checks.md is
/// exactly what the catalog generates.
@Suite struct CatalogTests {
    static let cases: [(DialectName, String)] = DialectName.allCases.flatMap { d in
        Runner.select(Catalog.all, dialect: d).map { (d, $0.id) }
    }

    /// Measured once for the whole suite: it runs every check against every mutant, minutes
    /// of work in debug. The tests that read it await it; blocking on a lazy global instead
    /// would hold every test thread of Swift Testing's pool (two on two cores) until it is done.
    static let mutants = Task {
        await withCheckedContinuation { done in
            DispatchQueue.global().async { done.resume(returning: CatalogDocument.mutantTable()) }
        }
    }

    static func check(_ id: String) -> Check { Catalog.all.first { $0.id == id }! }

    @Test(arguments: cases)
    func passesAgainstTheReferenceNode(_ dialect: DialectName, _ id: String) {
        let runner = Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver())
        let result = runner.run(Self.check(id))
        #expect(result.verdict == .pass, "\(dialect) \(id): \(result.verdict) \(result.reason ?? "") seen: \(result.seen ?? "")\n\(result.evidence.map(\.line).joined(separator: "\n"))")
    }

    @Test(arguments: cases)
    func failsAgainstSomeMutant(_ dialect: DialectName, _ id: String) async {
        let failing = await Self.mutants.value[id]?[dialect] ?? []
        #expect(!failing.isEmpty, "\(dialect) \(id): no mutant fails it")
    }

    @Test func idsAreUniqueAndWellFormed() {
        let ids = Catalog.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        for id in ids { #expect(id.wholeMatch(of: /(RLY|DDP|ACK|FRG|RTE|BCN|ROB)\/B[VI]-\d\d/) != nil, "\(id)") }
    }

    @Test func checksPageIsGeneratedFromTheCatalog() async throws {
        let committed = try String(contentsOf: Repository.root.appending(path: "docs/checks.md"), encoding: .utf8)
        let generated = CatalogDocument.markdown(Catalog.all, mutants: await Self.mutants.value)
        #expect(committed == generated, "docs/checks.md is stale: run `swift run meshconform list --markdown > docs/checks.md`")
    }
}

enum Repository {
    /// The package root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
