import ArgumentParser
import Conformance
import Foundation
import MeshNode
import MeshWire

/// `meshconform list`: the check catalog, as text, JSON, or the markdown of docs/checks.md.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the conformance checks (and the reference node's mutants).")

    @Option(help: "Only the checks of this dialect.")
    var dialect: String?

    @Flag(help: "Print JSON (checks: id, purpose, dialects, needs, rules; mutants: name, summary, dialects, positiveControl).")
    var json = false

    @Flag(help: "Print docs/checks.md (runs every check against every mutant to fill the mutant column).")
    var markdown = false

    @Flag(help: "List the reference node's named mutants instead.")
    var mutants = false

    func run() throws {
        let dialect = try self.dialect.map(parseDialect)
        let checks = Catalog.all.filter { dialect == nil || $0.dialects.contains(dialect!) }
        if mutants {
            // With --dialect, only the mutants its reference node carries (elsewhere a mutant is
            // the reference node itself); JSON adds each one's dialects, for scripts (ci/seeds).
            let faults = Fault.allCases.filter { dialect == nil || $0.dialects.contains(dialect!) || $0.isPositiveControl }
            if json {
                print(JSONWriter.string(.array(faults.map { f in
                    .object([("name", .string(f.rawValue)), ("summary", .string(f.summary)),
                             ("dialects", .array(DialectName.allCases.filter(f.dialects.contains).map { .string($0.rawValue) })),
                             ("positiveControl", .bool(f.isPositiveControl))])
                }), options: .human))
            } else {
                for fault in faults { print("\(fault.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0)) \(fault.summary)") }
            }
        } else if markdown {
            print(CatalogDocument.markdown(checks), terminator: "")
        } else if json {
            let value = JSONValue.array(checks.map { c in
                .object([
                    ("id", .string(c.id)), ("purpose", .string(c.purpose)),
                    ("dialects", .array(DialectName.allCases.filter(c.dialects.contains).map { .string($0.rawValue) })),
                    ("needs", .array(c.needs.map { .string($0.description) })),
                    ("rules", .array(c.rules.map { .string($0) })),
                ])
            })
            print(JSONWriter.string(value, options: .human))
        } else {
            // The dialect column as wide as its longest entry: padding(toLength:) also cuts.
            let columns = checks.map { DialectName.allCases.filter($0.dialects.contains).map(\.rawValue).joined(separator: ",") }
            let width = max(14, columns.map(\.count).max() ?? 0)
            for (c, dialects) in zip(checks, columns) {
                print("\(c.id.padding(toLength: 11, withPad: " ", startingAt: 0)) \(dialects.padding(toLength: width, withPad: " ", startingAt: 0)) \(c.purpose)")
            }
        }
    }
}
