import Foundation

/// The person at the bench, asked on the terminal (`meshconform run --prompt`): each prompt is
/// printed as an MMI-style dialog and one line is read from standard input, within `timeout`.
/// No answer in time (or standard input closed) is `none`: the check is INCONC.
public final class TerminalOperator: UpperTesterOperator {
    let timeout: Duration
    let input: Int32
    let write: (String) -> Void
    private var pending: [UInt8] = []

    public init(timeout: Duration, input: Int32 = 0, write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.timeout = timeout
        self.input = input
        self.write = write
    }

    public func ask(_ prompt: OperatorPrompt, check: String) -> OperatorAnswer {
        let deadline = ContinuousClock.now + timeout
        write("\n[operator] \(check): \(prompt)\n[operator] answer within \(timeout) (Enter after it): ")
        while ContinuousClock.now < deadline {
            guard let line = readLine(until: deadline) else { break }
            if let answer = OperatorAnswer(text: line) {
                if case .count = answer, prompt.kind != "delivery" {
                    write("[operator] y or n, please: ")
                    continue
                }
                return answer
            }
            write("[operator] not understood ('\(line)'); y, n\(prompt.kind == "delivery" ? " or a number" : ""): ")
        }
        write("\n")
        return .none(reason: closed ? "standard input is closed" : "no answer within \(timeout)")
    }

    private var closed = false

    /// One line from `input`, or nil at the deadline or end of input. Bounded: a line longer
    /// than 1 KiB is cut there.
    private func readLine(until deadline: ContinuousClock.Instant) -> String? {
        while !closed {
            if let nl = pending.firstIndex(of: 0x0A) ?? (pending.count >= 1024 ? pending.count - 1 : nil) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                return line
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var fd = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ms = Int32(min(Int64(left.components.seconds) * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            guard poll(&fd, 1, ms) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = read(input, &buffer, buffer.count)
            if n <= 0 { closed = true; break }
            pending += buffer[..<n]
        }
        return nil
    }
}

/// The operator's answers from a file, so tests and CI exercise the prompt path
/// (`meshconform run --prompt-answers FILE`). One JSON object per line:
/// `{"check": "DDP/BV-05", "kind": "delivery", "answer": "y"}`; `check` is a glob over check
/// ids (default `*`), `kind` one of `send`, `delivery`, `acknowledgement` (default: any),
/// `answer` `y`, `n`, a count, or `none` (no answer: INCONC). Each line answers once, the first
/// unused one that matches; a prompt no line matches gets no answer.
public final class ScriptedOperator: UpperTesterOperator {
    public struct Line: Hashable, Sendable {
        public var check: String
        public var kind: String?
        public var answer: OperatorAnswer
    }

    public enum LoadError: Error, CustomStringConvertible {
        case unreadable(String, String)
        case badLine(Int, String)
        public var description: String {
            switch self {
            case .unreadable(let path, let why): "cannot read \(path): \(why)"
            case .badLine(let n, let why): "line \(n): \(why); each line is {\"check\": \"DDP/BV-05\", \"kind\": \"delivery\", \"answer\": \"y\"}"
            }
        }
    }

    private var lines: [Line]
    /// Every prompt asked, in order, with the check id (for tests and the log).
    public private(set) var asked: [(check: String, prompt: OperatorPrompt)] = []

    public init(lines: [Line]) { self.lines = lines }

    public convenience init(path: String) throws(LoadError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .unreadable(path, error.localizedDescription)
        }
        try self.init(jsonLines: text)
    }

    public convenience init(jsonLines text: String) throws(LoadError) {
        var lines: [Line] = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
                throw .badLine(i + 1, "not a JSON object")
            }
            let kind = object["kind"] as? String
            if let kind, !["send", "delivery", "acknowledgement"].contains(kind) {
                throw .badLine(i + 1, "kind '\(kind)' is not send, delivery or acknowledgement")
            }
            let answerText = (object["answer"] as? String) ?? (object["answer"] as? Int).map(String.init) ?? "none"
            let answer: OperatorAnswer
            if answerText == "none" {
                answer = .none(reason: "the script gives no answer")
            } else if let a = OperatorAnswer(text: answerText) {
                answer = a
            } else {
                throw .badLine(i + 1, "answer '\(answerText)' is not y, n, a count or none")
            }
            lines.append(Line(check: (object["check"] as? String) ?? "*", kind: kind, answer: answer))
        }
        self.init(lines: lines)
    }

    public func ask(_ prompt: OperatorPrompt, check: String) -> OperatorAnswer {
        asked.append((check, prompt))
        guard let i = lines.firstIndex(where: { Glob.matches($0.check, check) && ($0.kind == nil || $0.kind == prompt.kind) }) else {
            return .none(reason: "no scripted answer for \(check) \(prompt.kind)")
        }
        return lines.remove(at: i).answer
    }
}
