import MeshNode

/// Everything that defines a run, apart from the node factory.
public struct SimConfig: Sendable {
    public var topology: Topology
    public var workload: Workload
    public var churn: [ChurnEvent]
    /// The run's one seed: link loss and jitter draw from it, and each node's seed derives from it.
    public var seed: UInt64
    /// How long the run continues after the last injected message (retries, late relays).
    public var settle: Duration
    /// Hard stop; default: the last message's time (or the last churn step) + `settle`.
    public var endTime: Instant?
    /// Safety valve against runaway dialects (a mutant that floods forever).
    public var maxEvents: Int
    public var label: String

    public init(topology: Topology, workload: Workload, churn: [ChurnEvent] = [], seed: UInt64 = 0,
                settle: Duration = .seconds(10), endTime: Instant? = nil, maxEvents: Int = .max, label: String = "") {
        self.topology = topology
        self.workload = workload
        self.churn = churn
        self.seed = seed
        self.settle = settle
        self.endTime = endTime
        self.maxEvents = maxEvents
        self.label = label
    }

    var resolvedEndTime: Int64 {
        if let endTime { return endTime.nanoseconds }
        let last = max(workload.messages.map(\.time.nanoseconds).max() ?? 0, churn.map(\.time.nanoseconds).max() ?? 0)
        return last + settle.simNanoseconds
    }
}
