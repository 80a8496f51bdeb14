import MeshNode

/// Which named mutants of the reference node fail a check: the proof that the check can
/// fail, and the table in docs/checks.md.
public enum MutantTable {
    public static func mutants(failing check: Check, dialect: DialectName, seed: UInt64 = 1) -> [Fault] {
        // A fault its dialect's node does not carry is the reference node itself: skip it.
        Fault.allCases.filter { $0.dialects.contains(dialect) }.filter { fault in
            let runner = Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver(faults: [fault]), seed: seed)
            return runner.run(check).verdict == .fail
        }
    }
}
