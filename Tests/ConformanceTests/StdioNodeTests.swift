import Conformance
import Foundation
import MeshNode
import Testing

/// `meshconform stdio-dut`: the built-in node, and its mutants, as process DUTs through the
/// process driver (docs/stdio-dut.md), on the wall clock: the reference node passes, chatty (a
/// DUT that talks on its own, as every bitchat node announces on link-up) passes the same
/// checks, and a real mutant still fails.
@Suite("process driver: meshconform stdio-dut", .serialized)
struct StdioNodeTests {
    /// The meshconform binary of this build, next to the test bundle.
    static let meshconform: String = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("meshconform").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return Repository.root.appendingPathComponent(".build/debug/meshconform").path
    }()

    static func run(_ dialect: DialectName, _ ids: [String], mutant: String? = nil, linkMaxUnit: Bool = false) throws -> [CheckResult] {
        var capabilities = Capabilities.process(dialect)
        capabilities.upperTester = true
        capabilities.linkMaxUnit = linkMaxUnit
        let command = "'\(meshconform)' stdio-dut" + (mutant.map { " --mutant \($0)" } ?? "")
        let checks = ids.map { id in Catalog.all.first { $0.id == id }! }
        return try Runner(capabilities: capabilities, driver: ProcessDriver(command: command)).run(checks)
    }

    /// A relay check and a de-duplication check of every dialect, and the checks that judge
    /// what the DUT sends on a link (the bitchat fragment check that counted a link-up
    /// announce as a relay), against the node and against chatty.
    static let cases: [(DialectName, [String])] = [
        (.relay, ["RLY/BV-01", "DDP/BV-01", "DDP/BV-04", "ACK/BV-05", "ROB/BI-03"]),
        (.blemesh, ["RLY/BV-01", "DDP/BV-01", "RTE/BV-03", "RTE/BV-04"]),
        (.bitchat, ["RLY/BV-01", "DDP/BV-01", "FRG/BV-05", "DDP/BV-12"]),
        (.simple, ["RLY/BV-01", "DDP/BV-01"]),
        (.camp, ["RLY/BV-30", "DDP/BV-01", "ACK/BV-32"]),
        (.peat, ["RLY/BV-01", "DDP/BV-01", "BCN/BV-20"]),
    ]

    /// The verdicts are the virtual radio's (PASS, or NA where the dialect lacks what the check needs).
    @Test(arguments: cases)
    func theNodeAndChattyPass(_ dialect: DialectName, _ ids: [String]) throws {
        let checks = ids.map { id in Catalog.all.first { $0.id == id }! }
        let virtual = try Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver()).run(checks)
        #expect(virtual.contains { $0.verdict == .pass })
        for mutant in [nil, "chatty"] {
            let results = try Self.run(dialect, ids, mutant: mutant)
            for (r, v) in zip(results, virtual) {
                #expect(r.verdict == v.verdict, "\(dialect) \(mutant ?? "reference") \(r.id): \(r.verdict) \(r.reason ?? "") seen: \(r.seen ?? "")\n\(r.evidence.suffix(20).map(\.line).joined(separator: "\n"))")
            }
        }
    }

    /// `maxUnit` in `link-up` (docs/stdio-dut.md): the node fits its chunks on the small link
    /// of FRG/BV-08, the app's behaviour (chunks-ignore-mtu) FAILs it, and a DUT that does not
    /// declare it takes `maxUnit` is NA.
    @Test func aLinksUnitLimitReachesTheProcess() throws {
        let pass = try Self.run(.blemesh, ["FRG/BV-08"], linkMaxUnit: true).first
        #expect(pass?.verdict == .pass, "\(pass?.verdict as Any) \(pass?.reason ?? "")")
        let fail = try Self.run(.blemesh, ["FRG/BV-08"], mutant: "chunks-ignore-mtu", linkMaxUnit: true).first
        #expect(fail?.verdict == .fail && fail?.reason?.contains("BLEMESH-G3") == true, "\(fail?.verdict as Any) \(fail?.reason ?? "")")
        let na = try Self.run(.blemesh, ["FRG/BV-08"]).first
        #expect(na?.verdict == .notApplicable && na?.reason?.contains("linkMaxUnit") == true, "\(na?.verdict as Any) \(na?.reason ?? "")")
    }

    @Test func aMutantStillFails() throws {
        let results = try Self.run(.bitchat, ["DDP/BV-01"], mutant: "no-dedup")
        #expect(results.first?.verdict == .fail, "\(results.first?.verdict as Any) \(results.first?.reason ?? "")")
    }
}
