import Conformance
import Foundation
import MeshNode
import MeshVectors
import Testing

/// Issue 15: each dialect page's "Differences from the app" table is tied to the catalog. Every
/// behavioural row names mutants that FAIL one of its checks (alone, and inside the app profile
/// `--mutant app`) on a check that verifies the row's rule; every wire row names vectors that
/// pin the app's answer; every other row says why nothing can catch it; docs/apps.md is what
/// the tables and the catalog generate.
@Suite struct AppTableTests {
    static let pages = Repository.root.appending(path: "docs/dialects").path
    static let tables = Result { try DifferencesTable.loadAll(dialectPages: pages) }
    static let cards: [AppCard] = {
        guard case .success(let tables) = tables,
              let vectors = try? VectorFile.loadAll(in: Repository.root.appending(path: "Vectors").path) else { return [] }
        return AppCard.measure(tables: tables, vectors: vectors)
    }()

    /// Rows nothing catches yet (`-` in the table): each must stay uncaught while listed here,
    /// and a row leaves the list when its mutants and checks, or its vectors, are added.
    static let notCaughtYet: Set<String> = []

    static func card(_ d: DialectName) -> AppCard? { cards.first { $0.dialect == d } }

    @Test func everyPageHasItsTable() throws {
        let tables = try Self.tables.get()
        #expect(tables.map(\.dialect) == DialectName.allCases)
        for table in tables {
            #expect(table.rows.map(\.number) == Array(1...table.rows.count), "\(table.dialect): rows are not numbered 1, 2, ...")
        }
    }

    @Test(arguments: DialectName.allCases)
    func behaviouralRowsAreCaught(_ d: DialectName) throws {
        let card = try #require(Self.card(d))
        let catalog = Set(Runner.select(Catalog.all, dialect: d).map(\.id))
        for row in card.table.rows where row.kind == .behavioural {
            let name = "\(d.rawValue) \(row.number)"
            if Self.notCaughtYet.contains(name) {
                #expect(row.mutants.isEmpty || card.profileCatches(row).isEmpty, "\(name) is caught now: take it off notCaughtYet")
                continue
            }
            #expect(!row.rules.isEmpty && row.rules.count == row.ruleText.split(separator: ",").count,
                    "\(name): a behavioural row's rule cell lists requirement ids only: \(row.ruleText)")
            #expect(!row.mutants.isEmpty && !row.checks.isEmpty, "\(name) names no mutant or no check")
            for id in row.checks { #expect(catalog.contains(id), "\(name): \(id) is not a \(d.rawValue) check") }
            for mutant in row.mutants {
                let fault = Fault(rawValue: mutant)
                #expect(fault != nil, "\(name): no mutant `\(mutant)` (meshconform list --mutants)")
                #expect(fault.map { $0.dialects.contains(d) } ?? true, "\(name): the \(d.rawValue) node does not carry `\(mutant)`")
            }
            for (mutant, fails) in card.caughtAlone[row.number] ?? [] {
                #expect(!fails.isEmpty, "\(name): `\(mutant)` alone FAILs none of \(row.checks) on a check verifying \(row.rules)")
            }
            #expect(!card.profileCatches(row).isEmpty, "\(name): `--mutant app` FAILs none of \(row.checks)")
        }
    }

    @Test(arguments: DialectName.allCases)
    func wireRowsNameVectorsPinningTheApp(_ d: DialectName) throws {
        let card = try #require(Self.card(d))
        for row in card.table.rows where row.kind == .wire {
            let name = "\(d.rawValue) \(row.number)"
            #expect(row.mutants.isEmpty, "\(name): a wire row has no mutant; its vectors pin it")
            #expect(Self.notCaughtYet.contains(name) == row.vectors.isEmpty, "\(name): vectors \(row.vectors) against notCaughtYet")
            for ref in row.vectors {
                let vector = card.vectors.first { $0.ref == ref }
                #expect(vector?.vector != nil, "\(name): no vector \(ref)")
                #expect(vector?.pinsAnAppDifference ?? false, "\(name): \(ref) is neither flagged AppBug nor acceptable")
            }
        }
    }

    @Test(arguments: DialectName.allCases)
    func rowsNothingCatchesSayWhy(_ d: DialectName) throws {
        let card = try #require(Self.card(d))
        for row in card.table.rows where row.kind == .unobservable || row.kind == .allowed {
            #expect((row.why ?? "").count > 20, "\(d.rawValue) \(row.number): say why nothing catches it")
            #expect(!Self.notCaughtYet.contains("\(d.rawValue) \(row.number)"))
        }
    }

    @Test(arguments: DialectName.allCases)
    func profileIsEveryBehaviouralRowsMutants(_ d: DialectName) throws {
        let card = try #require(Self.card(d))
        let fromTable = card.table.rows.filter { $0.kind == .behavioural }.flatMap(\.mutants)
        var unique: [String] = []
        for m in fromTable where !unique.contains(m) { unique.append(m) }
        #expect(AppProfile.faults(of: d).map(\.rawValue) == unique,
                "AppProfile.faults(of: .\(d.rawValue)) must list the table's mutants in row order: \(unique)")
    }

    @Test func mutantsCompose() throws {
        let selection = try MutantSelection.parse("no-dedup, relay-own,app").get()
        #expect(selection.faults == [.noDedup, .relayOwn] && selection.appProfile)
        #expect(selection.faults(for: .relay).isSuperset(of: Set(AppProfile.faults(of: .relay))))
        if case .failure(let unknown) = MutantSelection.parse("no-dedup,nonsense") { #expect(unknown.name == "nonsense") } else { Issue.record("accepted an unknown mutant") }
        // Composed, each fault still shows: the union of what each FAILs alone.
        let checks = Runner.select(Catalog.all, dialect: .relay).filter { ["BCN/BV-01", "DDP/BV-01"].contains($0.id) }
        let runner = Runner(capabilities: .referenceNode(.relay), driver: VirtualDriver(faults: [.beaconType46, .noDedup]))
        #expect(checks.map(runner.run).allSatisfy { $0.verdict == .fail })
    }

    @Test func appsPageIsGenerated() throws {
        let committed = try String(contentsOf: Repository.root.appending(path: "docs/apps.md"), encoding: .utf8)
        #expect(committed == AppsDocument.markdown(Self.cards), "docs/apps.md is stale: run `swift run meshconform list --apps --markdown > docs/apps.md`")
    }
}
