import ArgumentParser
import Foundation
import MeshNode
import MeshWire

#if canImport(Glibc)
import Glibc
#endif

/// `meshconform stdio-dut`: the reference node, or a mutant, as a process DUT speaking the
/// stdio protocol of docs/stdio-dut.md, so the process driver runs it like any program:
/// `meshconform run --dialect bitchat --dut-exec 'meshconform stdio-dut --mutant chatty'`.
/// It takes the identity and settings of the `start` line and runs its timers on its own
/// monotonic clock, in real time, as the protocol says a DUT does.
struct StdioDUTCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stdio-dut",
        abstract: "Run the reference node (or a mutant) as a process DUT on stdin/stdout (docs/stdio-dut.md).",
        discussion: """
            For `meshconform run --dut-exec 'meshconform stdio-dut [--mutant M]'`. Reads the tester's lines \
            on stdin, writes the DUT's on stdout; the node's notes go to stderr. Exit status: 0 on stop or end \
            of input, 2 when the tester's lines break the protocol.
            """)

    @Option(help: "Run a named mutant of the reference node (see `meshconform list --mutants`); comma-separate to combine; `app`: the dialect's main app profile, `app-ios`, `app-android`: bitchat's (`meshconform list --apps`).")
    var mutant: String?

    func run() throws {
        var stdio = StdioDUT(mutants: try parseMutants(mutant))
        do {
            try stdio.serve()
        } catch let error as StdioDUT.ProtocolError {
            FileHandle.standardError.write(Data("meshconform stdio-dut: \(error.reason)\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// The loop: lines in become node events at the time they are read, the node's actions become
/// lines out, and its timers fire on the monotonic clock between lines.
struct StdioDUT {
    struct ProtocolError: Error { var reason: String }

    let mutants: MutantSelection
    private var node: Node?
    private var timers: [TimerID: Instant] = [:]
    private var input = StdinLines()
    private let origin = ContinuousClock.now

    init(mutants: MutantSelection) { self.mutants = mutants }

    private var now: Instant {
        let d = ContinuousClock.now - origin
        return Instant(nanoseconds: d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000)
    }

    mutating func serve() throws {
        while true {
            fireDueTimers()
            let next = timers.values.min()
            let wait = next.map { max(0, Int(($0.nanoseconds - now.nanoseconds + 999_999) / 1_000_000)) } ?? -1
            guard let line = try input.next(waitingMs: wait) else {
                if input.ended { return }
                continue
            }
            if try !handle(line) { return }
        }
    }

    private mutating func fireDueTimers() {
        while let (id, at) = timers.min(by: { ($0.value, $0.key.raw) < ($1.value, $1.key.raw) }), at <= now {
            timers[id] = nil
            apply(.timer(id))
        }
    }

    /// One line from the tester; false on `stop`.
    private mutating func handle(_ bytes: [UInt8]) throws -> Bool {
        var text = bytes[...]
        if text.last == 0x0d { text = text.dropLast() }
        if text.isEmpty { return true }
        do {
            let fields = try JSONFields(parsing: text, context: "line")
            let type = try fields.string("type")
            if type == "start" {
                guard node == nil else { throw ProtocolError(reason: "a second start line") }
                try start(fields)
                return true
            }
            guard node != nil else { throw ProtocolError(reason: "\"\(type)\" before start") }
            switch type {
            case "link-up":
                let peer = try fields.optionalString("peer").map { text throws(WireError) in try Self.address(text) }
                let maxUnit = try fields.optionalInteger("maxUnit", as: Int.self)
                apply(.linkUp(try link(fields), peer: peer, maxUnit: maxUnit))
            case "link-down": apply(.linkDown(try link(fields)))
            case "rx": apply(.received(try fields.hex("hex"), on: try link(fields)))
            case "send":
                let destination = try fields.optionalString("destination").map { text throws(WireError) in try Self.address(text) }
                apply(.command(.send(payload: try fields.hex("payload"), to: destination)))
            case "stop": return false
            default: break   // docs/stdio-dut.md section 2: unknown types from a newer tester are ignored
            }
        } catch let error as WireError {
            throw ProtocolError(reason: "a line that is not a protocol message (\(error)): \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        return true
    }

    private mutating func start(_ fields: JSONFields) throws {
        let name = try fields.string("dialect")
        guard let dialect = DialectName(rawValue: name) else { throw ProtocolError(reason: "unknown dialect \"\(name)\"") }
        var settings: [String: String] = [:]
        if case .object(let object)? = fields.optional("settings") {
            for member in object.members {
                guard case .string(let value) = member.value else { throw ProtocolError(reason: "settings.\(member.key) is not a string") }
                settings[member.key] = value
            }
        }
        let seed = try fields.optionalString("seed").map { text -> UInt64 in
            guard let seed = UInt64(text) else { throw ProtocolError(reason: "seed \"\(text)\" is not a decimal UInt64") }
            return seed
        } ?? 1
        if let problem = mutants.appProblem(for: dialect) { throw ProtocolError(reason: "--mutant: \(problem)") }
        let config = NodeConfig(address: try Self.address(fields.string("address")), faults: mutants.faults(for: dialect), dialectSettings: settings)
        node = Node(dialect: dialect, config: config, seed: seed)
        write([("type", .string("ready")), ("version", .integer(1))])
    }

    private mutating func apply(_ event: NodeEvent) {
        let time = now
        perform(node?.handle(event, at: time) ?? [])
    }

    private mutating func perform(_ actions: [NodeAction]) {
        for action in actions {
            switch action {
            case .send(let bytes, let link): write([("type", .string("tx")), ("link", .integer(link.raw)), ("hex", .hex(bytes))])
            case .deliver(let m):
                write([("type", .string("deliver")), ("origin", .string(Self.text(m.origin))),
                       ("destination", m.destination.map { .string(Self.text($0)) } ?? .null),
                       ("payload", .hex(m.payload)), ("id", .string(m.messageID))])
            case .acknowledged(let id): write([("type", .string("acked")), ("id", .string(id))])
            case .disconnect(let link): write([("type", .string("disconnect")), ("link", .integer(link.raw))])
            case .setTimer(let id, let at): timers[id] = at
            case .cancelTimer(let id): timers[id] = nil
            }
        }
    }

    private func link(_ fields: JSONFields) throws(WireError) -> LinkID {
        let n = try fields.integer("link", as: Int.self)
        guard n >= 1 else { throw WireError(.valueOutOfRange, "link \(n): links are numbered from 1") }
        return LinkID(n)
    }

    /// docs/stdio-dut.md section 2: a 16-byte id as a UUID string, others as hex.
    static func address(_ text: String) throws(WireError) -> NodeAddress {
        if text.utf8.count == 36 { return NodeAddress(try JSONFields.uuid(text, field: "address")) }
        guard let bytes = Hex.decode(text), !bytes.isEmpty else { throw WireError(.badUUID, "\"\(text.prefix(64))\" is neither a UUID nor hex") }
        return NodeAddress(bytes: bytes)
    }

    static func text(_ address: NodeAddress) -> String { address.uuid?.uuidString ?? Hex.encode(address.bytes) }

    private func write(_ members: [(String, JSONValue)]) {
        let line = JSONWriter.write(.object(members), options: .init(escapeSlashes: false)) + [0x0a]
        line.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { if n < 0, errno == EINTR { continue }; exit(0) }   // the tester is gone
                offset += n
            }
        }
    }
}

/// Lines from stdin, bounded (docs/stdio-dut.md: 1 MiB a line), with a wait for the next one.
struct StdinLines {
    private var buffer: [UInt8] = []
    private(set) var ended = false
    static let maxLine = 1 << 20

    /// The next line, waiting at most `waitingMs` (-1: until one comes); nil when none came in
    /// time or the input ended.
    mutating func next(waitingMs: Int) throws -> [UInt8]? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0a) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            guard buffer.count <= Self.maxLine else { throw StdioDUT.ProtocolError(reason: "a line over \(Self.maxLine) bytes") }
            if ended { return nil }
            var pollfd = Glibc.pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollfd, 1, Int32(clamping: waitingMs))
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { return nil }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = read(0, &chunk, chunk.count)
            if n < 0, errno == EINTR { continue }
            if n <= 0 {
                ended = true
                if !buffer.isEmpty { defer { buffer.removeAll() }; return buffer }
                return nil
            }
            buffer += chunk[..<n]
        }
    }
}
