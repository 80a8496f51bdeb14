import Foundation
import MeshFuzz

/// Saves findings so that a kill at any moment leaves whole folders: each folder is written
/// under a temporary name (every file fsynced) and renamed into place. Layout:
/// `<root>/<dialect>/<name>/finding.json` plus `input-000.bin`, `input-001.bin` ... in order.
struct FindingStore {
    let root: String

    /// The folder of a finding named `name` (a signature hash, or `unminimised-<hash>`).
    func folder(dialect: String, name: String) -> String { "\(root)/\(dialect)/\(name)" }

    /// Writes the folder `name` with `inputs` and `finding`, replacing one of the same name.
    @discardableResult
    func save(_ inputs: [[UInt8]], _ finding: OTAFinding, name: String) throws(FuzzStopped) -> String {
        let parent = "\(root)/\(finding.dialect)"
        let final = "\(parent)/\(name)"
        let temporary = "\(parent)/.\(name).\(getpid()).tmp"
        var record = finding
        record.path = final
        do {
            try CorpusStore.makeDirectories(parent)
            try? FileManager.default.removeItem(atPath: temporary)
            try CorpusStore.makeDirectories(temporary)
            for (i, input) in inputs.enumerated() {
                try CorpusStore.atomicWrite(input, to: "\(temporary)/\(Self.inputName(i))")
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

    /// Reads a saved finding's inputs back, in order.
    static func inputs(in folder: String) -> [[UInt8]] {
        var inputs: [[UInt8]] = []
        while let bytes = CorpusStore.readFile("\(folder)/\(inputName(inputs.count))") { inputs.append(bytes) }
        return inputs
    }

    static func inputName(_ index: Int) -> String {
        let digits = String(index)
        return "input-\(String(repeating: "0", count: max(0, 3 - digits.count)))\(digits).bin"
    }
}
