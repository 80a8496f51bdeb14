import Foundation
import MeshWire
#if canImport(Glibc)
import Glibc
#endif

/// A decoder in another program, spoken to over JSON Lines on its stdin / stdout
/// (protocol: docs/vectors.md). The program is untrusted: every answer has a deadline, every
/// line a size bound, and a program that dies or hangs is restarted for the next vector.
public final class ExternalDecoder: VectorDecoder {
    public let command: String
    public let timeout: Duration
    static let maxLineBytes = 1 << 20

    private var process: Process?
    private var input: FileHandle?
    private var outputFD: Int32 = -1
    private var pending: [UInt8] = []

    public init(command: String, timeout: Duration = .seconds(5)) {
        // A decoder that dies mid-write must cost one vector, not kill meshconform.
        signal(SIGPIPE, SIG_IGN)
        self.command = command
        self.timeout = timeout
    }

    deinit { stop() }

    public func answer(_ vector: Vector) -> DecoderAnswer {
        var request: [(String, JSONValue)] = [("format", .string(vector.format)), ("hex", .hex(vector.bytes))]
        if let context = vector.context { request.append(("context", context)) }
        let line = JSONWriter.write(.object(request), options: .init(escapeSlashes: false)) + [0x0a]
        for attempt in 0..<2 {
            let reused = process?.isRunning == true
            do {
                try startIfNeeded()
                try send(line)
                return try Self.parseAnswer(try readLine())
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

    private func startIfNeeded() throws(ExternalDecoderError) {
        if let p = process, p.isRunning { return }
        stop()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        do { try p.run() } catch { throw .cannotStart("\(command): \(error)") }
        process = p
        input = stdin.fileHandleForWriting
        outputFD = stdout.fileHandleForReading.fileDescriptor
        pending = []
        // A child that stops reading must not block us forever on a full pipe.
        let fd = stdin.fileHandleForWriting.fileDescriptor
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    private func stop() {
        if let p = process, p.isRunning {
            p.terminate()
            let deadline = ContinuousClock.now + .milliseconds(200)
            while p.isRunning && ContinuousClock.now < deadline { usleep(5_000) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        }
        try? input?.close()
        process = nil
        input = nil
        outputFD = -1
    }

    private func send(_ bytes: [UInt8]) throws(ExternalDecoderError) {
        guard let fd = input?.fileDescriptor else { throw .exited }
        let deadline = ContinuousClock.now + timeout
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno != EAGAIN && errno != EINTR { throw .exited }
            try wait(fd: fd, events: Int16(POLLOUT), until: deadline)
        }
    }

    private func readLine() throws(ExternalDecoderError) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let nl = pending.firstIndex(of: 0x0a) {
                let line = Array(pending[..<nl])
                pending.removeSubrange(...nl)
                return line
            }
            guard pending.count <= Self.maxLineBytes else { throw .badAnswer("answer line over \(Self.maxLineBytes) bytes") }
            try wait(fd: outputFD, events: Int16(POLLIN), until: deadline)
            let n = buffer.withUnsafeMutableBytes { read(outputFD, $0.baseAddress, $0.count) }
            if n == 0 { throw .exited }
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; throw .exited }
            pending += buffer[..<n]
        }
    }

    private func wait(fd: Int32, events: Int16, until deadline: ContinuousClock.Instant) throws(ExternalDecoderError) {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw .timedOut(timeout) }
        var p = pollfd(fd: fd, events: events, revents: 0)
        let ms = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
        let r = poll(&p, 1, ms)
        if r == 0 { throw .timedOut(timeout) }
        if r < 0 && errno != EINTR { throw .exited }
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
