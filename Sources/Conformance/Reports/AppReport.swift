import MeshNode
import MeshVectors

/// What each real app would fail, measured: its profile (`--mutant app`) run over its
/// dialect's catalog, each behavioural row's mutants run alone over the row's checks, and the
/// golden vectors its rows name or flag `AppBug`. `meshconform list --apps` prints it and
/// docs/apps.md is generated from it.
public struct AppCard: Sendable {
    public var dialect: DialectName
    public var table: DifferencesTable
    /// The profile's verdict on every check of the dialect, in catalog order.
    public var results: [CheckResult]
    /// Per behavioural row (by number), per mutant it names: the row's checks that mutant
    /// FAILs alone, whose rules are the row's.
    public var caughtAlone: [Int: [(mutant: String, fails: [CheckResult])]]
    public var vectors: [AppVector]

    public var app: String { AppProfile.app(of: dialect) }
    public var profile: [Fault] { AppProfile.faults(of: dialect) }
    public var failures: [CheckResult] { results.filter { $0.verdict == .fail } }

    /// The row's checks the profile FAILs, whose rules are the row's.
    public func profileCatches(_ row: DifferencesTable.Row) -> [CheckResult] {
        failures.filter { r in row.checks.contains(r.id) && DifferencesTable.matches(AppCard.rules(of: r.id), rowRules: row.rules) }
    }

    /// The behavioural rows that name a check.
    public func rows(naming check: String) -> [Int] {
        table.rows.filter { $0.kind == .behavioural && $0.checks.contains(check) }.map(\.number)
    }

    /// A check's rules (every dialect's: a row's rule ids carry its dialect's prefix).
    static func rules(of id: String) -> [String] {
        Catalog.all.first { $0.id == id }?.rules ?? []
    }

    public static func measure(tables: [DifferencesTable], vectors: [VectorFile], seed: UInt64 = 1) -> [AppCard] {
        tables.map { table in
            let d = table.dialect
            let catalog = Runner.select(Catalog.all, dialect: d)
            let profile = Runner(capabilities: .referenceNode(d), driver: VirtualDriver(mutants: MutantSelection(appProfile: true)), seed: seed)
            var caught: [Int: [(mutant: String, fails: [CheckResult])]] = [:]
            for row in table.rows where row.kind == .behavioural {
                let checks = catalog.filter { row.checks.contains($0.id) }
                caught[row.number] = row.mutants.map { name in
                    guard let fault = Fault(rawValue: name) else { return (name, []) }
                    let runner = Runner(capabilities: .referenceNode(d), driver: VirtualDriver(faults: [fault]), seed: seed)
                    let fails = checks.map(runner.run).filter { $0.verdict == .fail && DifferencesTable.matches(rules(of: $0.id), rowRules: row.rules) }
                    return (name, fails)
                }
            }
            return AppCard(dialect: d, table: table, results: catalog.map(profile.run), caughtAlone: caught,
                           vectors: AppVector.collect(table, vectors.filter { $0.dialect == d.rawValue }))
        }
    }
}

/// A golden vector the app gets wrong (`AppBug`) or answers differently (`acceptable`).
public struct AppVector: Sendable {
    public var ref: DifferencesTable.VectorRef
    public var vector: Vector?
    /// The table rows that name it.
    public var rows: [Int]

    /// The vectors the rows name, then every other `AppBug` vector of the dialect.
    static func collect(_ table: DifferencesTable, _ files: [VectorFile]) -> [AppVector] {
        func find(_ ref: DifferencesTable.VectorRef) -> Vector? {
            files.first { $0.format == ref.format }?.tests.first { $0.tcId == ref.tcId }
        }
        var out: [AppVector] = []
        for row in table.rows {
            for ref in row.vectors {
                if let i = out.firstIndex(where: { $0.ref == ref }) { out[i].rows.append(row.number) } else {
                    out.append(AppVector(ref: ref, vector: find(ref), rows: [row.number]))
                }
            }
        }
        for file in files {
            for v in file.tests where v.flags.contains("AppBug") {
                let ref = DifferencesTable.VectorRef(format: file.format, tcId: v.tcId)
                if !out.contains(where: { $0.ref == ref }) { out.append(AppVector(ref: ref, vector: v, rows: [])) }
            }
        }
        return out
    }

    /// Flagged `AppBug` or with result `acceptable`: what a wire row may name.
    public var pinsAnAppDifference: Bool {
        guard let vector else { return false }
        return vector.flags.contains("AppBug") || vector.result == .acceptable
    }
}
