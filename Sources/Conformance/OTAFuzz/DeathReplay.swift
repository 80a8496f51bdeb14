import MeshFuzz

/// Replays step sequences (inputs and link churn) on fresh DUTs to tell whether they still kill
/// it, and minimises a killing sequence: ddmin over the steps, then ddmin over the bytes of
/// each surviving input, each
/// trial on a DUT of its own. Trials cost a DUT start (a process spawn, a reconnect), so both
/// steps run under budgets and keep the best so far.
struct DeathReplay {
    let driver: any DUTDriver
    let capabilities: Capabilities
    /// The seed of the session the death happened in: with a fresh DUT per trial, every
    /// replay repeats its random choices (the DUT's and the probe's).
    let seed: UInt64
    /// Carried over from the campaign and back, so no two liveness messages share a sequence.
    private(set) var livenessSequence: UInt64
    private(set) var trials = 0
    /// Past it no trial runs and every sequence counts as not killing, so bisecting and
    /// minimising stop with the shortest killing sequence found so far.
    let deadline: ContinuousClock.Instant?
    /// The death being reproduced: a trial counts only when the DUT dies the same kind of
    /// death. A DUT that failed (exited, dropped its link) must fail again: a slow answer on a
    /// loaded host (a `silent` death) is not that crash, and keeping the candidate that caused
    /// it would minimise the bug away. nil: either kind counts.
    let original: DUTDeath?

    init(driver: any DUTDriver, capabilities: Capabilities, seed: UInt64, livenessSequence: UInt64 = FuzzedDUT.firstLivenessSequence,
         deadline: ContinuousClock.Instant? = nil, reproducing original: DUTDeath? = nil) {
        self.driver = driver
        self.capabilities = capabilities
        self.seed = seed
        self.livenessSequence = livenessSequence
        self.deadline = deadline
        self.original = original
    }

    /// The shortest suffix of `sequence` that still kills, by bisection (log2 of its length in
    /// trials): `sequence` must kill, and its last input alone must not. A death that needs
    /// earlier inputs (state: the first of two fragments) needs them up to the first one, and
    /// a suffix that keeps them kills again, so the boundary is where bisection finds it.
    mutating func shortestKillingSuffix(_ sequence: [OTAStep]) throws(FuzzStopped) -> [OTAStep] {
        var kills = 0, survives = sequence.count - 1
        while survives - kills > 1 {
            let middle = (kills + survives) / 2
            if try self.kills(Array(sequence[middle...])) { kills = middle } else { survives = middle }
        }
        return Array(sequence[kills...])
    }

    /// Whether writing `sequence` to a fresh DUT leaves it dead the original's kind of death
    /// (either kind without one).
    /// A driver that only reconnects (a device on the air: it may come back fresh, as
    /// `meshconform node --fresh-when-idle` does, or not) first has to show the DUT alive,
    /// else the trial means nothing and the fuzzer stops.
    mutating func kills(_ sequence: [OTAStep]) throws(FuzzStopped) -> Bool {
        if let deadline, ContinuousClock.now >= deadline { return false }
        trials += 1
        let dut: FuzzedDUT
        // A device that keeps state across connections must not see the probe's ids again.
        let trialSeed = driver.startsFreshDUT ? seed : Runner.seed(seed, "replay \(trials)")
        switch try FuzzedDUT.start(driver: driver, capabilities: capabilities, seed: trialSeed, livenessSequence: livenessSequence) {
        case .success(let d): dut = d
        case .failure(let death):
            throw FuzzStopped("the DUT could not be started again for a replay: \(death.reason)")
        }
        defer {
            livenessSequence = dut.livenessSequence
            _ = dut.close()
        }
        if !driver.startsFreshDUT, let death = try dut.liveness() {
            throw FuzzStopped("the DUT does not answer after reconnecting (\(death.reason)); it cannot be restarted from here: restart it and rerun (findings so far are saved)")
        }
        var death = try dut.write(sequence)
        if death == nil { death = try dut.liveness() }
        guard let death else { return false }
        return original.map { $0.kind == death.kind } ?? true
    }

    /// Inputs from tester 1 (the tests' shorthand).
    mutating func kills(_ inputs: [[UInt8]]) throws(FuzzStopped) -> Bool { try kills(inputs.map { OTAStep.input($0) }) }

    /// The shortest sequence found that still kills a fresh DUT, with its inputs shrunk.
    /// `sequence` must kill.
    mutating func minimise(_ sequence: [OTAStep], sequenceBudget: Int, byteBudget: Int) throws(FuzzStopped) -> [OTAStep] {
        var replay = self
        defer { self = replay }
        do {
            var steps = Minimiser<OTAStep>(budget: sequenceBudget)
            var current = try steps.minimise(sequence) { try replay.kills($0) }
            // The byte budget is shared out over the inputs that survived.
            let perInput = byteBudget / max(1, current.count { $0.bytes != nil })
            for index in current.indices where perInput > 0 {
                guard case .input(let input, let tester) = current[index], input.count >= 2 else { continue }
                var bytes = Minimiser<UInt8>(budget: perInput)
                let before = current
                current[index] = .input(try bytes.minimise(input) { candidate in
                    var trial = before
                    trial[index] = .input(candidate, tester: tester)
                    return try replay.kills(trial)
                }, tester: tester)
            }
            return current
        } catch let stopped as FuzzStopped {
            throw stopped
        } catch {
            throw FuzzStopped("\(error)")
        }
    }
}
