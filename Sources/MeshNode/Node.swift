/// A complete mesh node of one dialect, sans-IO (quinn-proto / h11 style): it consumes events
/// with their time and returns the actions its caller must carry out. It does no I/O, reads
/// no clock and draws randomness only from its seed, so the same seed and the same events
/// give the same actions, in unit tests, in the simulator and on a radio alike.
public struct Node {
    public let dialect: DialectName
    public let config: NodeConfig
    private var engine: any DialectEngine

    public init(dialect: DialectName, config: NodeConfig, seed: UInt64) {
        self.dialect = dialect
        self.config = config
        engine = dialect.makeEngine(config: config, seed: seed)
    }

    public var address: NodeAddress { config.address }

    public mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        engine.handle(event, at: now)
    }

    /// What the node holds, for the bounded-memory tests and the simulator's metrics.
    public var stateSize: NodeStateSize { engine.stateSize }

    /// What the node has received so far (message copies and duplicates).
    public var counters: NodeCounters { engine.counters }
}

/// The rules of one dialect (docs/dialects/<name>.md) behind the common node interface.
public protocol DialectEngine {
    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction]
    var stateSize: NodeStateSize { get }
    var counters: NodeCounters { get }
}

/// Counts of what a node keeps; every one of them must stay bounded under hostile traffic.
public struct NodeStateSize: Hashable, Sendable {
    public var dedupEntries = 0
    public var scheduledRelays = 0
    public var reassemblies = 0
    public var storedMessages = 0
    public var timers = 0
    public var other = 0

    public init() {}
    public var total: Int { dedupEntries + scheduledRelays + reassemblies + storedMessages + timers + other }
}

/// The dialects a node can speak.
public enum DialectName: String, CaseIterable, Sendable {
    case relay
    case blemesh
    case bitchat
    case simple
    case camp
    case peat
}
