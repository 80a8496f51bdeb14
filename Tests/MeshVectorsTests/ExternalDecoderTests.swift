import Foundation
import MeshVectors
import MeshWire
import Testing

/// The external decoder is an untrusted program: whatever it does, each vector gets a verdict
/// within the deadline and the run goes on.
@Suite("external decoder driver")
struct ExternalDecoderTests {
    static let vector = Repository.files.first { $0.format == "relay.ack" }!.tests.first { $0.result == .valid }!

    @Test("a misbehaving decoder yields a failed verdict, never a hang", arguments: [
        ("sleep 30", "no answer"),
        ("exit 0", "exited"),
        ("echo not-json; sleep 30", "not a JSON object"),
        ("echo '{\"foo\":1}'; sleep 30", "none of decoded"),
        ("cat /dev/zero", "over"),
        ("head -c 100000 /dev/zero; sleep 30", "no answer"),
    ])
    func hostile(command: String, reason: String) {
        let decoder = ExternalDecoder(command: command, timeout: .milliseconds(700))
        let start = ContinuousClock.now
        let outcome = VectorCheck().judge(Self.vector, decoder.answer(Self.vector))
        #expect(ContinuousClock.now - start < .seconds(5))
        guard case .failed(let why) = outcome else { Issue.record("\(command): \(outcome)"); return }
        #expect(why.contains(reason), "\(command): \(why)")
    }

    @Test func restartsAfterACrashAndGoesOn() {
        // Dies after its first answer; the second vector gets a fresh process.
        let decoder = ExternalDecoder(command: "read l; echo '{\"error\":\"truncated\"}'", timeout: .seconds(2))
        for _ in 0..<3 {
            guard case .refused(let code) = decoder.answer(Self.vector) else { Issue.record("no answer after restart"); return }
            #expect(code == "truncated")
        }
    }

    @Test func judgesAnswersByResult() {
        let check = VectorCheck()
        #expect(check.judge(Self.vector, .decoded(Self.vector.decoded!)).isFailure == false)
        #expect(check.judge(Self.vector, .refused(code: "truncated")).isFailure)
        #expect(check.judge(Self.vector, .decoded(.object([("seq", .string("1"))]))).isFailure)
        let invalid = Repository.allVectors.first { $0.result == .invalid }!
        #expect(check.judge(invalid, .refused(code: invalid.error!)).isFailure == false)
        #expect(check.judge(invalid, .refused(code: "someOtherCode")).isFailure)
        #expect(VectorCheck(ignoreErrorCodes: true).judge(invalid, .refused(code: "someOtherCode")).isFailure == false)
        #expect(check.judge(invalid, .decoded(.null)).isFailure)
        if case .skipped = check.judge(invalid, .unsupported) {} else { Issue.record("unsupported must be skipped") }
    }
}
