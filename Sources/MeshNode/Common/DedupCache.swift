import DequeModule

/// A bounded, time-windowed memory of keys seen, for de-duplication (RELAY-R3, BLEMESH-R5) and
/// for the other "seen recently" tables (RELAY-R10 lastSeq, BLEMESH-R15 request ids, relay ack
/// routes). Entries live `retention` after their last insert or update; when more than
/// `capacity` are held the oldest goes first. Every operation is O(1) amortised: a queue in
/// insertion order plus a hash table, expired lazily from the front as time passes.
struct DedupCache<Key: Hashable, Value> {
    let capacity: Int
    let retention: Duration
    /// Which entry goes when more than `capacity` are held: the oldest (every page's rule), or,
    /// for the mutant `evict-arbitrary`, one anywhere in the queue, as a Swift `Set`'s
    /// `removeFirst()` picks one (camp app row 2).
    let eviction: Eviction

    enum Eviction {
        case oldestFirst
        case arbitrary
    }

    private struct Slot {
        var value: Value
        var stamp: Instant
        var serial: UInt64
    }

    /// Insertion order. An update re-queues its key, leaving a stale entry whose serial no
    /// longer matches the table; such entries are skipped (and still count toward
    /// `capacity`, so the queue stays bounded whatever the update pattern).
    private var order: Deque<(key: Key, stamp: Instant, serial: UInt64)> = []
    /// Key -> value, stamp and serial; a `ProbingTable`, one cache line per lookup.
    private var slots = ProbingTable<Key, Slot>()
    private var nextSerial: UInt64 = 0

    init(capacity: Int, retention: Duration, eviction: Eviction = .oldestFirst) {
        precondition(capacity > 0, "a de-duplication cache needs room for at least one key")
        self.capacity = capacity
        self.retention = retention
        self.eviction = eviction
    }

    /// A node's message cache (`seen`): the dialect's capacity and retention, bent by the
    /// mutants that break them (`small-dedup-cache`, `short-retention`, `evict-arbitrary`).
    init(seenBy faults: Set<Fault>, capacity: Int, retention: Duration) {
        self.init(capacity: faults.contains(.smallDedupCache) ? 16 : capacity,
                  retention: faults.contains(.shortRetention) ? .seconds(10) : retention,
                  eviction: faults.contains(.evictArbitrary) ? .arbitrary : .oldestFirst)
    }

    /// Keys currently remembered.
    var count: Int { slots.count }

    /// Queue entries held, live or stale: the memory actually in use. Kept here rather than
    /// read from the queue: the simulator asks every node for it after every event, and the
    /// queue's count lives in its storage, one more cache miss per cache.
    private(set) var footprint = 0

    func contains(_ key: Key, at now: Instant) -> Bool { value(for: key, at: now) != nil }

    func value(for key: Key, at now: Instant) -> Value? {
        guard let slot = slots[key], now - slot.stamp < retention else { return nil }
        return slot.value
    }

    /// Remembers `key` with `value` unless it is already present; true when it was new.
    @discardableResult
    mutating func insert(_ key: Key, value: Value, at now: Instant) -> Bool {
        expire(at: now)
        guard slots[key] == nil else { return false }
        push(key, value, now)
        return true
    }

    /// Sets `key`'s value and restarts its retention.
    mutating func update(_ key: Key, value: Value, at now: Instant) {
        expire(at: now)
        push(key, value, now)
    }

    mutating func remove(_ key: Key) { slots[key] = nil }

    /// Forgets every entry older than the retention window.
    mutating func expire(at now: Instant) {
        while let first = order.first, now - first.stamp >= retention {
            dropFront()
        }
    }

    private mutating func push(_ key: Key, _ value: Value, _ now: Instant) {
        nextSerial &+= 1
        slots[key] = Slot(value: value, stamp: now, serial: nextSerial)
        order.append((key, now, nextSerial))
        footprint += 1
        while footprint > capacity {
            switch eviction {
            case .oldestFirst: dropFront()
            case .arbitrary: dropArbitrary()
            }
        }
    }

    /// The mutant's eviction: an entry at a position that looks random but is fixed by the
    /// insert count (splitmix64 of the serial), so every run of the mutant evicts alike. O(n).
    private mutating func dropArbitrary() {
        var h = nextSerial &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        let entry = order.remove(at: Int((h ^ (h >> 31)) % UInt64(order.count)))
        footprint -= 1
        if slots[entry.key]?.serial == entry.serial { slots[entry.key] = nil }
    }

    private mutating func dropFront() {
        let entry = order.removeFirst()
        footprint -= 1
        // Only the queue entry carrying the live serial owns the key; older ones are stale.
        if slots[entry.key]?.serial == entry.serial { slots[entry.key] = nil }
    }
}

extension DedupCache where Value == Void {
    /// Remembers `key`; true when it was new (not seen within the retention window).
    @discardableResult
    mutating func insert(_ key: Key, at now: Instant) -> Bool { insert(key, value: (), at: now) }
}
