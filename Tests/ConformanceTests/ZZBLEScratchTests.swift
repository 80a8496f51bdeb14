import Conformance
import Foundation
import MeshNode
import Testing

// Temporary (blemesh engineer's dev loop): prints the blemesh mutant table. Removed before hand-off.
@Suite struct ZZBLEScratchTests {
    @Test func blemeshMutantTable() {
        let pattern = ProcessInfo.processInfo.environment["BLE_CHECKS"]
        for check in Runner.select(Catalog.all, dialect: .blemesh, pattern: pattern) {
            let start = Date()
            let failing = MutantTable.mutants(failing: check, dialect: .blemesh)
            print("MUT \(check.id): \(failing.map(\.rawValue).joined(separator: " ")) [\(String(format: "%.1f", Date().timeIntervalSince(start)))s]")
        }
    }

    @Test func timing() {
        guard let id = ProcessInfo.processInfo.environment["BLE_TIME"] else { return }
        let mutant = ProcessInfo.processInfo.environment["BLE_MUTANT"].flatMap(Fault.init(rawValue:))
        for d in DialectName.allCases {
            let check = Catalog.all.first { $0.id == id }!
            let start = Date()
            let r = Runner(capabilities: .referenceNode(d), driver: VirtualDriver(faults: mutant.map { [$0] } ?? [])).run(check)
            print("TIME \(d) \(id): \(r.verdict) \(String(format: "%.2f", Date().timeIntervalSince(start)))s evidence \(r.evidence.count) \(r.reason ?? "")")
            if ProcessInfo.processInfo.environment["BLE_EVIDENCE"] != nil { print(r.evidence.map(\.line).joined(separator: "\n")) }
        }
    }
}
