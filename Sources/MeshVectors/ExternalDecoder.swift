import ChildProcess
import MeshWire

/// A decoder in another program, spoken to over JSON Lines on its stdin / stdout
/// (protocol: docs/vectors.md). The program is untrusted: every answer has a deadline, every
/// line a size bound, and a program that dies or hangs is restarted for the next vector.
public final class ExternalDecoder: VectorDecoder {
    public let command: String
    public let timeout: Duration
    static let maxLineBytes = 1 << 20

    private var child: ChildProcess?

    public init(command: String, timeout: Duration = .seconds(5)) {
        self.command = command
        self.timeout = timeout
    }

    deinit { stop() }

    public func answer(_ vector: Vector) -> DecoderAnswer {
        var request: [(String, JSONValue)] = [("format", .string(vector.format)), ("hex", .hex(vector.bytes))]
        if let context = vector.context { request.append(("context", context)) }
        let line = JSONWriter.write(.object(request), options: .init(escapeSlashes: false)) + [0x0a]
        for attempt in 0..<2 {
            let reused = child?.isRunning == true
            do throws(ExternalDecoderError) {
                let child = try startIfNeeded()
                guard let answer = try exchange(line, with: child) else { throw .timedOut(timeout) }
                return try Self.parseAnswer(answer)
            } catch .exited where reused && attempt == 0 {
                // It died after its previous answer, before reading this request: not this
                // vector's fault. A fresh process gets one try.
                stop()
            } catch {
                stop()
                return .broken(error.description)
            }
        }
        return .broken(ExternalDecoderError.exited.description)
    }

    static func parseAnswer(_ line: [UInt8]) throws(ExternalDecoderError) -> DecoderAnswer {
        guard let json = try? JSONParser.parse(line[...]), case .object(let o) = json else {
            throw .badAnswer("not a JSON object: \(String(decoding: line.prefix(120), as: UTF8.self))")
        }
        if let decoded = o["decoded"] { return .decoded(decoded) }
        if case .string(let code)? = o["error"] { return .refused(code: code) }
        if o["unsupported"] == .bool(true) { return .unsupported }
        throw .badAnswer("answer has none of decoded / error / unsupported")
    }

    private func startIfNeeded() throws(ExternalDecoderError) -> ChildProcess {
        if let child, child.isRunning { return child }
        stop()
        do {
            // stderr stays the terminal's: a decoder's complaints are for the person running it.
            let started = try ChildProcess(command: command, stderr: .inherit, maxLineBytes: Self.maxLineBytes)
            child = started
            return started
        } catch {
            throw .cannotStart("\(command): \(error)")
        }
    }

    /// One request and its answer line (nil: none within the timeout), in this type's error terms.
    private func exchange(_ request: [UInt8], with child: ChildProcess) throws(ExternalDecoderError) -> [UInt8]? {
        do throws(ChildProcessError) {
            try child.write(request, until: .now + timeout)
            return try child.nextLine(until: .now + timeout)?.bytes
        } catch {
            switch error {
            case .timedOut: throw .timedOut(timeout)
            case .lineTooLong(let n), .flooded(let n): throw .badAnswer("answer line over \(n) bytes")
            case .cannotStart(let why): throw .cannotStart(why)
            case .outputClosed, .inputClosed: throw .exited
            }
        }
    }

    private func stop() {
        child?.terminate(grace: .milliseconds(200))
        child = nil
    }
}

public enum ExternalDecoderError: Error, CustomStringConvertible {
    case cannotStart(String)
    case exited
    case timedOut(Duration)
    case badAnswer(String)

    public var description: String {
        switch self {
        case .cannotStart(let why): "cannot start decoder: \(why)"
        case .exited: "decoder exited or closed its output"
        case .timedOut(let t): "no answer within \(t)"
        case .badAnswer(let why): "bad answer: \(why)"
        }
    }
}
