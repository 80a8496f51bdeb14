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

    /// The dialect's cards, one per implementation (bitchat: iOS and Android).
    static func cards(_ d: DialectName) -> [AppCard] { cards.filter { $0.dialect == d } }

    @Test func everyPageHasItsTable() throws {
        let tables = try Self.tables.get()
        #expect(tables.map(\.dialect) == DialectName.allCases)
        for table in tables {
            #expect(table.rows.map(\.number) == Array(1...table.rows.count), "\(table.dialect): rows are not numbered 1, 2, ...")
        }
    }

    @Test(arguments: DialectName.allCases)
    func behaviouralRowsAreCaught(_ d: DialectName) throws {
        try #require(!Self.cards(d).isEmpty)
        for card in Self.cards(d) { try behaviouralRowsAreCaught(card) }
    }

    func behaviouralRowsAreCaught(_ card: AppCard) throws {
        let d = card.dialect
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
            for (mutant, fails) in card.alone[row.number] ?? [] {
                #expect(!fails.isEmpty, "\(name): `\(mutant)` alone FAILs none of \(row.checks) on a check verifying \(row.rules)")
            }
            #expect(!card.profileCatches(row).isEmpty, "\(name): `--mutant \(card.profile.mutantName)` FAILs none of \(row.checks)")
        }
    }

    /// A policy row: its mutants are the app's policy, which the page's envelope holds, so each
    /// alone PASSes every check the row names (and those checks exercise it).
    @Test(arguments: DialectName.allCases)
    func policyRowsPass(_ d: DialectName) throws {
        for card in Self.cards(d) {
            let catalog = Set(Runner.select(Catalog.all, dialect: d).map(\.id))
            for row in card.table.rows where row.kind == .policy {
                let name = "\(d.rawValue) \(row.number)"
                #expect(!row.mutants.isEmpty && !row.checks.isEmpty, "\(name) names no mutant or no check")
                for id in row.checks { #expect(catalog.contains(id), "\(name): \(id) is not a \(d.rawValue) check") }
                for mutant in row.mutants {
                    let fault = Fault(rawValue: mutant)
                    #expect(fault.map { $0.policyDialects.contains(d) } ?? false, "\(name): `\(mutant)` is not a \(d.rawValue) policy (Fault.policyDialects)")
                }
                for (mutant, results) in card.alone[row.number] ?? [] {
                    #expect(results.count == row.checks.count && results.allSatisfy { $0.verdict == .pass },
                            "\(name): `\(mutant)` alone does not PASS \(row.checks): \(results.map { "\($0.id) \($0.verdict.rawValue)" })")
                }
            }
        }
    }

    @Test(arguments: DialectName.allCases)
    func wireRowsNameVectorsPinningTheApp(_ d: DialectName) throws {
        for card in Self.cards(d) { wireRowsNameVectorsPinningTheApp(card) }
    }

    func wireRowsNameVectorsPinningTheApp(_ card: AppCard) {
        let d = card.dialect
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
        for row in try Self.tables.get().first(where: { $0.dialect == d })?.rows ?? [] where row.kind == .unobservable || row.kind == .allowed {
            #expect((row.why ?? "").count > 20, "\(d.rawValue) \(row.number): say why nothing catches it")
            #expect(!Self.notCaughtYet.contains("\(d.rawValue) \(row.number)"))
        }
    }

    @Test(arguments: DialectName.allCases)
    func profileIsEveryBehaviouralRowsMutants(_ d: DialectName) throws {
        let table = try #require(try Self.tables.get().first { $0.dialect == d })
        #expect(Self.cards(d).map(\.profile) == AppProfile.all(of: d))
        for profile in AppProfile.all(of: d) {
            let fromTable = table.rows(of: profile).filter { $0.kind == .behavioural || $0.kind == .policy }.flatMap(\.mutants)
            var unique: [String] = []
            for m in fromTable where !unique.contains(m) { unique.append(m) }
            #expect(profile.faults.map(\.rawValue) == unique,
                    "AppProfile \(profile.mutantName) (\(d.rawValue)) must list the table's mutants in row order: \(unique)")
        }
        // Every row of a table with an apps column names at least one implementation.
        for row in table.rows { #expect(row.apps.map { !$0.isEmpty } ?? true, "\(d.rawValue) \(row.number) names no app") }
    }

    @Test func mutantsCompose() throws {
        let selection = try MutantSelection.parse("no-dedup, relay-own,app").get()
        #expect(selection.faults == [.noDedup, .relayOwn] && selection.profile == "app")
        #expect(selection.faults(for: .relay).isSuperset(of: Set(AppProfile.main(of: .relay).faults)))
        let android = try MutantSelection.parse("app-android").get()
        #expect(android.faults(for: .bitchat) == Set(AppProfile.all(of: .bitchat)[1].faults))
        #expect(android.appProblem(for: .relay) != nil && android.appProblem(for: .bitchat) == nil)
        if case .failure(let two) = MutantSelection.parse("app-ios,app-android") { #expect(two.secondProfile) } else { Issue.record("took two profiles") }
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
