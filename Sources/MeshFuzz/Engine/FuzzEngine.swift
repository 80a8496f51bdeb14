import MeshWire

/// The in-process loop: pick a corpus input, mutate it, run the decoder, judge the outcome,
/// keep inputs that show a behaviour not seen before: a new outcome feature, or, in a build
/// with coverage counters (`EdgeCoverage`), a new edge or hit-count bucket. In a build that
/// also traces comparisons (`ComparisonLog`), some mutants are followed by inputs that put the
/// value a comparison wanted where the input held the other (`InputToState`). It runs inside a worker process (the
/// decoder may trap or hang: the supervisor outside watches for that), or directly in tests
/// with decoders that cannot.
public struct FuzzEngine {
    public let target: FuzzTarget
    public private(set) var corpus: [[UInt8]] = []
    public private(set) var features: Set<UInt64> = []
    public private(set) var executions = 0
    public private(set) var mutator: Mutator
    private var rng: FuzzRandom
    /// Oracle failures already reported, by kind and the feature of the outcome.
    private var reportedFailures: Set<UInt64> = []

    /// What the caller hears about, as it happens.
    public struct Events {
        /// Just before each execution, with the input: the worker copies it where the
        /// supervisor can read it if this execution never returns.
        public var willExecute: ([UInt8]) -> Void = { _ in }
        /// An input showed new behaviour and joined the corpus.
        public var newInput: ([UInt8], UInt64) -> Void = { _, _ in }
        /// An input broke an in-process oracle (first of its kind and outcome).
        public var failure: ([UInt8], OracleFailure) -> Void = { _, _ in }
        public init() {}
    }

    /// Whether edge coverage is part of the feedback: a coverage build, unless
    /// MESHCONFORM_EDGE_FEEDBACK=0 (outcomes alone, for comparison in the same binary).
    public let coverage = EdgeCoverage.isEnabled
    /// Inputs kept for new edges alone: their outcome showed nothing new.
    public private(set) var keptForEdgesOnly = 0
    /// Whether comparison operands are part of the feedback (`ComparisonLog.isEnabled`).
    public let comparisons: Bool
    /// Inputs made from comparisons (`InputToState`) and run, and those kept as new behaviour.
    public private(set) var comparisonInputs = 0
    public private(set) var keptFromComparisons = 0
    /// One mutant in this many is followed by input-to-state candidates: they cost a scan of
    /// the log over the input and an execution each, and most mutants fail the same checks as
    /// their parent did.
    static let comparisonFollowUpEvery = 4
    static let candidatesPerFollowUp = 2

    public init(target: FuzzTarget, seed: UInt64, maxLength: Int = 4096, comparisonFeedback: Bool = ComparisonLog.isEnabled) {
        self.target = target
        comparisons = comparisonFeedback
        mutator = Mutator(target: target, maxLength: maxLength)
        rng = FuzzRandom(seed: seed)
    }

    /// Runs the decoder once and judges the result. Never traps on its own account.
    public func execute(_ input: [UInt8]) -> (outcome: Outcome, failure: OracleFailure?) {
        let outcome: Outcome
        do { outcome = .decoded(try target.decode(input)) } catch { outcome = .refused(error) }
        return (outcome, Oracles.judge(target, input: input, outcome: outcome))
    }

    /// Adds inputs to the corpus without mutation (seeds, or other workers' finds), running
    /// each once so its behaviour counts as seen. Returns how many were new behaviour.
    @discardableResult
    public mutating func admit(_ inputs: [[UInt8]], events: Events = Events()) -> Int {
        var fresh = 0
        for input in inputs {
            mutator.learn(from: input)
            if runOne(input, kinds: [], events: events, persist: false) { fresh += 1 }
            corpus.append(input)
        }
        return fresh
    }

    /// Mutates and runs `count` inputs. The caller loops over this, and looks at the engine
    /// between calls (progress, stop conditions, other workers' inputs).
    public mutating func fuzz(_ count: Int, events: Events) {
        if corpus.isEmpty { admit([[]], events: events) }
        // The log is process-wide: only an engine that reads it turns it on.
        for _ in 0..<count {
            let parent = corpus[rng.below(corpus.count)]
            let other = corpus[rng.below(corpus.count)]
            let (input, kinds) = mutator.mutate(parent, other: other, rng: &rng)
            _ = runOne(input, kinds: kinds, events: events, persist: true)
            if comparisons, rng.oneIn(Self.comparisonFollowUpEvery) { followComparisons(of: input, events: events) }
            if executions % 4096 == 0 { mutator.schedule.recompute() }
        }
    }

    /// Runs the input-to-state candidates of the execution just made (its comparison log).
    private mutating func followComparisons(of input: [UInt8], events: Events) {
        let pairs = ComparisonLog.pairs
        guard !pairs.isEmpty else { return }
        for candidate in InputToState.candidates(input, pairs: pairs, limit: Self.candidatesPerFollowUp, rng: &rng) {
            comparisonInputs += 1
            if runOne(candidate, kinds: [], events: events, persist: true) { keptFromComparisons += 1 }
        }
    }

    private mutating func runOne(_ input: [UInt8], kinds: [MutationKind], events: Events, persist: Bool) -> Bool {
        events.willExecute(input)
        executions += 1
        if coverage { EdgeCoverage.reset() }
        // The log holds this execution's comparisons alone: the engine's own code is
        // instrumented too, and with logging left on it filled the log between executions.
        if comparisons { ComparisonLog.enable(true) }
        let (outcome, failure) = execute(input)
        if comparisons { ComparisonLog.enable(false) }
        let newEdges = coverage && EdgeCoverage.collectNew() > 0
        var fresh = false
        outcome.forEachFeature { if features.insert($0).inserted { fresh = true } }
        if newEdges, !fresh, persist { keptForEdgesOnly += 1 }
        fresh = fresh || newEdges
        if !kinds.isEmpty { mutator.schedule.credit(kinds, found: fresh) }
        if fresh, persist {
            corpus.append(input)
            events.newInput(input, outcome.feature)
        }
        if let failure {
            var key = FeatureHash()
            key.add(failure.kind.rawValue)
            if reportedFailures.insert(key.value ^ outcome.feature).inserted { events.failure(input, failure) }
        }
        return fresh
    }
}
