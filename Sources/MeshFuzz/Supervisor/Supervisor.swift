import ChildProcess
import Foundation
import MeshWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a campaign: `jobs` worker processes per target, each running the engine; watches them
/// from outside. A worker that dies, or whose input counter stops moving for longer than the
/// per-input time limit, is a crash or a hang of the input in its slot: the input is saved at
/// once, then minimised in fresh replay workers, de-duplicated by stack signature, reported,
/// and the worker restarted with the rest of its budget. The corpus folder is shared by the
/// workers and persists between runs, so a rerun resumes where a killed one stopped.
public final class Supervisor {
    public struct Configuration: Sendable {
        /// Shell words that start a worker: `<program> fuzz-worker` (arguments are appended).
        public var workerCommand: String
        public var targets: [String]
        /// Corpus root: inputs in `<root>/<target>/`, crashers in `<root>/crashes/<target>/`,
        /// minimised ones in `<root>/regressions/<target>/`.
        public var corpusRoot: String
        public var jobs = 1
        /// Total wall time over all targets, split evenly.
        public var maxTime: Duration = .seconds(60)
        /// Executions per target (over all its jobs); nil: until the time is up.
        public var runs: Int?
        public var seed: UInt64 = 1
        public var inputTimeout: Duration = .seconds(1)
        public var memoryMB = 2048
        /// Trials the minimiser may spend per finding.
        public var minimiseBudget = 300
        /// End a target's run at its first finding (libFuzzer's default; the CLI's
        /// `--stop-on-finding`); otherwise the campaign goes on and counts duplicates.
        public var stopOnFinding = false

        public init(workerCommand: String, targets: [String], corpusRoot: String) {
            self.workerCommand = workerCommand
            self.targets = targets
            self.corpusRoot = corpusRoot
        }
    }

    /// One status report, about once a second.
    public struct Status: Sendable {
        public var target: String
        public var elapsed: Duration
        public var executions: Int
        public var executionsPerSecond: Double
        public var corpus: Int
        public var newInputs: Int
        public var findings: Int
    }

    public let configuration: Configuration
    public var onStatus: (Status) -> Void = { _ in }
    public var onFinding: (CampaignSummary.Finding) -> Void = { _ in }
    private var summary: CampaignSummary
    private var signatures: [StackSignature: Int] = [:]
    private var unreproducedSignatures: [StackSignature: Int] = [:]
    /// Where the running target's clock started and what its jobs have executed: a finding's time-to-find.
    private var targetStart = ContinuousClock.now
    private var executedSoFar: () -> Int = { 0 }

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        summary = CampaignSummary(seed: configuration.seed, jobs: configuration.jobs)
    }

    public func run() throws(CorpusError) -> CampaignSummary {
        let share = configuration.maxTime / max(1, configuration.targets.count)
        for (index, target) in configuration.targets.enumerated() {
            try runTarget(target, index: index, time: share)
        }
        return summary
    }

    private final class Worker {
        let slot: String
        var process: ChildProcess
        var executions = 0       // reported by the live process
        var finished = 0         // executions of its earlier, dead processes
        var done = false
        var lastCounter: UInt64 = 0
        var lastMove = ContinuousClock.now
        var restarts = 0
        init(slot: String, process: ChildProcess) { self.slot = slot; self.process = process }
        var total: Int { finished + executions }
    }

    private func runTarget(_ target: String, index: Int, time: Duration) throws(CorpusError) {
        let corpusDir = "\(configuration.corpusRoot)/\(target)"
        let store = try CorpusStore(directory: corpusDir)
        let initialCorpus = store.names().count
        let findingsBefore = summary.findings.count
        let slots = try makeSlotDirectory()
        let start = ContinuousClock.now
        let deadline = start + time
        let jobs = max(1, configuration.jobs)
        var newInputs = 0, corpusSize = initialCorpus, features = 0, edges = 0, keptForEdges = 0
        var workers: [Worker] = []
        targetStart = start
        executedSoFar = { workers.reduce(0) { $0 + $1.total } }
        for job in 0..<jobs {
            let slot = "\(slots)/slot-\(job)"
            let process = try launch(target, corpus: corpusDir, slot: slot, seed: configuration.seed &+ UInt64(index * 1000 + job),
                                     runs: configuration.runs.map { ($0 + jobs - 1) / jobs }, until: deadline)
            workers.append(Worker(slot: slot, process: process))
        }
        var lastStatus = start
        while workers.contains(where: { !$0.done }) {
            for (job, w) in workers.enumerated() where !w.done {
                // Everything the worker said so far.
                var ended = false
                do {
                    while let line = try w.process.nextLine(until: .now) {
                        let words = String(decoding: line.bytes, as: UTF8.self).split(separator: " ", maxSplits: 3)
                        switch words.first {
                        case "stat":
                            if words.count >= 4 {
                                w.executions = Int(words[1]) ?? w.executions; corpusSize = max(corpusSize, Int(words[2]) ?? 0)
                                // FEATURES [EDGES EDGE-ONLY]: the last two from a coverage build's worker.
                                let counts = words[3].split(separator: " ")
                                features = max(features, Int(counts[0]) ?? 0)
                                if counts.count > 2 { edges = max(edges, Int(counts[1]) ?? 0); keptForEdges = max(keptForEdges, Int(counts[2]) ?? 0) }
                            }
                        case "new": newInputs += 1
                        case "fail" where words.count >= 3:
                            let detail = words.count > 3 ? String(words[3]) : ""
                            handleOracleFailure(target, kind: OracleFailure.Kind(rawValue: String(words[1])) ?? .roundTrip,
                                                input: Hex.decode(String(words[2])) ?? [], detail: detail)
                        case "done": w.done = true
                        default: break
                        }
                    }
                } catch { ended = true }
                if w.done { _ = w.process.terminate(grace: .seconds(1)); continue }
                let counter = InputSlot.counter(w.slot) ?? 0
                let now = ContinuousClock.now
                if counter != w.lastCounter { w.lastCounter = counter; w.lastMove = now }
                // Before its first execution a worker loads the corpus: that is not a hang.
                let hung = counter > 0 && now - w.lastMove > configuration.inputTimeout
                guard ended || hung || !w.process.isRunning else { continue }
                let input = InputSlot.read(w.slot)?.input ?? []
                // The slot counts every execution; the worker's last `stat` may be 200 ms old.
                w.executions = max(w.executions, Int(counter))
                let signature: StackSignature
                // A crashing worker is silent while the backtracer runs: that is not a hang.
                // On a loaded machine the backtracer can take longer than that: a worker whose
                // stderr already shows the runtime's crash report gets more time before it is a hang.
                if hung, !w.process.waitForExit(within: .seconds(2)),
                   !(Self.isReportingCrash(w.process) && w.process.waitForExit(within: .seconds(20))) {
                    _ = w.process.kill()
                    signature = .hang
                } else {
                    signature = Self.signature(of: w.process, kind: .crash)
                }
                try handleDeath(target, input: input, signature: signature)
                // The rest of its budget goes to a fresh process.
                w.finished += w.executions
                w.executions = 0
                w.restarts += 1
                let remaining = configuration.runs.map { max(0, ($0 + jobs - 1) / jobs - w.finished) }
                if ContinuousClock.now >= deadline || remaining == 0 { w.done = true; continue }
                w.process = try launch(target, corpus: corpusDir, slot: w.slot, seed: configuration.seed &+ UInt64(index * 1000 + job) &+ UInt64(w.restarts) << 32,
                                       runs: remaining, until: deadline)
                w.lastCounter = 0
                w.lastMove = .now
            }
            if configuration.stopOnFinding, summary.findings.count > findingsBefore {
                for w in workers where !w.done { w.finished += w.executions; w.executions = 0; _ = w.process.kill(); w.done = true }
            }
            let now = ContinuousClock.now
            if now - lastStatus >= .seconds(1) {
                lastStatus = now
                onStatus(status(target, start: start, workers: workers, corpus: corpusSize, newInputs: newInputs))
            }
            // The workers need the CPU more than the supervisor does.
            usleep(20_000)
            // A worker past its deadline by far is stuck somewhere no counter shows.
            if now > deadline + .seconds(10) {
                for w in workers where !w.done { _ = w.process.kill(); w.done = true }
            }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let executions = workers.reduce(0) { $0 + $1.total }
        summary.targets.append(CampaignSummary.TargetRun(
            target: target, executions: executions, seconds: seconds, executionsPerSecond: seconds > 0 ? Double(executions) / seconds : 0,
            corpusSize: store.names().count, newInputs: newInputs, features: features, coveredEdges: edges, keptForEdgesOnly: keptForEdges,
            workerRestarts: workers.reduce(0) { $0 + $1.restarts }))
        onStatus(status(target, start: start, workers: workers, corpus: store.names().count, newInputs: newInputs))
        rmdirTree(slots)
    }

    private func status(_ target: String, start: ContinuousClock.Instant, workers: [Worker], corpus: Int, newInputs: Int) -> Status {
        let elapsed = ContinuousClock.now - start
        let seconds = max(0.001, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let executions = workers.reduce(0) { $0 + $1.total }
        return Status(target: target, elapsed: elapsed, executions: executions, executionsPerSecond: Double(executions) / seconds,
                      corpus: corpus, newInputs: newInputs, findings: summary.findings.count)
    }

    private func launch(_ target: String, corpus: String, slot: String, seed: UInt64, runs: Int?, until deadline: ContinuousClock.Instant) throws(CorpusError) -> ChildProcess {
        let left = deadline - .now
        let seconds = max(0.1, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        var command = "\(workerEnvironment) exec \(configuration.workerCommand) \(shellQuote(target)) --corpus \(shellQuote(corpus)) --slot \(shellQuote(slot)) --seed \(seed) --max-time \(seconds) --memory-mb \(configuration.memoryMB)"
        if let runs { command += " --runs \(runs)" }
        do { return try ChildProcess(command: command, stderr: .capture(tailBytes: 32 << 10)) } catch {
            throw CorpusError("cannot start a fuzz worker (\(command)): \(error)")
        }
    }

    /// The backtracer on, non-interactive and short: a crash costs a tenth of a second and
    /// leaves the frames `StackSignature` reads.
    let workerEnvironment = "SWIFT_BACKTRACE=enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none,sanitize=no,limit=32"

    /// Replays run without the backtracer: a minimiser's trials that crash then cost a
    /// process start, not a symbolication, and compare by `StackSignature.quick`.
    var replayCommand: (String) -> String {
        { [configuration] target in
            "SWIFT_BACKTRACE=enable=no exec \(configuration.workerCommand) \(shellQuote(target)) --replay --memory-mb \(configuration.memoryMB)"
        }
    }

    // MARK: findings

    private func handleDeath(_ target: String, input: [UInt8], signature: StackSignature) throws(CorpusError) {
        let found = foundNow()
        if let known = signatures[signature] {
            summary.findings[known].duplicates += 1
            return
        }
        // Saved before anything else: if meshconform is killed while minimising, the input
        // that did it is on disk.
        let raw = try save(input, kind: signature.kind, target: target, folder: "crashes")
        let replay = ReplayWorker(command: replayCommand(target), timeout: configuration.inputTimeout)
        // The slot holds the last input handed to the target: a worker that died elsewhere (in
        // the engine's own mutators) left an innocent input there. A crash is a finding only when
        // its input crashes a fresh worker.
        func diesAgain() -> Bool { if case .died = replay.run(input) { true } else { false } }
        if signature.kind == .crash, !diesAgain(), !diesAgain() {
            if let known = unreproducedSignatures[signature] {
                summary.unreproduced[known].duplicates += 1
                return
            }
            unreproducedSignatures[signature] = summary.unreproduced.count
            summary.unreproduced.append(CampaignSummary.Finding(
                target: target, kind: signature.kind, signature: signature.description, detail: signature.message, input: Hex.encode(input),
                originalLength: input.count, regressionPath: raw, rawPath: raw, duplicates: 0, secondsToFind: found.seconds,
                executionsToFind: found.executions))
            return
        }
        var minimiser = Minimiser<UInt8>(budget: signature.kind == .hang ? min(40, configuration.minimiseBudget) : configuration.minimiseBudget)
        let minimised = minimiser.minimise(input) { candidate in
            if case .died(let s) = replay.run(candidate) { return s == signature.quick }
            return false
        }
        record(target, signature: signature, detail: signature.message, input: input, minimised: minimised, raw: raw, found: found)
    }

    private func handleOracleFailure(_ target: String, kind: OracleFailure.Kind, input: [UInt8], detail: String) {
        let found = foundNow()
        // Oracle details carry offsets and re-encoded bytes: the first clause without digits
        // names the broken promise.
        let clause = String(detail.prefix { $0 != ";" && $0 != "(" }).strippingDigits
        let signature = StackSignature(kind: kind, message: clause, frames: [])
        if let known = signatures[signature] { summary.findings[known].duplicates += 1; return }
        guard let raw = try? save(input, kind: kind, target: target, folder: "crashes") else { return }
        let replay = ReplayWorker(command: replayCommand(target), timeout: configuration.inputTimeout)
        var minimiser = Minimiser<UInt8>(budget: configuration.minimiseBudget)
        let minimised = minimiser.minimise(input) { candidate in
            if case .returned(_, let failure) = replay.run(candidate) { return failure == kind }
            return false
        }
        record(target, signature: signature, detail: detail, input: input, minimised: minimised, raw: raw, found: found)
    }

    private func foundNow() -> (seconds: Double, executions: Int) {
        let elapsed = ContinuousClock.now - targetStart
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, executedSoFar())
    }

    private func record(_ target: String, signature: StackSignature, detail: String, input: [UInt8], minimised: [UInt8], raw: String,
                        found: (seconds: Double, executions: Int)) {
        let regression = (try? save(minimised, kind: signature.kind, target: target, folder: "regressions")) ?? raw
        let finding = CampaignSummary.Finding(target: target, kind: signature.kind, signature: signature.description, detail: detail,
                                              input: Hex.encode(minimised), originalLength: input.count, regressionPath: regression,
                                              rawPath: raw, duplicates: 0, secondsToFind: found.seconds, executionsToFind: found.executions)
        signatures[signature] = summary.findings.count
        summary.findings.append(finding)
        onFinding(finding)
    }

    private func save(_ input: [UInt8], kind: OracleFailure.Kind, target: String, folder: String) throws(CorpusError) -> String {
        let store = try CorpusStore(directory: "\(configuration.corpusRoot)/\(folder)/\(target)")
        let name = try store.add(input)
        return "\(store.directory)/\(name)"
    }

    // MARK: process plumbing

    /// Whether the worker is crashing rather than spinning: its stderr shows the Swift
    /// runtime's crash report, or it is not running but waiting (on the backtracer, its
    /// child). A decoder that hangs spins: it does no I/O. Release builds trap without a
    /// message, so the state is what tells on a loaded machine.
    static func isReportingCrash(_ process: ChildProcess) -> Bool {
        let tail = process.stderrTail
        if tail.contains("Fatal error") || tail.contains("Program crashed") { return true }
        guard let stat = CorpusStore.readFile("/proc/\(process.pid)/stat"), let close = stat.lastIndex(of: UInt8(ascii: ")")),
              close + 2 < stat.count else { return false }
        return stat[close + 2] != UInt8(ascii: "R")
    }

    /// Waits for a dying worker (the backtracer needs a moment), reaps it and reads its stderr.
    static func signature(of process: ChildProcess, kind: OracleFailure.Kind) -> StackSignature {
        _ = process.waitForExit(within: .seconds(3))
        let status = process.terminate(grace: .milliseconds(200))
        var signal: Int32?
        if case .signalled(let s) = status { signal = s }
        var signature = StackSignature.parse(kind: kind, stderr: process.stderrTail, signal: signal)
        if signature.message == "could not allocate memory" { signature.kind = .allocation }
        return signature
    }

    private func makeSlotDirectory() throws(CorpusError) -> String {
        var template = Array("/tmp/meshfuzz-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CorpusError("cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    private func rmdirTree(_ path: String) {
        let store = try? CorpusStore(directory: path)
        for name in store?.names() ?? [] { unlink("\(path)/\(name)") }
        rmdir(path)
    }
}

func shellQuote(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
