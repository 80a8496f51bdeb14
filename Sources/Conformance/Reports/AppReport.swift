import MeshNode
import MeshVectors

/// What each real implementation would fail, measured: its profile (`--mutant app-ios`) run
/// over its dialect's catalog, each behavioural row's mutants run alone over the row's checks
/// (they must FAIL one), each policy row's mutants alone over its checks (they must PASS them
/// all), and the golden vectors its rows name or flag `AppBug`. `meshconform list --apps`
/// prints it and docs/apps.md is generated from it.
public struct AppCard: Sendable {
    public var profile: AppProfile
    /// The rows of the dialect's table that this implementation shows.
    public var table: DifferencesTable
    /// The profile's verdict on every check of the dialect, in catalog order.
    public var results: [CheckResult]
    /// Per behavioural or policy row (by number), per mutant it names: the verdicts of the
    /// row's checks with that mutant alone (a behavioural row keeps the FAILs on its rules).
    public var alone: [Int: [(mutant: String, results: [CheckResult])]]
    public var vectors: [AppVector]

    public var dialect: DialectName { profile.dialect }
    public var app: String { profile.app }
    public var failures: [CheckResult] { results.filter { $0.verdict == .fail } }

    /// The row's checks the profile FAILs, whose rules are the row's.
    public func profileCatches(_ row: DifferencesTable.Row) -> [CheckResult] {
        failures.filter { r in row.checks.contains(r.id) && DifferencesTable.matches(AppCard.rules(of: r.id), rowRules: row.rules) }
    }

    /// The rows that name a check and expect it to FAIL.
    public func rows(naming check: String) -> [Int] {
        table.rows.filter { $0.kind == .behavioural && $0.checks.contains(check) }.map(\.number)
    }

    /// A check's rules (every dialect's: a row's rule ids carry its dialect's prefix).
    static func rules(of id: String) -> [String] {
        Catalog.all.first { $0.id == id }?.rules ?? []
    }

    public static func measure(tables: [DifferencesTable], vectors: [VectorFile], seed: UInt64 = 1) -> [AppCard] {
        tables.flatMap { whole in
            AppProfile.all(of: whole.dialect).map { profile in
                let d = whole.dialect
                let table = DifferencesTable(dialect: d, rows: whole.rows(of: profile))
                let catalog = Runner.select(Catalog.all, dialect: d)
                let selection = MutantSelection(profile: profile.mutantName)
                let caps = Capabilities.referenceNode(d, as: selection)
                let runner = Runner(capabilities: caps, driver: VirtualDriver(mutants: selection), seed: seed)
                var alone: [Int: [(mutant: String, results: [CheckResult])]] = [:]
                for row in table.rows where row.kind == .behavioural || row.kind == .policy {
                    let checks = catalog.filter { row.checks.contains($0.id) }
                    alone[row.number] = row.mutants.map { name in
                        guard let fault = Fault(rawValue: name) else { return (name, []) }
                        let one = Runner(capabilities: caps, driver: VirtualDriver(faults: [fault]), seed: seed)
                        let results = checks.map(one.run)
                        guard row.kind == .behavioural else { return (name, results) }
                        return (name, results.filter { $0.verdict == .fail && DifferencesTable.matches(rules(of: $0.id), rowRules: row.rules) })
                    }
                }
                return AppCard(profile: profile, table: table, results: catalog.map(runner.run), alone: alone,
                               vectors: AppVector.collect(table, vectors.filter { $0.dialect == d.rawValue }, app: profile.vectorKey))
            }
        }
    }
}

/// A golden vector the app gets wrong (`AppBug`) or answers differently (`acceptable`).
public struct AppVector: Sendable {
    public var ref: DifferencesTable.VectorRef
    public var vector: Vector?
    /// The table rows that name it.
    public var rows: [Int]

    /// The vectors the rows name, then every other `AppBug` vector of the dialect that the
    /// vector's `apps` does not say this implementation (`app`, `bitchat-ios`) refuses.
    static func collect(_ table: DifferencesTable, _ files: [VectorFile], app: String) -> [AppVector] {
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
            for v in file.tests where v.flags.contains("AppBug") && v.apps[app] != "refuse" {
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
