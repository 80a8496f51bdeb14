import Foundation
import MeshFuzz
import MeshNode
import MeshWire

/// How an over-the-air campaign runs (docs/fuzzing.md, "Over the air").
public struct OTAFuzzConfiguration: Sendable {
    /// Inputs written between two liveness probes, at first: each batch the DUT survives
    /// doubles the next one, up to `maxBatchSize`, so a sound DUT pays for few probes and a
    /// death is bisected (`DeathReplay.shortestKillingSuffix`) rather than replayed in full.
    public var batchSize = 16
    public var maxBatchSize = 1024
    /// Wall time for fuzzing; the minimising of a death in hand may run past it by its budget.
    public var maxTime: Duration = .seconds(60)
    /// Inputs to write at most (nil: until `maxTime`).
    public var maxInputs: Int?
    public var seed: UInt64 = 1
    /// Root of the findings folders.
    public var findingsRoot = "ota-findings"
    /// Valid units to mutate besides the probe's own (the unit format's golden vectors).
    public var extraSeeds: [[UInt8]] = []
    /// Valid golden vectors of the dialect's formats by format: inner messages to mutate
    /// (control messages) and the tokens of the field vocabulary.
    public var vectors: [FormatID: [[UInt8]]] = [:]
    /// Mutate inner messages and rebuild their layers (`LayeredInputs`); false: mutate the
    /// units only, as before (for comparisons).
    public var layered = true
    public var stopOnFinding = false
    /// Replays for ddmin over a killing sequence, and for shrinking the bytes of its inputs.
    public var sequenceBudget = 64
    public var byteBudget = 96
    /// Wall time for reproducing and minimising one death (trials past it are not run; the
    /// shortest killing sequence found so far is kept): a hang costs the driver's whole
    /// timeout per trial.
    public var minimiseTime: Duration = .seconds(60)
    /// A session is replaced by a fresh one after this many inputs, which bounds what a
    /// death's replays have to cover, the DUT's outputs per session (the process driver's
    /// flood bound) and what the session keeps in memory.
    public var inputsPerSession = 4096
    /// Link churn between inputs (`LinkChurn`): a tester's link dropped and restored, or the
    /// inputs' link changed, inside batches. `.none` for comparisons with the campaign before.
    public var linkChurn = LinkChurn()

    public init() {}
}

/// What stops a campaign before it starts: bad use, so the CLI exits 2 with this message.
public struct OTAFuzzSetupError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Over-the-air fuzzing of any DUT through any driver: mutated units of the dialect, written in
/// batches by tester 1, each batch followed by a liveness probe; a DUT that stops answering
/// (or that its driver reports gone) is a finding, replayed and minimised on fresh DUTs.
public final class OTAFuzzCampaign {
    public struct Status: Sendable {
        public var elapsed: Duration
        public var batches: Int
        public var inputs: Int
        public var inputsPerSecond: Double
        public var dutStarts: Int
        public var findings: Int
    }

    public var onStatus: ((Status) -> Void)?
    public var onFinding: ((OTAFinding) -> Void)?

    let driver: any DUTDriver
    let capabilities: Capabilities
    let configuration: OTAFuzzConfiguration
    let probe: any DialectProbe
    private let store: FindingStore
    private var summary: OTAFuzzSummary
    private var signatures: [String: Int] = [:]
    private let clock = ContinuousClock()
    /// The seed of the current session, and the next liveness message's sequence number
    /// (carried from session to session).
    private var sessionSeed: UInt64 = 0
    private var livenessSequence = FuzzedDUT.firstLivenessSequence

    public init(driver: any DUTDriver, capabilities: Capabilities, configuration: OTAFuzzConfiguration) throws(OTAFuzzSetupError) {
        guard let probe = capabilities.dialect.makeProbe() else {
            throw OTAFuzzSetupError(description: "dialect \(capabilities.dialect.rawValue) has no conformance probe yet, so there is no liveness probe to fuzz it over the air with; dialects with one: \(DialectName.probed.map(\.rawValue).joined(separator: ", "))")
        }
        guard capabilities.maxLinks >= 2 else {
            throw OTAFuzzSetupError(description: "fuzzing over the air needs two tester links (inputs on one, relays observed on the other); the DUT allows \(capabilities.maxLinks) (over HCI: give two --adapter)")
        }
        guard configuration.batchSize >= 1, configuration.maxBatchSize >= configuration.batchSize, configuration.maxTime > .zero else {
            throw OTAFuzzSetupError(description: "the batch sizes and the time limit must be positive, and the largest batch at least the first")
        }
        var caps = capabilities
        // A campaign is one long session: the per-check budget does not apply.
        caps.checkBudgetSeconds = 1e8
        self.driver = driver
        self.capabilities = caps
        self.configuration = configuration
        self.probe = probe
        store = FindingStore(root: configuration.findingsRoot)
        summary = OTAFuzzSummary(dialect: caps.dialect.rawValue, dut: driver.name, seed: configuration.seed, batchSize: configuration.batchSize,
                                 maxBatchSize: configuration.maxBatchSize)
    }

    /// The catalog format of one unit of `dialect` on a link (its golden vectors make good
    /// seeds), when the dialect's probe names one.
    public static func unitFormat(of dialect: DialectName) -> FormatID? { dialect.makeProbe()?.unitFormat }

    /// Runs until the time or input budget is spent, the first finding (with `stopOnFinding`),
    /// or the DUT can no longer be fuzzed (INCONC in the summary). Never throws: whatever the
    /// DUT does ends in the summary.
    public func run() -> OTAFuzzSummary {
        let started = clock.now
        do {
            try fuzz(started: started)
        } catch {
            summary.inconclusive = error.description
        }
        summary.seconds = (clock.now - started).seconds
        return summary
    }

    private func fuzz(started: ContinuousClock.Instant) throws(FuzzStopped) {
        var rng = FuzzRandom(seed: configuration.seed)
        // The seeds' message ids come from a seed of their own, so that no session's probe
        // (whose ids come from the session's seed) builds a liveness message with a seed's id.
        _ = try? probe.setup(capabilities: capabilities, seed: configuration.seed ^ 0x5EED_5EED_5EED_5EED)
        let messages = FuzzSeeds.messages(probe: probe, defaultTTL: DialectParameters.of(capabilities.dialect).defaultTTL)
        let seeds = FuzzSeeds.units(of: messages, probe: probe) + configuration.extraSeeds
        guard !seeds.isEmpty else { throw FuzzStopped("the \(capabilities.dialect.rawValue) probe built no valid unit to mutate") }
        var inputs = OTAInputs(units: seeds, layered: configuration.layered ? LayeredInputs.seeds(messages: messages, vectors: configuration.vectors) : [],
                               unitFormat: probe.unitFormat, maxUnit: DialectParameters.of(capabilities.dialect).maxUnit, vectors: configuration.vectors)

        var dut = try startAlive(first: true)
        defer { _ = dut.close() }
        var history: [OTAStep] = []
        var batchSize = configuration.batchSize
        while clock.now - started < configuration.maxTime, summary.inputs < (configuration.maxInputs ?? .max) {
            let count = min(batchSize, (configuration.maxInputs ?? .max) - summary.inputs, configuration.inputsPerSession - history.count)
            // A mutant's units (a chunk set, fragments) stay in one batch.
            let inputBatch = inputs.batch(atLeast: max(1, count), rng: &rng)
            let batch = configuration.linkChurn.steps(inputBatch, rng: &rng)
            let before = history.count
            history += batch
            let uncarried = dut.uncarried
            var death = try dut.write(batch)
            summary.uncarried += dut.uncarried - uncarried
            if death == nil { death = try dut.liveness() }
            summary.inputs += inputBatch.count
            if batch.contains(where: { if case .input(_, 1) = $0 { false } else { true } }) { summary.churnedBatches += 1 }
            summary.batches += 1
            report(started)
            if let death {
                // Everything after the input the death surfaced on was never written.
                history.removeLast(batch.count - 1 - (dut.failedAt ?? batch.count - 1))
                let diagnostics = dut.close()
                livenessSequence = dut.livenessSequence
                try found(death, history: history, batchStart: before, diagnostics: diagnostics, at: clock.now - started)
                report(started)
                if configuration.stopOnFinding { return }
                batchSize = configuration.batchSize
            } else if history.count < configuration.inputsPerSession {
                batchSize = min(batchSize * 2, configuration.maxBatchSize)
                continue
            } else {
                _ = dut.close()
                livenessSequence = dut.livenessSequence
            }
            // A fresh session: after a death, or when this one has had its share of inputs.
            dut = try startAlive(first: false)
            history = []
        }
    }

    /// A new session whose DUT answers the liveness probe. The first must answer, or there is
    /// nothing to fuzz; later ones restart a DUT that died, which only drivers that start
    /// fresh DUTs can promise.
    private func startAlive(first: Bool) throws(FuzzStopped) -> FuzzedDUT {
        summary.dutStarts += 1
        // Each session its own seed (the DUT's and the probe's random choices, blemesh's
        // envelope ids): a device that keeps state across reconnections sees new messages.
        sessionSeed = Runner.seed(configuration.seed, "ota session \(summary.dutStarts)")
        let dut: FuzzedDUT
        switch try FuzzedDUT.start(driver: driver, capabilities: capabilities, seed: sessionSeed, livenessSequence: livenessSequence) {
        case .success(let d): dut = d
        case .failure(let death):
            throw FuzzStopped("the DUT could not be \(first ? "started" : "started again"): \(death.reason)")
        }
        if let death = try dut.liveness() {
            let diagnostics = dut.close().map { "; DUT diagnostics: \($0)" } ?? ""
            throw FuzzStopped(first
                ? "the DUT does not relay or ack a valid message before any fuzz input (\(death.reason))\(diagnostics); check the dialect and the capabilities"
                : "the DUT does not answer after \(driver.startsFreshDUT ? "a restart" : "reconnecting") (\(death.reason))\(diagnostics); restart it and rerun (findings so far are saved)")
        }
        return dut
    }

    /// A death: the batch is saved at once as it was, then reproduced and bisected on fresh
    /// (or reconnected and alive) DUTs, minimised, classified, and saved under its signature.
    /// `history` is the session's inputs up to the one the death surfaced on, the last batch
    /// from `batchStart`.
    private func found(_ death: DUTDeath, history: [OTAStep], batchStart: Int, diagnostics: String?, at elapsed: Duration) throws(FuzzStopped) {
        let dialect = capabilities.dialect.rawValue
        let batch = Array(history[batchStart...])
        let rawName = "unminimised-" + CorpusStore.name(of: Array(batch.map(\.text).joined(separator: " ").utf8)).prefix(16)
        var finding = OTAFinding(dialect: dialect, dut: driver.name, kind: death.kind, reason: death.reason, signature: "",
                                 sequence: batch.map(\.text), decoderVerdicts: batch.map(verdict),
                                 originalInputs: batch.count, originalBytes: Self.bytes(batch),
                                 reproduction: .notTried, minimised: false, trials: 0, diagnostics: diagnostics, path: "", duplicates: 0,
                                 secondsToFind: elapsed.seconds, inputsToFind: summary.inputs)
        finding.signature = signature(death, finding.decoderVerdicts, minimised: false)
        finding.path = try store.save(batch, finding, name: String(rawName))
        var replay = DeathReplay(driver: driver, capabilities: capabilities, seed: sessionSeed, livenessSequence: livenessSequence,
                                 deadline: clock.now + configuration.minimiseTime, reproducing: death)
        defer {
            summary.replays += replay.trials
            livenessSequence = replay.livenessSequence
        }
        let killing: [OTAStep]
        var reproduced = batch
        let minimal: [OTAStep]
        do {
            // The input the death surfaced on alone, else the batch up to it, else the
            // session's history: the shortest that kills is bisected to its shortest killing
            // suffix (a crash on a sequence ends with the input that triggers it).
            if try replay.kills([batch[batch.count - 1]]) {
                killing = [batch[batch.count - 1]]
                finding.reproduction = .batch
            } else if batch.count > 1, try replay.kills(batch) {
                killing = try replay.shortestKillingSuffix(batch)
                finding.reproduction = .batch
            } else if history.count > batch.count, try replay.kills(history) {
                killing = try replay.shortestKillingSuffix(history)
                reproduced = history
                finding.reproduction = .history
            } else {
                finding.reproduction = .notReproduced
                finding.trials = replay.trials
                finding.path = try store.save(batch, finding, name: String(rawName))
                record(finding)
                return
            }
            minimal = try replay.minimise(killing, sequenceBudget: configuration.sequenceBudget, byteBudget: configuration.byteBudget)
        } catch {
            // The DUT could not be replayed against (a device that stays dead after
            // reconnecting): the batch as it was is the finding, and the campaign ends.
            finding.trials = replay.trials
            record(finding)
            throw error
        }
        finding.minimised = true
        finding.sequence = minimal.map(\.text)
        finding.decoderVerdicts = minimal.map(verdict)
        finding.originalInputs = reproduced.count
        finding.originalBytes = Self.bytes(reproduced)
        finding.trials = replay.trials
        finding.signature = signature(death, finding.decoderVerdicts, minimised: true)
        store.remove(dialect: dialect, name: String(rawName))
        if let known = signatures[finding.signature] {
            summary.findings[known].duplicates += 1
            let saved = summary.findings[known]
            _ = try store.save(FindingStore.steps(in: saved.path), saved, name: URL(fileURLWithPath: saved.path).lastPathComponent)
            return
        }
        finding.path = try store.save(minimal, finding, name: String(CorpusStore.name(of: Array(finding.signature.utf8)).prefix(16)))
        record(finding)
    }

    private func record(_ finding: OTAFinding) {
        signatures[finding.signature] = summary.findings.count
        summary.findings.append(finding)
        onFinding?(finding)
    }

    static func bytes(_ steps: [OTAStep]) -> Int { steps.reduce(0) { $0 + ($1.bytes?.count ?? 0) } }

    /// How the tester reads an input as a unit of the dialect (`DialectProbe.hear`, on a probe
    /// of its own: the reading a DUT's decoder should agree with): "valid", "incomplete" (a
    /// chunk of a longer message) or the error code; for link churn, the step (`relink T1`).
    private func verdict(_ step: OTAStep) -> String {
        guard case .input(let input, _) = step else { return step.text }
        guard let reader = capabilities.dialect.makeProbe() else { return "?" }
        _ = try? reader.setup(capabilities: capabilities, seed: configuration.seed)
        switch reader.hear(input, on: LinkID(1)) {
        case .malformed(let error)?: return error.code.rawValue
        case nil: return "incomplete"
        default: return "valid"
        }
    }

    /// Kind, for a failure its reason without numbers (exit codes, pids and times vary), and
    /// the decoder's view of each input, so the same bug found twice is one finding.
    private func signature(_ death: DUTDeath, _ verdicts: [String], minimised: Bool) -> String {
        var text = death.kind
        if case .failed(let reason) = death {
            let stable = reason.split(separator: ";").first.map(String.init) ?? reason
            text += " (\(String(stable.filter { !$0.isNumber }.prefix(100))))"
        }
        text += " after \(minimised ? "" : "an unminimised ")[\(verdicts.joined(separator: ", "))]"
        return text
    }

    private func report(_ started: ContinuousClock.Instant) {
        guard let onStatus else { return }
        let elapsed = clock.now - started
        onStatus(Status(elapsed: elapsed, batches: summary.batches, inputs: summary.inputs,
                        inputsPerSecond: elapsed > .zero ? Double(summary.inputs) / elapsed.seconds : 0,
                        dutStarts: summary.dutStarts, findings: summary.findings.count))
    }
}
