/// A complete mesh node of one dialect, sans-IO (quinn-proto / h11 style): it consumes events
/// with their time and returns the actions its caller must carry out. It does no I/O, reads
/// no clock and draws randomness only from its seed, so the same seed and the same events
/// give the same actions, in unit tests, in the simulator and on a radio alike.
public struct Node {
    // What every event reads first (a simulated mesh holds thousands of nodes in one array).
    /// Whether `relay` is set: tested instead of `relay` itself, whose `Optional` is told from
    /// its payload by a call (the engine's fields, not a tag byte, mark it nil), on every event.
    private let isRelay: Bool
    /// How often the node sends its background traffic (`chatter`) on every link, besides on
    /// each new link: the `chatty` mutant's 500 ms, or the page's announce period when the node
    /// announces like the apps (`NodeConfig.announces`); nil: it sends none.
    private let chatterPeriod: Duration?
    /// A relay node's engine, held in the node itself: behind `other`'s existential box it
    /// costs a pointer chase (a cache miss in a mesh of thousands of nodes) and a uniqueness
    /// check of the box on every event. Exactly one of `relay` and `other` is set.
    private var relay: RelayEngine?
    /// The engine of every other dialect.
    private var other: (any DialectEngine)?
    public let dialect: DialectName
    public let config: NodeConfig
    /// The links the background traffic goes to, and whether its timer is set.
    private var chattyLinks: Set<LinkID> = []
    private var chattyTimerSet = false

    public init(dialect: DialectName, config: NodeConfig, seed: UInt64) {
        self.dialect = dialect
        self.config = config
        let engine = dialect.makeEngine(config: config, seed: seed)
        if let engine = engine as? RelayEngine { relay = engine } else { other = engine }
        isRelay = relay != nil
        chatterPeriod = config.faults.contains(.chatty) ? Self.chattyPeriod : config.announces ? engine.announcePeriod : nil
    }

    public var address: NodeAddress { config.address }

    public mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        guard let chatterPeriod else { return engineHandle(event, at: now) }
        return chatty(event, period: chatterPeriod, at: now)
    }

    /// The same actions as `handle(_:at:)`, appended to `actions`: a caller that handles many
    /// events (the simulator) keeps one array for all of them instead of receiving a new one
    /// per event (an allocation and a free).
    public mutating func handle(_ event: NodeEvent, at now: Instant, appendingTo actions: inout [NodeAction]) {
        if isRelay, chatterPeriod == nil {
            withRelay { $0.handle(event, at: now, appendingTo: &actions) }
        } else {
            actions.appendAll(handle(event, at: now))
        }
    }

    private mutating func engineHandle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        if relay != nil { return relay!.handle(event, at: now) }
        return other!.handle(event, at: now)
    }

    private mutating func engineChatter(_ occasion: ChatterOccasion, at now: Instant) -> [NodeAction] {
        if relay != nil { return relay!.chatter(occasion, at: now) }
        return other!.chatter(occasion, at: now)
    }

    /// The engine's own behaviour, plus its background traffic (`chatter`) on every new link and
    /// on every link every `period`, as the apps talk on their own.
    private mutating func chatty(_ event: NodeEvent, period: Duration, at now: Instant) -> [NodeAction] {
        if case .timer(let id) = event, id == Self.chattyTimer {
            chattyTimerSet = false
            guard !chattyLinks.isEmpty else { return [] }
            chattyTimerSet = true
            return engineChatter(.tick(chattyLinks.sorted()), at: now).filter(isChattyLive) + [.setTimer(Self.chattyTimer, at: now + period)]
        }
        var actions = engineHandle(event, at: now)
        for case .disconnect(let link) in actions { chattyLinks.remove(link) }
        switch event {
        case .linkUp(let link, _, _) where !actions.contains(.disconnect(link)):
            chattyLinks.insert(link)
            actions += engineChatter(.linkUp(link), at: now)
            if !chattyTimerSet {
                chattyTimerSet = true
                actions.append(.setTimer(Self.chattyTimer, at: now + period))
            }
        case .linkDown(let link): chattyLinks.remove(link)
        default: break
        }
        return actions
    }

    private func isChattyLive(_ action: NodeAction) -> Bool {
        if case .send(_, let link) = action { return chattyLinks.contains(link) }
        return true
    }

    /// Starts loading the state the node will read for `upcoming`, its next event: a hint for a
    /// caller that handles thousands of nodes and knows the next events ahead (the simulator).
    /// In a large mesh each event touches a different node, and what it reads first (its de-dup
    /// entry, its pending relay) is a cache miss; started one event early, the load overlaps the
    /// work of the event before. Changes nothing: a node that is never told behaves the same.
    /// Mutating only so that the engine is reached in place: a non-mutating call copied the
    /// whole engine out of its `Optional` first.
    ///
    /// Returns the id a timer this input sets would take (its `setTimer` action's), when the
    /// node knows it, so that the caller can load ahead its own record of that timer too: a
    /// relay node hearing a new beacon sets its relay's timer, and the simulator's table of
    /// every node's timers is as large as a miss on it is certain. A hint as well: the input
    /// may set no timer at all (a duplicate heard, most of them).
    @discardableResult
    public mutating func prefetch(for upcoming: UpcomingInput) -> TimerID? {
        isRelay ? withRelay { $0.prefetch(for: upcoming) } : nil
    }

    /// The relay engine in place, for a node whose `isRelay` is true: an `Optional` holds its
    /// payload at its start, so no check of the `Optional` (see `isRelay`) is needed to reach it.
    private mutating func withRelay<R>(_ body: (inout RelayEngine) -> R) -> R {
        withUnsafeMutablePointer(to: &relay) { body(&UnsafeMutableRawPointer($0).assumingMemoryBound(to: RelayEngine.self).pointee) }
    }

    /// Whether every timer this node sets has an id it never set before, each higher than the
    /// last, and every timer it cancels is still pending (what `MeshSim`'s `SimNode` asks): so
    /// for a relay node, whose timers all come from its `TimerClock` (the relay scheduler cancels
    /// only relays still waiting), unless the background traffic's fixed timer is in use.
    public var timerIDsAreFresh: Bool { isRelay && chatterPeriod == nil }

    /// Engines number their timers from 1 (TimerClock): the top id is free for the background traffic's.
    public static let chattyTimer = TimerID(UInt64.max)
    public static let chattyPeriod: Duration = .milliseconds(500)

    /// What the node holds, for the bounded-memory tests and the simulator's metrics.
    /// Read after every event in a simulation: a relay node's through `isRelay`, without the
    /// check of its `Optional` (a call).
    public var stateSize: NodeStateSize { isRelay ? relay.unsafelyUnwrapped.stateSize : other!.stateSize }

    /// What the node has received so far (message copies and duplicates).
    public var counters: NodeCounters { relay?.counters ?? other!.counters }
}

/// The rules of one dialect (docs/dialects/<name>.md) behind the common node interface.
public protocol DialectEngine {
    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction]
    /// The background traffic the dialect's apps send on their own, conforming to the page
    /// (announces, beacons, documents, own messages), for the positive-control mutant `chatty`.
    mutating func chatter(_ occasion: ChatterOccasion, at now: Instant) -> [NodeAction]
    /// The period of the announce the page says a node sends on its own on every link, besides
    /// on each new link (bitchat's announce, camp's announcement): what `chatter` sends when the
    /// node announces like the apps (`NodeConfig.announces`). Nil where the engine sends its own
    /// (relay beacons, blemesh ANNOUNCE, peat documents) or the page has none (simple).
    var announcePeriod: Duration? { get }
    var stateSize: NodeStateSize { get }
    var counters: NodeCounters { get }
}

extension DialectEngine {
    var announcePeriod: Duration? { nil }
}

/// When the node sends its background traffic (the `chatty` mutant, or announces like the apps).
public enum ChatterOccasion: Hashable, Sendable {
    /// A link just came up.
    case linkUp(LinkID)
    /// The periodic tick, with the links up.
    case tick([LinkID])

    var links: [LinkID] {
        switch self {
        case .linkUp(let link): [link]
        case .tick(let links): links
        }
    }
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
