import Conformance
import Foundation
import MeshNode
import Testing

/// The app as upper tester by hand (`--prompt`, `--prompt-answers`): checks that need the app
/// are decided from the operator's answers, never guessed. The reference node on the virtual
/// radio is the device; the scripted answers stand in for the person looking at it.
@Suite struct OperatorPromptTests {
    static func check(_ id: String) -> Check { Catalog.all.first { $0.id == id }! }

    static func run(_ id: String, _ dialect: DialectName, answers: String) throws -> (CheckResult, ScriptedOperator) {
        let script = try ScriptedOperator(jsonLines: answers)
        var runner = Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver())
        runner.upperTester = script
        return (runner.run(check(id)), script)
    }

    @Test(arguments: [DialectName.relay, .blemesh])
    func aDeliveryShownOnceIsAPass(_ dialect: DialectName) throws {
        let (result, script) = try Self.run("DDP/BV-05", dialect, answers: #"{"check": "DDP/BV-05", "kind": "delivery", "answer": "y"}"#)
        #expect(result.verdict == .pass, "\(result.reason ?? "")")
        // The operator was asked about the message the testers sent, by its text.
        #expect(script.asked.count == 1)
        guard case .delivery(let text, _)? = script.asked.first?.prompt else { Issue.record("no delivery prompt"); return }
        #expect(!text.isEmpty)
        #expect(result.evidence.contains { $0.summary.hasPrefix("operator: does the device show") })
    }

    @Test func aDeliveryNotShownIsAFailSayingSo() throws {
        let (result, _) = try Self.run("DDP/BV-05", .blemesh, answers: #"{"kind": "delivery", "answer": "n"}"#)
        #expect(result.verdict == .fail)
        #expect(result.reason == "the message was never delivered")
    }

    @Test func aDeliveryShownTwiceIsAFailSayingSo() throws {
        let (result, _) = try Self.run("DDP/BV-05", .relay, answers: #"{"answer": 2}"#)
        #expect(result.verdict == .fail)
        #expect(result.reason == "delivered more than once")
    }

    @Test func noAnswerIsInconclusive() throws {
        let (unanswered, _) = try Self.run("DDP/BV-05", .relay, answers: #"{"check": "DDP/BV-05", "answer": "none"}"#)
        #expect(unanswered.verdict == .inconclusive)
        #expect(unanswered.reason?.contains("no answer from the operator") == true)
        // A script with no line for the check: the same.
        let (unscripted, _) = try Self.run("DDP/BV-05", .relay, answers: #"{"check": "ACK/*", "answer": "y"}"#)
        #expect(unscripted.verdict == .inconclusive)
        #expect(unscripted.reason?.contains("no scripted answer for DDP/BV-05 delivery") == true)
    }

    /// A send the operator cannot make is INCONC; one they say they made but the device never
    /// put on the air is the device's FAIL.
    @Test func sendsAreAskedForAndJudgedOnTheAir() throws {
        let (refused, script) = try Self.run("ACK/BV-05", .relay, answers: #"{"kind": "send", "answer": "n"}"#)
        #expect(refused.verdict == .inconclusive)
        guard case .send(let text, let to)? = script.asked.first?.prompt else { Issue.record("no send prompt"); return }
        #expect(text == "meshconform ack probe")
        #expect(to != nil)
        // The virtual node's app is not driven by the prompt, so nothing goes out: FAIL.
        let (claimed, _) = try Self.run("ACK/BV-05", .relay, answers: #"{"kind": "send", "answer": "y"}"#)
        #expect(claimed.verdict == .fail)
        #expect(claimed.reason == "the DUT did not send the message the upper tester asked for")
    }

    @Test func scriptLinesAnswerOnceInOrderAndBadLinesAreRejected() throws {
        let script = try ScriptedOperator(jsonLines: """
            # comments and blank lines are skipped

            {"check": "DDP/*", "kind": "delivery", "answer": "n"}
            {"check": "DDP/BV-05", "answer": "yes"}
            """)
        #expect(script.ask(.delivery(text: "x", from: "a"), check: "DDP/BV-05") == .no)
        #expect(script.ask(.delivery(text: "x", from: "a"), check: "DDP/BV-05") == .yes)
        #expect(script.ask(.delivery(text: "x", from: "a"), check: "DDP/BV-05") == .none(reason: "no scripted answer for DDP/BV-05 delivery"))
        #expect(throws: ScriptedOperator.LoadError.self) { try ScriptedOperator(jsonLines: #"{"kind": "display", "answer": "y"}"#) }
        #expect(throws: ScriptedOperator.LoadError.self) { try ScriptedOperator(jsonLines: #"{"answer": "maybe"}"#) }
        #expect(throws: ScriptedOperator.LoadError.self) { try ScriptedOperator(jsonLines: "not json") }
    }

    /// The terminal dialog: an answer typed in time, an unparsable one asked again, and
    /// silence until the timeout (INCONC), all on a pipe.
    @Test func theTerminalDialogReadsALineAndTimesOut() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var shown = ""
        let terminal = TerminalOperator(timeout: .milliseconds(300), input: fds[0]) { shown += $0 }
        let typed = Array("maybe\ny\n".utf8)
        #expect(typed.withUnsafeBytes { write(fds[1], $0.baseAddress, typed.count) } == typed.count)
        #expect(terminal.ask(.acknowledgement(text: "hi"), check: "ACK/BV-05") == .yes)
        #expect(shown.contains("ACK/BV-05: does the device show the message it sent, \u{201C}hi\u{201D}, as delivered?"))
        #expect(shown.contains("not understood ('maybe')"))
        let start = ContinuousClock.now
        guard case .none(let reason) = terminal.ask(.send(text: "hi", to: nil), check: "X") else { Issue.record("answered"); return }
        #expect(reason.contains("no answer within"))
        #expect(ContinuousClock.now - start < .seconds(3))
    }
}
