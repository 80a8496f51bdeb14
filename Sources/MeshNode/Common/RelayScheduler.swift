/// The relay decision (`RelayPolicyKind`) and the queue of relays waiting for their jitter.
///
/// - `.dialect`: always relay (the dialect has already applied its own TTL / de-dup rules),
///   after a delay drawn from the dialect's jitter window; never cancelled.
/// - `.probabilistic` (seed 000): relay with a probability set by the degree (0-2 links 100 %,
///   3-4 90 %, 5-6 70 %, 7+ 45 %), after the dialect's jitter; cancelled when the same message
///   is heard again before the relay fires; at most 20 relays scheduled at once.
/// - `.flood`: relay every new message at once.
///
/// Scheduled relays come back through `.setTimer` / `.timer`: the caller feeds time. What a
/// relay or reply sends is the engine's choice of `Sends`: its actions, or a form that holds
/// less while it waits (`RelayEngine.Fanout`, one packet for several links).
struct RelayScheduler<Key: Hashable, Sends: ScheduledSends> {
    let policy: RelayPolicyKind
    /// How many relays may wait at once; a relay beyond it is dropped.
    let capacity: Int
    /// How many replies (acks, announces, route requests) may wait at once. Separate from
    /// `capacity`: seed 000's limit of 20 is on relays, and a burst of ANNOUNCEs at link-up
    /// must not be thinned by it, nor crowd out the relays.
    let replyCapacity = 1024
    /// The `.noJitter` mutant: every delay is zero.
    let noJitter: Bool

    private struct Pending {
        var sends: Sends
        var isRelay: Bool
    }

    /// Waiting relays and replies by timer id. The message key of a cancellable relay is kept
    /// apart (`messageKeys`), as only `.probabilistic` has one: in every entry it took 25
    /// bytes of 56 (a 10,000-node mesh holds tens of thousands waiting).
    private var pending = TimerTable<Pending>()
    private var byKey: [Key: TimerID] = [:]
    private var messageKeys = TimerTable<Key>()
    private var relaysWaiting = 0

    /// Counters for the simulator's metrics.
    private(set) var scheduled = 0
    private(set) var executed = 0
    private(set) var cancelled = 0
    private(set) var dropped = 0

    init(policy: RelayPolicyKind, noJitter: Bool) {
        self.policy = policy
        self.noJitter = noJitter
        capacity = policy == .probabilistic ? 20 : 1024
    }

    /// Relays and replies waiting for their time: `pending.count`, kept here so that reading it
    /// (the simulator does after every event, for the peak-state metric) does not reach into
    /// the dictionary's storage, a cache miss per node in a large mesh.
    private(set) var count = 0
    /// Relays alone waiting (what `capacity` limits).
    var relays: Int { relaysWaiting }

    /// Seed 000's relay probability for a node with `degree` links.
    static func probability(degree: Int) -> Double {
        switch degree {
        case ...2: 1.0
        case 3...4: 0.9
        case 5...6: 0.7
        default: 0.45
        }
    }

    /// Relays `sends` (those of one relayed message) under the policy: at once, later,
    /// or not at all. Returns what to do now.
    mutating func relay(
        _ sends: consuming Sends, key: Key, degree: Int, window: JitterWindow,
        now: Instant, rng: inout SeededRandom, timers: inout TimerClock
    ) -> [NodeAction] {
        var immediate: [NodeAction] = []
        relay(sends, key: key, degree: degree, window: window, now: now, rng: &rng, timers: &timers, appendingTo: &immediate)
        return immediate
    }

    /// The same, what to do now appended to `out` (`Node.handle(_:at:appendingTo:)`).
    mutating func relay(
        _ sends: consuming Sends, key: Key, degree: Int, window: JitterWindow,
        now: Instant, rng: inout SeededRandom, timers: inout TimerClock, appendingTo out: inout [NodeAction]
    ) {
        guard !sends.isEmpty else { return }
        switch policy {
        case .flood:
            executed += 1
            sends.append(to: &out)
        case .probabilistic:
            guard rng.chance(Self.probability(degree: degree)) else {
                dropped += 1
                return
            }
            later(sends, key: key, isRelay: true, window: window, now: now, rng: &rng, timers: &timers, appendingTo: &out)
        case .dialect:
            later(sends, key: nil, isRelay: true, window: window, now: now, rng: &rng, timers: &timers, appendingTo: &out)
        }
    }

    /// Sends `sends` after a jitter whatever the policy (acks and other replies the dialect
    /// requires): they are not relays, so no probability and no cancellation.
    mutating func reply(
        _ sends: consuming Sends, window: JitterWindow, now: Instant,
        rng: inout SeededRandom, timers: inout TimerClock
    ) -> [NodeAction] {
        guard !sends.isEmpty else { return [] }
        var immediate: [NodeAction] = []
        if policy == .flood {
            sends.append(to: &immediate)
            return immediate
        }
        later(sends, key: nil, isRelay: false, window: window, now: now, rng: &rng, timers: &timers, appendingTo: &immediate)
        return immediate
    }

    /// The message `key` was heard again: under `.probabilistic` its scheduled relay is cancelled.
    /// Inlined: every duplicate heard asks, and only `.probabilistic` has anything to cancel.
    @inline(__always)
    mutating func heardAgain(_ key: Key) -> [NodeAction] {
        policy == .probabilistic ? cancel(key) : []
    }

    private mutating func cancel(_ key: Key) -> [NodeAction] {
        guard let id = byKey.removeValue(forKey: key) else { return [] }
        if pending.removeValue(forKey: Self.key(id)) != nil { count -= 1 }
        messageKeys.removeValue(forKey: Self.messageKeyIndex(id))
        relaysWaiting -= 1
        cancelled += 1
        return [.cancelTimer(id)]
    }

    /// Starts loading what queueing a relay under `id` (the next timer id) writes, or what
    /// `fire(id)` reads first: the entry's slot and the table's header.
    mutating func prefetch(_ id: TimerID) { pending.prefetchEntry(Self.key(id)) }

    /// A timer fired: the relay's sends if it was one of ours, nil otherwise.
    mutating func fire(_ id: TimerID) -> Sends? {
        guard let entry = pending.removeValue(forKey: Self.key(id)) else { return nil }
        count -= 1
        if let key = messageKeys.removeValue(forKey: Self.messageKeyIndex(id)) { byKey[key] = nil }
        if entry.isRelay {
            relaysWaiting -= 1
            executed += 1
        }
        return entry.sends
    }

    private static func key(_ id: TimerID) -> TimerTable<Pending>.Key { .init(owner: 0, id: id.raw) }
    /// The same id as `messageKeys` is indexed (each `TimerTable` has a key type of its own).
    private static func messageKeyIndex(_ id: TimerID) -> TimerTable<Key>.Key { .init(owner: 0, id: id.raw) }

    private mutating func later(
        _ sends: consuming Sends, key: Key?, isRelay: Bool, window: JitterWindow, now: Instant,
        rng: inout SeededRandom, timers: inout TimerClock, appendingTo out: inout [NodeAction]
    ) {
        let delay = noJitter ? 0 : rng.delayNanoseconds(in: window)
        if delay == 0 {
            if isRelay { executed += 1 }
            sends.append(to: &out)
            return
        }
        if let key, byKey[key] != nil { return }   // already waiting to go out
        guard isRelay ? relaysWaiting < capacity : count - relaysWaiting < replyCapacity else {
            if isRelay { dropped += 1 }
            return
        }
        let id = timers.make()
        pending.insert(Pending(sends: sends, isRelay: isRelay), forNewKey: Self.key(id))
        count += 1
        if let key {
            byKey[key] = id
            messageKeys.insert(key, forNewKey: Self.messageKeyIndex(id))
        }
        if isRelay {
            relaysWaiting += 1
            scheduled += 1
        }
        out.append(.setTimer(id, at: Instant(nanoseconds: now.nanoseconds + delay)))
    }
}

/// What a scheduled relay or reply sends when it goes out.
protocol ScheduledSends {
    var isEmpty: Bool { get }
    /// Appends the sends to `actions`.
    consuming func append(to actions: inout [NodeAction])
}

/// The sends themselves, as most engines schedule them.
extension Array: ScheduledSends where Element == NodeAction {
    consuming func append(to actions: inout [NodeAction]) { actions.appendAll(self) }
}
