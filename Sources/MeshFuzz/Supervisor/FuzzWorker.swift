import MeshWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process a supervisor starts per job: `<program> fuzz-worker <target> ...`. It runs the
/// engine and reports on stdout in lines; whatever the decoder does to it, the supervisor
/// finds out from outside. Shared by `meshconform` and the planted-bugs test program, so it
/// parses its own few options instead of needing ArgumentParser.
///
///     fuzz-worker TARGET --corpus DIR --slot FILE [--seed N] [--runs N] [--max-time S] [--memory-mb M]
///     fuzz-worker TARGET --replay [--memory-mb M]      # hex lines in, one answer line out each
///
/// Lines out: `stat EXECS CORPUS FEATURES [EDGES EDGE-ONLY]` (a coverage build: edges hit, and
/// inputs kept for new edges alone), `new NAME`, `fail KIND HEX DETAIL`, `done EXECS`;
/// in replay mode `ok FEATURE KIND|-` per input.
public enum FuzzWorker {
    public static func main(arguments: [String], targets: [FuzzTarget]) -> Never {
        do {
            let options = try Options(arguments)
            guard let target = targets.first(where: { $0.id == options.target }) else {
                fail("unknown target \(options.target); known: \(targets.map(\.id).joined(separator: ", "))")
            }
            boundAddressSpace(megabytes: options.memoryMB)
            if options.replay { replay(target) } else { try campaign(target, options) }
        } catch {
            fail("\(error)")
        }
    }

    struct Options {
        var target = ""
        var corpus = ""
        var slot = ""
        var seed: UInt64 = 1
        var runs: Int?
        var maxTime: Double?
        var memoryMB = 2048
        var replay = false

        init(_ arguments: [String]) throws(CorpusError) {
            var rest = arguments[...]
            guard let first = rest.popFirst() else { throw CorpusError("fuzz-worker needs a target") }
            target = first
            while let flag = rest.popFirst() {
                if flag == "--replay" { replay = true; continue }
                guard let value = rest.popFirst() else { throw CorpusError("\(flag) needs a value") }
                switch flag {
                case "--corpus": corpus = value
                case "--slot": slot = value
                case "--seed": seed = UInt64(value) ?? 1
                case "--runs": runs = Int(value)
                case "--max-time": maxTime = Double(value)
                case "--memory-mb": memoryMB = Int(value) ?? memoryMB
                default: throw CorpusError("unknown fuzz-worker option \(flag)")
                }
            }
            if !replay, corpus.isEmpty || slot.isEmpty { throw CorpusError("fuzz-worker needs --corpus and --slot") }
        }
    }

    static func campaign(_ target: FuzzTarget, _ options: Options) throws(CorpusError) -> Never {
        let store = try CorpusStore(directory: options.corpus)
        let slot = try InputSlot(path: options.slot, capacity: maxInputLength)
        var engine = FuzzEngine(target: target, seed: options.seed, maxLength: maxInputLength)
        var known = Set<String>()
        var events = FuzzEngine.Events()
        // MESHCONFORM_ENGINE_FAULT_AFTER=N: the worker traps in its own code before its Nth
        // execution, after recording N-1 innocent inputs: a fault of the engine rather than the
        // target, for the supervisor's test (a crash its input does not reproduce is no finding).
        let faultAfter = getenv("MESHCONFORM_ENGINE_FAULT_AFTER").flatMap { Int(String(cString: $0)) }
        var executions = 0
        events.willExecute = { input in
            executions += 1
            if let faultAfter, executions == faultAfter { fatalError("injected engine fault (MESHCONFORM_ENGINE_FAULT_AFTER)") }
            slot.record(input)
        }
        events.newInput = { input, _ in
            if let name = try? store.add(input) { known.insert(name); emit("new \(name)") }
        }
        events.failure = { input, failure in
            emit("fail \(failure.kind.rawValue) \(Hex.encode(input)) \(failure.detail.replacingNewlines)")
        }
        func admitNew() {
            var inputs: [[UInt8]] = []
            for name in store.names() where known.insert(name).inserted {
                if let bytes = store.read(name), bytes.count <= maxInputLength { inputs.append(bytes) }
            }
            if !inputs.isEmpty { engine.admit(inputs, events: events) }
        }
        admitNew()
        let start = ContinuousClock.now
        var lastReport = start, lastRescan = start
        while true {
            engine.fuzz(256, events: events)
            let now = ContinuousClock.now
            if now - lastReport >= .milliseconds(200) {
                lastReport = now
                emit(stat(engine))
            }
            // Other workers' finds, every few seconds: the corpus folder is the shared memory.
            if now - lastRescan >= .seconds(3) { lastRescan = now; admitNew() }
            if let runs = options.runs, engine.executions >= runs { break }
            if let maxTime = options.maxTime, now - start >= .milliseconds(Int64(maxTime * 1000)) { break }
        }
        emit(stat(engine))
        emit("done \(engine.executions)")
        exit(0)
    }

    /// Outcome features and, with edge feedback, the coverage features, edges hit and inputs
    /// kept for edges alone.
    static func stat(_ engine: FuzzEngine) -> String {
        let counts = engine.coverage
            ? "\(engine.features.count + EdgeCoverage.features) \(EdgeCoverage.coveredEdges) \(engine.keptForEdgesOnly)"
            : "\(engine.features.count)"
        return "stat \(engine.executions) \(engine.corpus.count) \(counts)"
    }

    static func replay(_ target: FuzzTarget) -> Never {
        let engine = FuzzEngine(target: target, seed: 0)
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { systemRead(0, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { exit(0) }
            pending.append(contentsOf: buffer[0..<n])
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                let input = Hex.decode(line) ?? []
                let (outcome, failure) = engine.execute(input)
                emit("ok \(outcome.feature) \(failure?.kind.rawValue ?? "-")")
            }
        }
    }

    /// Inputs longer than this are never made, and the slot holds this much.
    public static let maxInputLength = 4096

    /// Caps the worker's address space at what it uses now plus `megabytes`: an allocation
    /// sized by a hostile length field fails at once (and the runtime traps with a message the
    /// supervisor files as `allocation`), without touching the machine's memory.
    static func boundAddressSpace(megabytes: Int) {
        guard megabytes > 0, let statm = CorpusStore.readFile("/proc/self/statm"),
              let pages = Int(String(decoding: statm.prefix { $0 != 0x20 }, as: UTF8.self)) else { return }
        let limit = rlim_t(pages * Int(sysconf(Int32(_SC_PAGESIZE))) + megabytes << 20)
        var bound = rlimit(rlim_cur: limit, rlim_max: limit)
        _ = setrlimit(RLIMIT_AS_VALUE, &bound)
    }

    static func emit(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { systemWrite(1, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { exit(3) }   // the supervisor is gone
            sent += n
        }
    }

    static func fail(_ message: String) -> Never {
        var bytes = Array("fuzz-worker: \(message)\n".utf8)
        _ = bytes.withUnsafeMutableBytes { systemWrite(2, $0.baseAddress, $0.count) }
        exit(2)
    }
}

#if canImport(Glibc)
let RLIMIT_AS_VALUE = __rlimit_resource_t(RLIMIT_AS.rawValue)
#else
let RLIMIT_AS_VALUE = RLIMIT_AS
#endif

extension String {
    var replacingNewlines: String { String(map { $0 == "\n" || $0 == "\r" ? " " : $0 }) }
}
