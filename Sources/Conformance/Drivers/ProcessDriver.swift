import ChildProcess
import Foundation
import MeshNode
import MeshWire

/// A DUT that is a program, spoken to over the stdio protocol of docs/stdio-dut.md: JSON
/// Lines on its stdin and stdout, a fresh `/bin/sh -c COMMAND` per check. The program is
/// untrusted: whatever it does (exits, hangs, floods, writes garbage, stops reading) the
/// session throws `DUTFailure` with the reason within a bounded time, and `close` always
/// leaves no process behind. With `clock: .tester` the program runs its timers on time the
/// tester sends it (section 6 of the page), so waits cost no wall time.
public struct ProcessDriver: DUTDriver {
    public static let protocolVersion = 1
    /// A line longer than this is a protocol error (a 512-byte packet is ~1.1 KB of JSON).
    public static let maxLineBytes = 1 << 20
    /// Bytes of stdout one session may produce; with `maxOutputsPerSession` it bounds memory.
    public static let maxOutputBytesPerSession = 64 << 20
    /// Bytes of the DUT's stderr kept for diagnostics.
    public static let stderrTailBytes = 4096

    public var command: String
    /// From spawning to the `ready` line (interpreters that import crypto libraries are slow
    /// to start on a loaded machine).
    public var startTimeout: Duration
    /// The longest one line to the DUT may wait for room in its stdin pipe.
    public var writeTimeout: Duration
    /// After `stop` and end of stdin, the time the DUT has to exit before SIGTERM (then SIGKILL).
    public var stopGrace: Duration
    /// Whose clock runs the DUT's timers (the capabilities' `clock`).
    public var clock: DUTClock
    /// On the tester's clock: the longest the DUT may take to answer one line with `idle`.
    public var stepTimeout: Duration
    /// On the tester's clock: the most `time` lines one session sends. Each one fires at
    /// least one of the DUT's timers, so more means a timer loop that keeps virtual time
    /// from advancing (the relay example needs about 150 for a 5-minute wait).
    public var maxTimeSteps: Int

    public init(command: String, clock: DUTClock = .wall, startTimeout: Duration = .seconds(10), writeTimeout: Duration = .seconds(2),
                stopGrace: Duration = .milliseconds(500), stepTimeout: Duration = .seconds(5), maxTimeSteps: Int = 50_000) {
        self.command = command
        self.clock = clock
        self.startTimeout = startTimeout
        self.writeTimeout = writeTimeout
        self.stopGrace = stopGrace
        self.stepTimeout = stepTimeout
        self.maxTimeSteps = maxTimeSteps
    }

    public var name: String { clock == .tester ? "process on the tester's clock: \(command)" : "process: \(command)" }

    /// Every session is a new process.
    public var startsFreshDUT: Bool { true }

    public func start(_ setup: DUTSetup) throws -> any DUTSession {
        let child: ChildProcess
        do {
            child = try ChildProcess(command: command, stderr: .capture(tailBytes: Self.stderrTailBytes),
                                     maxLineBytes: Self.maxLineBytes, maxQueuedBytes: Self.maxOutputBytesPerSession)
        } catch {
            throw DUTUnavailable("cannot run the DUT command: \(error); check the --dut-exec command (it runs under /bin/sh -c)")
        }
        let session = ProcessSession(child: child, driver: self, dialect: setup.dialect)
        do {
            try session.handshake(setup)
        } catch {
            _ = session.close()
            throw error
        }
        return session
    }
}

/// One running DUT program. The session clock is the wall clock (monotonic), zero at spawn;
/// on the tester's clock it is virtual, zero at `start`, and moves only when the tester waits.
final class ProcessSession: DUTSession {
    private let child: ChildProcess
    private let driver: ProcessDriver
    private let dialect: DialectName
    private let origin = ContinuousClock.now
    private var pending: [DUTOutput] = []
    /// A line read after the deadline of the `wait` that read it: the next wait's.
    private var held: ChildProcess.Line?
    private var produced = 0
    /// Values the tester wrote (the flood bound grows with them).
    private var inputs = 0
    private var bytesRead = 0
    /// Once the DUT has failed, every later call says so again instead of talking to it.
    private var failure: DUTFailure?
    private var closed = false
    /// The tester's clock: what `now` reads, the time the DUT was last told, the DUT's
    /// earliest pending timer (its last `idle`), and the `time` lines sent so far.
    private var virtualNow = Instant.zero
    private var told = Instant.zero
    private var nextTimer: Instant?
    private var timeSteps = 0
    private var testerClock: Bool { driver.clock == .tester }

    init(child: ChildProcess, driver: ProcessDriver, dialect: DialectName) {
        self.child = child
        self.driver = driver
        self.dialect = dialect
    }

    var pid: Int32 { child.pid }

    var now: Instant { testerClock ? virtualNow : instant(ContinuousClock.now) }

    // MARK: start

    /// Sends `start` and waits for `ready`. `log` lines before it are kept as outputs.
    func handshake(_ setup: DUTSetup) throws {
        let settings: [(String, JSONValue)] = setup.settings.map { ($0.key, .string($0.value)) }
        var members: [(String, JSONValue)] = [("type", .string("start")), ("version", .integer(ProcessDriver.protocolVersion)),
                                              ("dialect", .string(setup.dialect.rawValue)), ("address", .string(Self.text(setup.address))),
                                              ("settings", JSONValue.object(settings)), ("seed", .string(String(setup.seed)))]
        if testerClock { members.append(("clock", .string(DUTClock.tester.rawValue))) }
        let start = Self.line(members)
        let deadline = ContinuousClock.now + driver.startTimeout
        do throws(ChildProcessError) {
            try child.write(start, until: .now + driver.writeTimeout)
        } catch .inputClosed {
            throw endedBeforeReady()
        } catch {
            throw transportFailure(error)
        }
        while true {
            let line: ChildProcess.Line?
            do throws(ChildProcessError) {
                line = try child.nextLine(until: deadline)
            } catch .outputClosed {
                throw endedBeforeReady()
            } catch {
                throw transportFailure(error)
            }
            guard let line else {
                throw fail("the DUT did not answer start within \(driver.startTimeout.seconds) s (no \"ready\" line)\(stderrNote())")
            }
            switch try parse(line) {
            case .blank: continue
            case .ready(let version, let clock, let next):
                guard version == ProcessDriver.protocolVersion else {
                    throw fail("the DUT speaks stdio protocol version \(version); meshconform speaks \(ProcessDriver.protocolVersion)")
                }
                if testerClock {
                    // A DUT that ignores the request would run on its own clock while the tester
                    // skips time: every timing verdict would be wrong. The setup is at fault, not the DUT.
                    guard clock == DUTClock.tester.rawValue else {
                        _ = fail("no tester clock")
                        throw DUTUnavailable("the capabilities declare \"clock\": \"tester\" but the DUT's ready line does not confirm it (\(Self.quote(line.bytes))): it keeps its own clock; remove \"clock\" from the capabilities file, or make the DUT answer {\"type\":\"ready\",\"version\":1,\"clock\":\"tester\"} and run its timers on the time lines (docs/stdio-dut.md section 6)")
                    }
                    nextTimer = next
                }
                return
            case .output(.log(let text)):
                try record(DUTOutput(at: instant(line.at), kind: .log(text)), size: line.bytes.count)
            case .output, .idle:
                throw fail("the DUT sent \(Self.quote(line.bytes)) before \"ready\"")
            }
        }
    }

    /// The DUT went away during the handshake: a FAIL, unless the shell could not run the
    /// command at all (126 not executable, 127 not found), which is the invocation's fault and
    /// says nothing about the DUT: the run stops.
    private func endedBeforeReady() -> any Error {
        let (status, stderr) = ended()
        if case .exited(let code)? = status, code == 126 || code == 127 {
            return DUTUnavailable("the DUT command could not be run (\(code == 127 ? "not found" : "not executable"), \(status!))\(stderr); check the --dut-exec command (it runs under /bin/sh -c)")
        }
        return fail("the DUT \(status.map { "exited (\($0))" } ?? "closed its stdout") before answering start\(stderr)")
    }

    // MARK: DUTSession

    func apply(_ event: NodeEvent) throws {
        if let failure { throw failure }
        // On the tester's clock the DUT first learns how much time passed since it was last
        // told, then gets the event, and answers `idle` once it has acted on it.
        if testerClock, virtualNow > told { try advanceDUT(to: virtualNow) }
        switch event {
        case .received(let bytes, let link):
            inputs += 1
            try send([("type", .string("rx")), ("link", .integer(link.raw)), ("hex", .hex(bytes))])
        case .linkUp(let link, let peer, let maxUnit):
            try send([("type", .string("link-up")), ("link", .integer(link.raw)), ("peer", peer.map { .string(Self.text($0)) } ?? .null)]
                     + (maxUnit.map { [("maxUnit", .integer($0))] } ?? []))
        case .linkDown(let link):
            try send([("type", .string("link-down")), ("link", .integer(link.raw))])
        case .command(.send(let payload, let destination)):
            try send([("type", .string("send")), ("payload", .hex(payload)),
                      ("destination", destination.map { .string(Self.text($0)) } ?? .null)])
        case .timer:
            // A process keeps its own timers; only the virtual driver is given timer events.
            throw TesterError("timer events are not sent to a process DUT")
        }
        if testerClock { try awaitIdle(after: "the tester's last line") }
    }

    func wait(until deadline: Instant) throws -> [DUTOutput] {
        if let failure { throw failure }
        if testerClock { return try waitOnTesterClock(until: deadline) }
        let end = origin + .nanoseconds(deadline.nanoseconds)
        while true {
            let line: ChildProcess.Line?
            if let h = held {
                held = nil
                line = h
            } else {
                do throws(ChildProcessError) {
                    // Parsing costs more than reading: take in all that is waiting before each
                    // line is parsed, so a DUT that floods faster than lines are parsed is caught
                    // by count, however slowly a loaded host parses (not only when the queue
                    // runs dry, which on a busy host came after the check's window).
                    try child.readReady(upTo: maxOutputs(afterInputs: inputs) - produced + 1)
                } catch {
                    throw transportFailure(error)
                }
                if produced + child.queuedLines > maxOutputs(afterInputs: inputs) { throw flood() }
                do throws(ChildProcessError) {
                    line = try child.nextLine(until: end)
                } catch {
                    throw transportFailure(error)
                }
            }
            guard let line else { break }
            guard line.at <= end else {
                held = line
                break
            }
            switch try parse(line) {
            case .blank: continue
            case .ready: throw fail("the DUT sent \"ready\" a second time")
            case .idle: throw fail("the DUT sent \(Self.quote(line.bytes)), which only a DUT on the tester's clock sends (the tester did not ask for it in start)")
            case .output(let kind): try record(DUTOutput(at: instant(line.at), kind: kind), size: line.bytes.count)
            }
        }
        defer { pending.removeAll() }
        return pending
    }

    // MARK: the tester's clock

    /// Moves virtual time to `deadline` the way the built-in node's session does: from one of
    /// the DUT's timers to the next (each `time` line to exactly the instant its `idle` named),
    /// so every output is stamped with the instant its timer fired.
    private func waitOnTesterClock(until deadline: Instant) throws -> [DUTOutput] {
        while let due = nextTimer.map({ max($0, virtualNow) }), due <= deadline {
            virtualNow = due
            try advanceDUT(to: due)
        }
        virtualNow = max(virtualNow, deadline)
        defer { pending.removeAll() }
        return pending
    }

    /// Sends `time` with `instant` (whole microseconds, never ahead of the tester), and waits
    /// for the `idle` that says the DUT ran every timer due by then.
    private func advanceDUT(to instant: Instant) throws {
        timeSteps += 1
        guard timeSteps <= driver.maxTimeSteps else {
            throw fail("the DUT's timers asked for more than \(driver.maxTimeSteps) time steps in one check, \(virtualNow) into it (a timer loop)")
        }
        told = instant
        try send([("type", .string("time")), ("nowUs", .integer(Int(instant.nanoseconds / 1000)))])
        try awaitIdle(after: "time \(instant.nanoseconds / 1000) us")
        if let next = nextTimer, next.nanoseconds / 1000 <= told.nanoseconds / 1000 {
            throw fail("after time \(told.nanoseconds / 1000) us the DUT's idle names a timer due at \(next.nanoseconds / 1000) us: it must run every timer due by the time it is given")
        }
    }

    /// Reads the DUT's lines up to its `idle`, stamping each output with the virtual now.
    /// Bounded by `stepTimeout` of wall time: a DUT that never answers FAILs.
    private func awaitIdle(after what: String) throws {
        let deadline = ContinuousClock.now + driver.stepTimeout
        while true {
            if produced + child.queuedLines > maxOutputs(afterInputs: inputs) { throw flood() }
            let line: ChildProcess.Line?
            do throws(ChildProcessError) {
                line = try child.nextLine(until: deadline)
            } catch {
                throw transportFailure(error)
            }
            guard let line else {
                throw fail("the DUT did not answer \(what) with \"idle\" within \(driver.stepTimeout.seconds) s (on the tester's clock every line is answered by idle)\(stderrNote())")
            }
            switch try parse(line) {
            case .blank: continue
            case .ready: throw fail("the DUT sent \"ready\" a second time")
            case .idle(let next):
                nextTimer = next
                return
            case .output(let kind): try record(DUTOutput(at: virtualNow, kind: kind), size: line.bytes.count)
            }
        }
    }

    func close() -> String? {
        guard !closed else { return nil }
        closed = true
        var notes: [String] = []
        if failure == nil {
            // The polite way first: `stop`, then end of file on stdin.
            try? child.write(Self.line([("type", .string("stop"))]), until: .now + .milliseconds(100))
            child.closeInput()
            if !child.waitForExit(within: driver.stopGrace) {
                notes.append("the DUT did not exit within \(driver.stopGrace.seconds) s of stop: terminated")
            }
        }
        let status = child.terminate(grace: .milliseconds(200))
        if failure == nil, status != .exited(0) { notes.append("the DUT ended with \(status)") }
        let stderr = child.stderrTail.trimmingCharacters(in: .whitespacesAndNewlines)
        if !stderr.isEmpty { notes.append(stderr) }
        return notes.isEmpty ? nil : notes.joined(separator: "\n")
    }

    // MARK: lines

    enum Message {
        /// An empty line: ignored.
        case blank
        /// `clock` is the DUT's confirmation of the tester's clock; `next` its first timer.
        case ready(version: Int, clock: String?, next: Instant?)
        /// On the tester's clock: the DUT acted on the last line; its earliest timer is `next`.
        case idle(next: Instant?)
        case output(DUTOutput.Kind)
    }

    /// Reads one DUT line (docs/stdio-dut.md section 4). Anything that is not a known message
    /// with valid fields is a protocol error: the check FAILs with the line.
    func parse(_ line: ChildProcess.Line) throws(DUTFailure) -> Message {
        var bytes = line.bytes[...]
        if bytes.last == 0x0d { bytes = bytes.dropLast() }   // tolerate CRLF line ends
        if bytes.isEmpty { return .blank }
        do {
            let fields = try JSONFields(parsing: bytes, context: "line")
            let type = try fields.string("type")
            switch type {
            case "ready":
                return .ready(version: try fields.integer("version", as: Int.self), clock: try fields.optionalString("clock"),
                              next: try nextTimer(fields))
            case "idle":
                return .idle(next: try nextTimer(fields))
            case "tx":
                return .output(.sent(try fields.hex("hex"), on: try link(fields)))
            case "deliver":
                let origin = try address(fields.string("origin"), "origin")
                let destination = try fields.optionalString("destination").map { text throws(WireError) in try address(text, "destination") }
                return .output(.delivered(AppMessage(origin: origin, destination: destination, payload: try fields.hex("payload"),
                                                     messageID: try identifier(fields))))
            case "acked":
                return .output(.acknowledged(messageID: try identifier(fields)))
            case "disconnect":
                return .output(.disconnected(try link(fields)))
            case "log":
                return .output(.log(try fields.string("text")))
            default:
                throw WireError(.wrongType, "unknown message type \"\(type.prefix(40))\"")
            }
        } catch {
            throw fail("the DUT wrote a line that is not a protocol message (\(error)): \(Self.quote(line.bytes))")
        }
    }

    /// `nextUs`: microseconds on the tester's clock, or null / absent for no timer.
    private func nextTimer(_ fields: JSONFields) throws(WireError) -> Instant? {
        guard let us = try fields.optionalInteger("nextUs", as: Int64.self) else { return nil }
        guard us >= 0, us <= Int64.max / 1000 else { throw WireError(.valueOutOfRange, "nextUs \(us): microseconds from 0") }
        return Instant(nanoseconds: us * 1000)
    }

    private func link(_ fields: JSONFields) throws(WireError) -> LinkID {
        let n = try fields.integer("link", as: Int.self)
        guard n >= 1 else { throw WireError(.valueOutOfRange, "link \(n): links are numbered from 1") }
        return LinkID(n)
    }

    /// Message ids are strings (relay seqs exceed 2^53); a JSON number is taken by its text.
    private func identifier(_ fields: JSONFields) throws(WireError) -> String {
        switch try fields.required("id") {
        case .string(let s): return s
        case .number(let text): return text
        case let other: throw WireError(.wrongType, "line.id: expected a string, found \(other.kind)")
        }
    }

    private func address(_ text: String, _ field: String) throws(WireError) -> NodeAddress {
        if text.utf8.count == 36 { return NodeAddress(try JSONFields.uuid(text, field: field)) }
        guard let bytes = Hex.decode(text), !bytes.isEmpty else {
            throw WireError(.badUUID, "\(field): \"\(text.prefix(64))\" is neither a UUID nor hex")
        }
        return NodeAddress(bytes: bytes)
    }

    /// Addresses on the wire: 16-byte ids as UUID strings (relay), others as lowercase hex.
    static func text(_ address: NodeAddress) -> String {
        address.uuid?.uuidString ?? Hex.encode(address.bytes)
    }

    static func line(_ members: [(String, JSONValue)]) -> [UInt8] {
        JSONWriter.write(.object(members), options: .init(escapeSlashes: false)) + [0x0a]
    }

    /// At most 200 characters of a line, for reasons.
    static func quote(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(200), as: UTF8.self)
        return "'\(text)\(bytes.count > 200 ? "..." : "")'"
    }

    // MARK: plumbing

    private func send(_ members: [(String, JSONValue)]) throws {
        do throws(ChildProcessError) {
            try child.write(Self.line(members), until: .now + driver.writeTimeout)
        } catch {
            throw transportFailure(error)
        }
    }

    /// Counts an output against the session's bounds: they keep the evidence a flooding DUT
    /// leaves in memory (and in the reports) finite.
    private func record(_ output: DUTOutput, size: Int) throws(DUTFailure) {
        produced += 1
        bytesRead += size
        guard produced <= maxOutputs(afterInputs: inputs) else { throw flood() }
        guard bytesRead <= ProcessDriver.maxOutputBytesPerSession else {
            throw fail("the DUT wrote more than \(ProcessDriver.maxOutputBytesPerSession) bytes in one check (flood)")
        }
        pending.append(output)
    }

    private func flood() -> DUTFailure {
        fail("the DUT produced more than \(maxOutputs(afterInputs: inputs)) outputs in one check, \(inputs) values written (flood)")
    }

    private func transportFailure(_ error: ChildProcessError) -> DUTFailure {
        switch error {
        case .outputClosed, .inputClosed:
            let (status, stderr) = ended()
            let what = error == .outputClosed ? "closed its stdout" : "stopped reading (closed its stdin)"
            return fail(status.map { "the DUT exited (\($0))\(stderr)" } ?? "the DUT \(what) but is still running\(stderr)")
        case .timedOut:
            return fail("the DUT did not read its stdin for \(driver.writeTimeout.seconds) s (the pipe stayed full)")
        case .lineTooLong(let n):
            return fail("the DUT wrote a line over \(n) bytes")
        case .flooded(let n):
            return fail("the DUT wrote over \(n) bytes faster than the tester reads (flood)")
        case .cannotStart(let why):
            return fail("cannot run the DUT: \(why)")
        }
    }

    /// The DUT's exit status if it exits within a moment (its output just ended), and the
    /// end of its stderr as a suffix for the reason.
    private func ended() -> (ChildProcess.Status?, String) {
        let status = child.waitForExit(within: .milliseconds(300)) ? child.kill() : nil
        return (status, stderrNote())
    }

    private func stderrNote() -> String {
        let lines = child.stderrTail.split(whereSeparator: \.isNewline).suffix(3).joined(separator: " | ")
        return lines.isEmpty ? "" : "; stderr: \(lines.suffix(300))"
    }

    private func fail(_ reason: String) -> DUTFailure {
        let f = DUTFailure(reason)
        failure = f
        return f
    }

    private func instant(_ t: ContinuousClock.Instant) -> Instant {
        let d = t - origin
        return Instant(nanoseconds: d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000)
    }
}
