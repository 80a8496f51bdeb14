/// What makes two crashes the same bug: the kind, the trap message without numbers, and the
/// top two frames of the crashed thread that are not runtime or libc frames, by function
/// name (not address or line: those move with every edit). Read from what Swift's backtracer
/// writes to the worker's stderr (`SWIFT_BACKTRACE=enable=yes,interactive=no`).
public struct StackSignature: Hashable, Sendable, Codable, CustomStringConvertible {
    public var kind: OracleFailure.Kind
    public var message: String
    public var frames: [String]

    public init(kind: OracleFailure.Kind, message: String, frames: [String]) {
        self.kind = kind
        self.message = message
        self.frames = frames
    }

    public var description: String {
        ([kind.rawValue, message] + frames).filter { !$0.isEmpty }.joined(separator: " | ")
    }

    /// A hang: one per target. Where a spinning loop is when it is stopped is chance, so its
    /// stack would split one bug into many.
    public static let hang = StackSignature(kind: .hang, message: "no answer within the time limit", frames: [])

    /// The part of a signature that a replay without the backtracer can check (minimising).
    public var quick: StackSignature { StackSignature(kind: kind, message: message, frames: []) }

    /// Parses the worker's stderr (its tail) after it died by `signal` (nil: exited).
    public static func parse(kind: OracleFailure.Kind, stderr: String, signal: Int32?) -> StackSignature {
        var message = signal.map { "signal \($0)" } ?? "exited"
        var frames: [String] = []
        var inCrashedThread = false
        for line in stderr.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.contains("Could not allocate memory") || line.contains("failed to allocate") {
                message = "could not allocate memory"
            } else if let range = line.range(of: "Fatal error: ") {
                message = String(line[range.upperBound...]).strippingDigits
            }
            if line.contains(" crashed:") { inCrashedThread = true; continue }
            guard inCrashedThread, frames.count < 2 else { continue }
            if line.hasPrefix("Thread ") { inCrashedThread = false; continue }
            if let frame = frameFunction(line) { frames.append(frame) }
        }
        return StackSignature(kind: kind, message: message, frames: frames)
    }

    /// "  3 [ra] 0x000055f2 deep(_:_:) + 47 in prog at /x.swift:1:58" -> "deep(_:_:)", or nil
    /// for frames in the Swift runtime, libc and the fuzzer's own loop.
    static func frameFunction(_ line: Substring) -> String? {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let address = words.firstIndex(where: { $0.hasPrefix("0x") }) else { return nil }
        let rest = words[(address + 1)...].joined(separator: " ")
        guard let plus = rest.range(of: " + "), let inRange = rest.range(of: " in ", range: plus.upperBound..<rest.endIndex) else { return nil }
        let function = String(rest[..<plus.lowerBound])
        let image = rest[inRange.upperBound...].split(separator: " ").first.map(String.init) ?? ""
        if image.hasPrefix("libswift") || image.hasPrefix("libc.") || image.hasPrefix("ld-") || image.hasPrefix("libFoundation") { return nil }
        if function.contains("FuzzEngine") || function.contains("FuzzWorker") || function.contains("Oracles") || function.hasPrefix("main")
            || function.hasSuffix("_main") || function.hasPrefix("_") { return nil }
        return function
    }
}

extension String {
    var strippingDigits: String { String(filter { !$0.isNumber }) }
}
