import Foundation
import MeshFuzz
import PlantedBugs
import Testing

/// The proof that the in-process engine finds bugs: each planted decoder is fuzzed by the
/// supervisor with worker processes, as `meshconform fuzz` does, and the bug must be found,
/// classified, minimised and saved within a stated budget of executions.
@Suite("planted bugs", .serialized)
struct PlantedBugTests {
    static let cases: [(target: String, kind: OracleFailure.Kind, budget: Int, minimisedAtMost: Int)] = [
        ("planted.length-trap", .crash, 300_000, 6),
        ("planted.marker-hang", .hang, 100_000, 8),
        ("planted.length-allocation", .allocation, 100_000, 5),
    ]

    @Test("found within its budget", arguments: cases.indices)
    func found(_ index: Int) throws {
        let c = Self.cases[index]
        let root = Paths.temporaryDirectory()
        let corpus = try CorpusStore(directory: "\(root)/\(c.target)")
        for seed in PlantedBugs.seeds[c.target] ?? [] { try corpus.add(seed) }
        var configuration = Supervisor.Configuration(workerCommand: "'\(Paths.product("planted-bugs"))' fuzz-worker", targets: [c.target], corpusRoot: root)
        configuration.runs = c.budget
        configuration.maxTime = .seconds(90)
        configuration.inputTimeout = .milliseconds(300)
        configuration.memoryMB = 512
        configuration.minimiseBudget = 150
        configuration.stopOnFinding = true
        let summary = try Supervisor(configuration).run()
        let finding = try #require(summary.findings.first, "no finding in \(summary.executions) executions")
        #expect(finding.kind == c.kind, "\(finding.signature)")
        #expect(summary.findings.count == 1, "one bug, one signature: \(summary.findings.map(\.signature))")
        #expect(finding.input.count / 2 <= c.minimisedAtMost, "minimised to \(finding.input)")
        // Saved where swift test and later campaigns find it, and it still does it.
        #expect(FileManager.default.fileExists(atPath: finding.regressionPath))
        #expect(FileManager.default.fileExists(atPath: finding.rawPath))
        #expect(summary.targets[0].executions <= c.budget + 256 * (summary.targets[0].workerRestarts + 1))
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A worker that dies outside the target (here a trap injected into the engine before its
    /// 300th execution) leaves an innocent input in its slot: replayed alone it does not crash,
    /// so it is reported as not reproduced, not as a finding, and the campaign goes on.
    @Test("a crash its input does not reproduce is no finding")
    func engineFaultIsNotAFinding() throws {
        let target = "planted.checksum-seek"   // not found in a few thousand executions without comparisons
        let root = Paths.temporaryDirectory()
        let corpus = try CorpusStore(directory: "\(root)/\(target)")
        for seed in PlantedBugs.seeds[target] ?? [] { try corpus.add(seed) }
        let worker = "env MESHCONFORM_ENGINE_FAULT_AFTER=300 MESHCONFORM_CMP_FEEDBACK=0 '\(Paths.product("planted-bugs"))' fuzz-worker"
        var configuration = Supervisor.Configuration(workerCommand: worker, targets: [target], corpusRoot: root)
        configuration.runs = 1_000
        configuration.maxTime = .seconds(90)
        configuration.stopOnFinding = true
        let summary = try Supervisor(configuration).run()
        #expect(summary.findings.isEmpty, "\(summary.findings.map(\.signature))")
        #expect(summary.exitStatus == 0)
        let fault = try #require(summary.unreproduced.first, "\(summary.text)")
        #expect(summary.unreproduced.count == 1 && fault.duplicates >= 1, "one signature, met by every restarted worker: \(summary.text)")
        #expect("\(fault.signature) \(fault.detail)".contains("injected engine fault"), "\(fault.signature) \(fault.detail)")
        #expect(summary.targets[0].workerRestarts >= 2 && summary.executions >= 900, "\(summary.text)")
        #expect(summary.text.contains("NOT REPRODUCED crash in \(target)"))
        try? FileManager.default.removeItem(atPath: root)
    }
}
