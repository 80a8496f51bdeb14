import MeshNode

/// What the simulator runs at each vertex: anything that takes events with their time and
/// returns actions. `Node` is the one that matters; the protocol lets the simulator's own
/// tests drive it with a tiny hand-written node whose every action is known in advance.
public protocol SimNode {
    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction]
    /// The same actions appended to `actions` (`Node.handle(_:at:appendingTo:)`).
    mutating func handle(_ event: NodeEvent, at now: Instant, appendingTo actions: inout [NodeAction])
    var stateSize: NodeStateSize { get }
    /// Running totals for the copy and duplicate metrics; a node that keeps none reports zeros.
    var counters: NodeCounters { get }
    /// Starts loading what the node will read for its next event (`Node.prefetch(for:)`), and
    /// returns the id of a timer the event may set.
    mutating func prefetch(for upcoming: UpcomingInput) -> TimerID?
    /// Whether every `setTimer` of this node names an id it has not set before (since it was
    /// made: a node made again after a failure starts afresh), in increasing order, and every
    /// `cancelTimer` one it set that has not fired. Then a timer can never be replaced, and the
    /// simulator keeps no record of it beside its event (`SimEvent.ownTimer`): one random access
    /// into a table of every node's timers less when it is set and when it fires.
    var timerIDsAreFresh: Bool { get }
}

extension SimNode {
    public mutating func handle(_ event: NodeEvent, at now: Instant, appendingTo actions: inout [NodeAction]) {
        actions.append(contentsOf: handle(event, at: now))
    }
    public var counters: NodeCounters { NodeCounters() }
    /// A node that keeps no large state has nothing to load ahead.
    public mutating func prefetch(for upcoming: UpcomingInput) -> TimerID? { nil }
    /// Unknown, so the simulator checks every timer against its table.
    public var timerIDsAreFresh: Bool { false }
}

extension Node: SimNode {}

/// What the simulator tells a node factory about the node it wants.
public struct NodeSpec: Sendable {
    public var index: Int
    public var address: NodeAddress
    /// Derived from the run's seed and the node index (and the restart count).
    public var seed: UInt64
    /// 0 at first start, +1 at each join after a failure.
    public var generation: Int
}

extension NodeSpec {
    /// A stable 16-byte address for node `index` (the same in every run), so addresses can be
    /// UUIDs for the UUID-based dialects and mapped back to node numbers.
    public static func address(of index: Int) -> NodeAddress {
        var mixer = SeededRandom(seed: UInt64(truncatingIfNeeded: index) &+ 0x4D45_5348_5349_4D00)
        let high = mixer.next(), low = mixer.next()
        var bytes: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: low >> UInt64(shift))) }
        return NodeAddress(bytes: bytes)
    }
}
