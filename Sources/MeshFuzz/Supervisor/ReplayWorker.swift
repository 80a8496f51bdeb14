import ChildProcess
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A worker in replay mode, for minimising: runs one input at a time and says what happened.
/// Restarted after every death, so each trial that crashes runs in a fresh process.
final class ReplayWorker {
    enum Result: Equatable {
        case returned(feature: UInt64, failure: OracleFailure.Kind?)
        case died(StackSignature)
    }

    let command: String
    let timeout: Duration
    private var process: ChildProcess?

    init(command: String, timeout: Duration) {
        self.command = command
        self.timeout = timeout
    }

    deinit { _ = process?.terminate(grace: .milliseconds(100)) }

    func run(_ input: [UInt8]) -> Result {
        do {
            let child = try process ?? ChildProcess(command: command, stderr: .capture(tailBytes: 32 << 10))
            process = child
            try child.write(Array((hexString(input) + "\n").utf8), until: .now + .seconds(5))
            if let line = try child.nextLine(until: .now + timeout) {
                let words = String(decoding: line.bytes, as: UTF8.self).split(separator: " ")
                if words.count == 3, words[0] == "ok", let feature = UInt64(words[1]) {
                    return .returned(feature: feature, failure: OracleFailure.Kind(rawValue: String(words[2])))
                }
            } else {
                // No answer in time: a hang.
                _ = child.kill()
                process = nil
                return .died(.hang)
            }
        } catch {}
        guard let child = process else { return .died(StackSignature(kind: .crash, message: "replay worker did not start", frames: [])) }
        process = nil
        return .died(Supervisor.signature(of: child, kind: .crash).quick)
    }

    private func hexString(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    func restart() {
        _ = process?.terminate(grace: .milliseconds(100))
        process = nil
    }
}
