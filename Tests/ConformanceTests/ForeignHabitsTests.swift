import Conformance
import Foundation
import MeshNode
import Testing

/// The bitchat catalog against a node in another language, written from the page alone
/// (examples/bitchat-dut.py), given the habits third-party nodes were found with: each run gets
/// exactly the verdicts its habits earn, and no check calls the rest of the node broken.
@Suite struct ForeignHabitsTests {
    static func run(_ habits: [String], slackMs: Int = 0) throws -> [CheckResult] {
        var caps = try Capabilities.load(DUTPrograms.root.appendingPathComponent("examples/bitchat-dut.capabilities.json").path)
        caps.timingSlackMs = slackMs
        let command = "'\(DUTPrograms.python)' '\(DUTPrograms.root.appendingPathComponent("examples/bitchat-dut.py").path)' "
            + habits.map { "--habit \($0)" }.joined(separator: " ")
        let runner = Runner(capabilities: caps, driver: ProcessDriver(command: command, clock: caps.clock))
        return try runner.run(Runner.select(Catalog.all, dialect: .bitchat))
    }

    static func fails(_ results: [CheckResult]) -> [String: CheckResult] {
        Dictionary(uniqueKeysWithValues: results.filter { $0.verdict == .fail }.map { ($0.id, $0) })
    }

    static func undecided(_ results: [CheckResult]) -> [String] {
        results.filter { $0.verdict == .inconclusive || $0.verdict == .error }.map { "\($0.id): \($0.reason ?? "")" }
    }

    @Test func withoutHabitsEveryApplicableCheckPasses() throws {
        let results = try Self.run([])
        #expect(results.allSatisfy { $0.verdict == .pass || $0.verdict == .notApplicable }, "\(results.filter { $0.verdict != .pass }.map { "\($0.id) \($0.verdict): \($0.reason ?? "")" })")
    }

    /// Relays padded at random and notified to every subscriber: the copy back on the ingress
    /// FAILs where-rules, the content checks FAIL BITCHAT-W7 with the bytes, and the checks
    /// about whether it relays see its relays by their bytes (none INCONC, none "stopped").
    @Test func randomPaddingAndNotifyAll() throws {
        let results = try Self.run(["random-padding", "notify-all"])
        let failed = Self.fails(results)
        #expect(Set(failed.keys) == ["RLY/BV-01", "RLY/BV-03", "RLY/BV-17", "RLY/BV-18", "RLY/BV-24", "FRG/BV-05"], "\(failed.keys.sorted())")
        for id in ["RLY/BV-17", "RLY/BV-18", "FRG/BV-05"] {
            #expect(failed[id]?.failedRule == "BITCHAT-W7" && failed[id]?.seen?.contains("relayed (undecodable: trailingBytes)") == true,
                    "\(id): \(failed[id]?.reason ?? "")")
        }
        #expect(failed["RLY/BV-03"]?.reason?.hasPrefix("relayed back on the link it came from") == true)
        #expect(Self.undecided(results).isEmpty, "\(Self.undecided(results))")
    }

    /// Relaying at once is bitchat Android's policy (bitchat.md section 7 row 16): inside the
    /// 0-220 ms envelope, so nothing FAILs, whatever slack is declared.
    @Test(arguments: [0, 50])
    func noJitter(_ slack: Int) throws {
        let results = try Self.run(["no-jitter"], slackMs: slack)
        #expect(Self.fails(results).isEmpty, "\(Self.fails(results).mapValues { $0.reason ?? "" })")
        #expect(Self.undecided(results).isEmpty, "\(Self.undecided(results))")
    }

    /// Everything 600 ms late: each FAIL names the timing rule (RLY/BV-02's own, or the review's
    /// late answer); what the late relays hide from a check's window is INCONC, never a FAIL of
    /// another rule.
    @Test func late() throws {
        let results = try Self.run(["late"])
        let failed = Self.fails(results)
        #expect(!failed.isEmpty)
        for (id, r) in failed {
            // RLY/BV-02 judges the window itself; every other FAIL is the review's late answer.
            let timing = id == "RLY/BV-02" ? r.reason?.contains("outside the jitter window") == true
                : r.finding == .lateAnswer && r.failedRule == "BITCHAT-R6.4"
            #expect(timing, "\(id): \(r.finding.map(\.rawValue) ?? "-") \(r.reason ?? "")")
        }
    }
}
