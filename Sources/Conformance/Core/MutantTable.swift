import Foundation
import MeshNode
import Synchronization

/// Which named mutants of the reference node fail a check: the proof that the check can
/// fail, and the table in docs/checks.md.
public enum MutantTable {
    /// For each check and each dialect it applies to, the mutants that FAIL it. Every run is
    /// independent (its own node and session), so they run on all cores at once, on Dispatch's
    /// threads: a caller on Swift concurrency's small pool (a test) does not starve it.
    public static func table(_ catalog: [Check], seed: UInt64 = 1) -> [String: [DialectName: [Fault]]] {
        let runs = catalog.flatMap { check in
            DialectName.allCases.filter(check.dialects.contains).flatMap { d in applicable(to: d).map { (check, d, $0) } }
        }
        let failed = Mutex([Bool](repeating: false, count: runs.count))
        DispatchQueue.concurrentPerform(iterations: runs.count) { i in
            let verdict = fails(runs[i].0, runs[i].1, runs[i].2, seed: seed)
            failed.withLock { $0[i] = verdict }
        }
        var table: [String: [DialectName: [Fault]]] = [:]
        let verdicts = failed.withLock { $0 }
        for check in catalog {
            for d in DialectName.allCases where check.dialects.contains(d) { table[check.id, default: [:]][d] = [] }
        }
        // `runs` lists each check's and dialect's faults in `Fault.allCases` order, as `mutants` does.
        for (run, fail) in zip(runs, verdicts) where fail { table[run.0.id]![run.1]!.append(run.2) }
        return table
    }

    /// A fault its dialect's node does not carry is the reference node itself: skipped.
    private static func applicable(to dialect: DialectName) -> [Fault] {
        Fault.allCases.filter { $0.dialects.contains(dialect) }
    }

    private static func fails(_ check: Check, _ dialect: DialectName, _ fault: Fault, seed: UInt64) -> Bool {
        let runner = Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver(faults: [fault]), seed: seed)
        return runner.run(check).verdict == .fail
    }
}
