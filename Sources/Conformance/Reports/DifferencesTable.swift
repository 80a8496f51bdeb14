import Foundation
import MeshNode

/// A dialect page's "Differences from the app" table (docs/dialects/README.md, "The
/// differences table"): each known deviation of the app, what kind it is, and the mutants,
/// checks or vectors that reproduce and catch it, or why nothing can.
public struct DifferencesTable: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A check can see it from outside: mutants reproduce it, checks catch it.
        case behavioural
        /// A policy where real implementations differ, inside the page's envelope: mutants
        /// reproduce it, and the checks it names exercise it and PASS it.
        case policy
        /// Only a decoder or encoder differs: golden vectors pin it.
        case wire
        /// The app deviates, but nothing outside it can tell.
        case unobservable
        /// Nothing a conforming node must avoid (allowed, or documentation only).
        case allowed
    }

    /// A golden vector, `format#tcId`.
    public struct VectorRef: Hashable, Sendable, CustomStringConvertible {
        public var format: String
        public var tcId: Int
        public var description: String { "\(format)#\(tcId)" }
    }

    public struct Row: Sendable {
        public var number: Int
        /// The implementations that show it, as the `apps` column names them (`iOS`); nil in
        /// a table without that column, whose rows are all its one app's.
        public var apps: [String]?
        /// What the app does (the second column).
        public var app: String
        public var conforming: String
        /// The rule cell as written, and the requirement ids in it.
        public var ruleText: String
        public var rules: [String]
        public var kind: Kind
        public var mutants: [String]
        public var checks: [String]
        public var vectors: [VectorRef]
        /// Why nothing catches it: the last cell of an `unobservable` or `allowed` row.
        public var why: String?
    }

    public var dialect: DialectName
    public var rows: [Row]

    public static let columns = ["#", nil, "conforming node", "rule", "kind", "mutant", "caught by, or why not"]
    /// A dialect with several implementations names, after `#`, whose each row is.
    public static let appsColumn = "apps"

    /// The rows `profile` shows.
    public func rows(of profile: AppProfile) -> [Row] {
        rows.filter { $0.apps.map { $0.contains(profile.key) } ?? true }
    }

    /// The table in a dialect page's text.
    public static func parse(_ page: String, dialect: DialectName) throws(TableError) -> DifferencesTable {
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let heading = lines.firstIndex(where: { $0.hasPrefix("## ") && $0.contains("Differences from the") }) else {
            throw TableError(dialect: dialect, row: nil, problem: "no \"Differences from the app\" section")
        }
        guard let top = lines[heading...].firstIndex(where: { $0.hasPrefix("|") }) else {
            throw TableError(dialect: dialect, row: nil, problem: "its section has no table")
        }
        var header = cells(lines[top])
        let hasApps = header.count > 1 && header[1] == appsColumn
        if hasApps { header.remove(at: 1) }
        guard header.count == columns.count, zip(header, columns).allSatisfy({ $1 == nil || $0 == $1 }) else {
            throw TableError(dialect: dialect, row: nil, problem: "header is \(header), not \(columns.map { $0 ?? "(the app)" })")
        }
        let keys = AppProfile.all(of: dialect).map(\.key)
        var rows: [Row] = []
        for line in lines[(top + 2)...].prefix(while: { $0.hasPrefix("|") }) {
            var c = cells(line)
            var apps: [String]?
            if hasApps, c.count > 1 {
                apps = list(c.remove(at: 1))
                if let unknown = apps?.first(where: { !keys.contains($0) }) {
                    throw TableError(dialect: dialect, row: Int(c[0]), problem: "apps names \"\(unknown)\", not one of \(keys.joined(separator: ", "))")
                }
            }
            var r = try row(c, dialect: dialect)
            r.apps = apps
            rows.append(r)
        }
        return DifferencesTable(dialect: dialect, rows: rows)
    }

    /// Every dialect's table, from `docs/dialects/<dialect>.md` under `directory`.
    public static func loadAll(dialectPages directory: String) throws -> [DifferencesTable] {
        try DialectName.allCases.map { d in
            let path = (directory as NSString).appendingPathComponent("\(d.rawValue).md")
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw TableError(dialect: d, row: nil, problem: "cannot read \(path)")
            }
            return try parse(text, dialect: d)
        }
    }

    private static func cells(_ line: String) -> [String] {
        var text = Substring(line.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("|") { text = text.dropFirst() }
        if text.hasSuffix("|") { text = text.dropLast() }
        return text.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    private static func row(_ c: [String], dialect: DialectName) throws(TableError) -> Row {
        guard c.count == columns.count, let number = Int(c[0]) else {
            throw TableError(dialect: dialect, row: Int(c.first ?? ""), problem: "not a row of \(columns.count) cells with a number first: \(c)")
        }
        func fail(_ problem: String) -> TableError { TableError(dialect: dialect, row: number, problem: problem) }
        guard let kind = Kind(rawValue: c[4]) else {
            throw fail("kind \"\(c[4])\" is not one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let rules = list(c[3]).filter { $0.wholeMatch(of: /[A-Z]+-[WRG]\d+(\.\d+)*/) != nil }
        let mutants = c[5] == "-" ? [] : list(c[5]).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
        var checks: [String] = []
        var vectors: [VectorRef] = []
        var why: String?
        switch kind {
        case .behavioural, .policy, .wire:
            // `-`: nothing catches it yet (AppTableTests lists such rows).
            for token in list(c[6]) where token != "-" {
                if token.wholeMatch(of: /(RLY|DDP|ACK|FRG|RTE|BCN|ROB)\/B[VI]-\d\d/) != nil {
                    checks.append(token)
                } else if let m = token.wholeMatch(of: /([a-z]+\.[a-z0-9-]+)#(\d+)/), let id = Int(m.2) {
                    vectors.append(VectorRef(format: String(m.1), tcId: id))
                } else {
                    throw fail("\"\(token)\" is neither a check id (DDP/BV-01) nor a vector (relay.packet#12)")
                }
            }
        case .unobservable, .allowed:
            guard c[5] == "-" else { throw fail("an \(kind.rawValue) row has no mutant: write -") }
            why = c[6]
        }
        return Row(number: number, apps: nil, app: c[1], conforming: c[2], ruleText: c[3], rules: rules, kind: kind,
                   mutants: mutants, checks: checks, vectors: vectors, why: why)
    }

    private static func list(_ cell: String) -> [String] {
        cell.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether a check verifying `checkRules` verifies the row's rule: the same id, or one a
    /// sub-rule of the other (`RELAY-R8` and `RELAY-R8.2`).
    public static func matches(_ checkRules: [String], rowRules: [String]) -> Bool {
        checkRules.contains { c in
            rowRules.contains { r in c == r || c.hasPrefix(r + ".") || r.hasPrefix(c + ".") }
        }
    }
}

public struct TableError: Error, CustomStringConvertible, Sendable {
    public var dialect: DialectName
    public var row: Int?
    public var problem: String
    public var description: String {
        "docs/dialects/\(dialect.rawValue).md, differences table\(row.map { " row \($0)" } ?? ""): \(problem)"
    }
}
