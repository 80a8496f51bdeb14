import Foundation
import MeshFuzz

/// Saves findings so that a kill at any moment leaves whole folders: each folder is written
/// under a temporary name (every file fsynced) and renamed into place. Layout:
/// `<root>/<dialect>/<name>/finding.json` plus one file per step in order: `input-000.bin`
/// (an input tester 1 writes), `input-001-T2.bin` (one tester 2 writes), `input-002-relink-T1`
/// (empty: tester 1's link dropped and brought up again).
struct FindingStore {
    let root: String

    /// The folder of a finding named `name` (a signature hash, or `unminimised-<hash>`).
    func folder(dialect: String, name: String) -> String { "\(root)/\(dialect)/\(name)" }

    /// Writes the folder `name` with `inputs` and `finding`, replacing one of the same name.
    @discardableResult
    func save(_ steps: [OTAStep], _ finding: OTAFinding, name: String) throws(FuzzStopped) -> String {
        let parent = "\(root)/\(finding.dialect)"
        let final = "\(parent)/\(name)"
        let temporary = "\(parent)/.\(name).\(getpid()).tmp"
        var record = finding
        record.path = final
        do {
            try CorpusStore.makeDirectories(parent)
            try? FileManager.default.removeItem(atPath: temporary)
            try CorpusStore.makeDirectories(temporary)
            for (i, step) in steps.enumerated() {
                try CorpusStore.atomicWrite(step.bytes ?? [], to: "\(temporary)/\(Self.fileName(i, step))")
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try CorpusStore.atomicWrite(Array(try encoder.encode(record)) + [0x0a], to: "\(temporary)/finding.json")
        } catch {
            throw FuzzStopped("cannot save a finding under \(parent): \(error) (check --findings)")
        }
        // rename(2) does not replace a non-empty folder: move the old one aside first.
        let aside = "\(parent)/.\(name).\(getpid()).old"
        let replacing = FileManager.default.fileExists(atPath: final)
        if replacing, rename(final, aside) != 0 {
            throw FuzzStopped("cannot replace \(final): \(String(cString: strerror(errno)))")
        }
        guard rename(temporary, final) == 0 else {
            throw FuzzStopped("cannot rename \(temporary) to \(final): \(String(cString: strerror(errno)))")
        }
        if replacing { try? FileManager.default.removeItem(atPath: aside) }
        return final
    }

    func remove(dialect: String, name: String) {
        try? FileManager.default.removeItem(atPath: folder(dialect: dialect, name: name))
    }

    /// Reads a saved finding's steps back, in order.
    static func steps(in folder: String) -> [OTAStep] {
        var steps: [OTAStep] = []
        while true {
            let i = steps.count
            if let bytes = CorpusStore.readFile("\(folder)/\(fileName(i, .input([])))") {
                steps.append(.input(bytes))
            } else if let bytes = CorpusStore.readFile("\(folder)/\(fileName(i, .input([], tester: 2)))") {
                steps.append(.input(bytes, tester: 2))
            } else if let tester = [1, 2].first(where: { CorpusStore.readFile("\(folder)/\(fileName(i, .relink(tester: $0)))") != nil }) {
                steps.append(.relink(tester: tester))
            } else {
                return steps
            }
        }
    }

    static func fileName(_ index: Int, _ step: OTAStep) -> String {
        let digits = String(index)
        let number = "input-\(String(repeating: "0", count: max(0, 3 - digits.count)))\(digits)"
        switch step {
        case .input(_, 1): return number + ".bin"
        case .input(_, let tester): return number + "-T\(tester).bin"
        case .relink(let tester): return number + "-relink-T\(tester)"
        }
    }
}
