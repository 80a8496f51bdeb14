import MeshNode

/// What the tester asks the person at the bench, in the manner of PTS MMI dialogs: the DUT's
/// app is the upper tester, and only a person (or a script standing in for one) can drive it.
public enum OperatorPrompt: Hashable, Sendable, CustomStringConvertible {
    /// Make the device's app send `text` to `destination` (nil: to everyone / broadcast).
    case send(text: String, to: String?)
    /// Does the device's app show the message `text` from `origin`, and how often?
    case delivery(text: String, from: String)
    /// Does the device's app show the message it sent, `text`, as delivered (acknowledged)?
    case acknowledgement(text: String)

    /// The key a scripted answer names: `send`, `delivery`, `acknowledgement`.
    public var kind: String {
        switch self {
        case .send: "send"
        case .delivery: "delivery"
        case .acknowledgement: "acknowledgement"
        }
    }

    public var description: String {
        switch self {
        case .send(let text, let to): "send the text \u{201C}\(text)\u{201D} from the device to \(to ?? "everyone (broadcast)"), then answer y (n: the app cannot)"
        case .delivery(let text, let from): "does the device show the message \u{201C}\(text)\u{201D} from \(from)? y: once, n: not at all, or the number of times it is shown"
        case .acknowledgement(let text): "does the device show the message it sent, \u{201C}\(text)\u{201D}, as delivered? y/n"
        }
    }
}

/// The operator's answer. `none` (no answer in time, no scripted answer) makes the check INCONC.
public enum OperatorAnswer: Hashable, Sendable, CustomStringConvertible {
    case yes
    case no
    /// A delivery shown this many times.
    case count(Int)
    case none(reason: String)

    public var description: String {
        switch self {
        case .yes: "y"
        case .no: "n"
        case .count(let n): "shown \(n) times"
        case .none(let reason): "no answer (\(reason))"
        }
    }

    /// Parses "y", "yes", "n", "no", or a count; anything else is nil.
    public init?(text: String) {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "y", "yes": self = .yes
        case "n", "no": self = .no
        case let t: guard let n = Int(t), n >= 0 else { return nil }; self = .count(n)
        }
    }
}

/// The person at the bench (a terminal dialog) or a script of their answers. With one set,
/// `CheckContext` asks it instead of the DUT session for what only the app shows or does.
public protocol UpperTesterOperator: AnyObject {
    func ask(_ prompt: OperatorPrompt, check: String) -> OperatorAnswer
}

extension CheckContext {
    /// Text for a prompt: the payload as the app shows it (UTF-8), or its hex when it is not text.
    static func promptText(_ payload: [UInt8]) -> String {
        if let s = String(validating: payload, as: UTF8.self), !s.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return s
        }
        return "hex " + payload.map { String($0, radix: 16).leftPadded(2) }.joined()
    }
}

private extension String {
    func leftPadded(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
