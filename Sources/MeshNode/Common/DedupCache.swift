/// A bounded, time-windowed memory of keys seen, for de-duplication (RELAY-R3, BLEMESH-R5) and
/// for the other "seen recently" tables (RELAY-R10 lastSeq, BLEMESH-R15 request ids, relay ack
/// routes). Entries live `retention` after their last insert or update; when more than
/// `capacity` are held the oldest goes first. Every operation is O(1) amortised: a queue in
/// insertion order plus a hash table of indices into it, expired lazily from the front as time
/// passes.
///
/// The queue holds each key once, with its value and time; the table holds 4-byte indices
/// into the queue. A simulated mesh of thousands of nodes keeps thousands of these caches, and
/// each lookup touches a different one: what decides the cost is how many of them fit in the
/// processor's cache, so an entry is kept as small as its key, value and time allow.
struct DedupCache<Key: DedupKey, Value> {
    let capacity: Int
    let retention: Duration
    /// `retention` in whole nanoseconds, rounded up: an entry `d` ns old is live when
    /// `d < retentionNanoseconds`, as when `Duration.nanoseconds(d) < retention` (compared here
    /// without building a 128-bit `Duration` per lookup).
    private let retentionNanoseconds: Int64
    /// Which entry goes when more than `capacity` are held: the oldest (every page's rule), or,
    /// for the mutant `evict-arbitrary`, one anywhere in the queue, as a Swift `Set`'s
    /// `removeFirst()` picks one (camp app row 2).
    let eviction: Eviction

    enum Eviction {
        case oldestFirst
        case arbitrary
    }

    /// One insert or update. Fields in this order so that padding is least (a `Bool` after a
    /// key whose size is not a multiple of 8 costs nothing).
    private struct Entry {
        var key: Key
        var value: Value
        /// False once the key was updated (its newer entry is the live one) or removed: a stale
        /// entry still counts toward `capacity`, so the queue stays bounded whatever the
        /// update pattern, and waits for its turn at the front.
        var live: Bool
        var stamp: Instant
    }

    /// The queue in insertion order: a ring of `ringSize` (a power of two) slots, the oldest
    /// entry at `head`. The array grows by appending until the ring is full; a slot behind
    /// the front keeps its old entry until the ring comes round to it.
    private var ring: [Entry] = []
    private var ringSize = 0
    private var head = 0
    /// Key -> ring index of its live entry: open addressing, linear probing, twice the ring's
    /// size (so at most half full), `Self.empty` where none. Removal shifts the following
    /// entries of the probe run back (no tombstones), so a cache that keeps inserting and
    /// expiring never fills with dead entries.
    private var table: [UInt32] = []
    private var tableMask = 0
    private static var empty: UInt32 { .max }

    /// Keys currently remembered.
    private(set) var count = 0

    /// Queue entries held, live or stale: the memory actually in use. Kept here rather than
    /// read from the queue's storage: the simulator asks every node for it after every event.
    private(set) var footprint = 0

    /// Entries ever pushed: what the mutant's eviction draws its position from.
    private var pushes: UInt64 = 0

    init(capacity: Int, retention: Duration, eviction: Eviction = .oldestFirst) {
        precondition(capacity > 0, "a de-duplication cache needs room for at least one key")
        self.capacity = capacity
        self.retention = retention
        let (seconds, attoseconds) = retention.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let rest = (attoseconds + 999_999_999) / 1_000_000_000
        retentionNanoseconds = overflow || whole > .max - rest ? .max : whole + rest
        self.eviction = eviction
    }

    /// A node's message cache (`seen`): the dialect's capacity and retention, bent by the
    /// mutants that break them (`small-dedup-cache`, `short-retention`, `evict-arbitrary`).
    init(seenBy faults: Set<Fault>, capacity: Int, retention: Duration) {
        self.init(capacity: faults.contains(.smallDedupCache) ? 16 : capacity,
                  retention: faults.contains(.shortRetention) ? .seconds(10) : retention,
                  eviction: faults.contains(.evictArbitrary) ? .arbitrary : .oldestFirst)
    }

    func contains(_ key: Key, at now: Instant) -> Bool { value(for: key, at: now) != nil }

    func value(for key: Key, at now: Instant) -> Value? {
        guard count > 0, case (_, let index?) = find(key) else { return nil }
        return ring.withUnsafeBufferPointer { ring in
            let entry = ring.baseAddress.unsafelyUnwrapped + index
            return now.nanoseconds - entry.pointee.stamp.nanoseconds < retentionNanoseconds ? entry.pointee.value : nil
        }
    }

    /// Remembers `key` with `value` unless it is already present; true when it was new.
    @discardableResult
    mutating func insert(_ key: Key, value: Value, at now: Instant) -> Bool {
        expire(at: now)
        if count > 0, find(key).index != nil { return false }
        push(key, value, now)
        return true
    }

    /// Sets `key`'s value and restarts its retention.
    mutating func update(_ key: Key, value: Value, at now: Instant) {
        expire(at: now)
        push(key, value, now)
    }

    mutating func remove(_ key: Key) {
        guard count > 0, case (let slot, let index?) = find(key) else { return }
        ring[index].live = false
        vacate(slot)
    }

    /// Forgets every entry older than the retention window.
    mutating func expire(at now: Instant) {
        while footprint > 0, now.nanoseconds - ring[head].stamp.nanoseconds >= retentionNanoseconds {
            dropFront()
        }
    }

    /// The table slot holding `key` and the ring index of its entry, or the empty slot where
    /// it would go. The table must not be empty. Reads the two arrays' elements alone, not
    /// their headers (the mask is kept here): in a large mesh each header is one more miss.
    private func find(_ key: Key) -> (slot: Int, index: Int?) {
        let hash = key.tableHash
        let mask = tableMask
        return table.withUnsafeBufferPointer { table in
            ring.withUnsafeBufferPointer { ring in
                let slots = table.baseAddress.unsafelyUnwrapped, entries = ring.baseAddress.unsafelyUnwrapped
                var slot = hash & mask
                while true {
                    let index = slots[slot]
                    if index == Self.empty { return (slot, nil) }
                    if entries[Int(index)].key == key { return (slot, Int(index)) }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    private mutating func push(_ key: Key, _ value: Value, _ now: Instant) {
        pushes &+= 1
        if footprint == ringSize { rebuild(ringSize: max(8, 2 * ringSize)) }
        let index = (head + footprint) & (ringSize - 1)
        let entry = Entry(key: key, value: value, live: true, stamp: now)
        if index < ring.count { ring[index] = entry } else { ring.append(entry) }
        footprint += 1
        let (slot, live) = find(key)
        if let live { ring[live].live = false } else { count += 1 }
        table[slot] = UInt32(index)
        while footprint > capacity {
            switch eviction {
            case .oldestFirst: dropFront()
            case .arbitrary: dropArbitrary()
            }
        }
    }

    private mutating func dropFront() {
        if ring[head].live { vacate(find(ring[head].key).slot) }
        head = (head + 1) & (ringSize - 1)
        footprint -= 1
    }

    /// The mutant's eviction: an entry at a position that looks random but is fixed by the
    /// insert count (splitmix64 of it), so every run of the mutant evicts alike. O(n).
    private mutating func dropArbitrary() {
        var h = pushes &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        rebuild(ringSize: ringSize, dropping: Int((h ^ (h >> 31)) % UInt64(footprint)))
    }

    /// Empties table slot `slot`, then shifts back each following entry of the probe run whose
    /// home is not between the hole and itself (cyclically): the hole would cut it off from
    /// its home.
    private mutating func vacate(_ slot: Int) {
        count -= 1
        let mask = tableMask
        var hole = slot
        table[hole] = Self.empty
        var next = (hole + 1) & mask
        while table[next] != Self.empty {
            let home = ring[Int(table[next])].key.tableHash & mask
            let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !staysPut {
                table[hole] = table[next]
                table[next] = Self.empty
                hole = next
            }
            next = (next + 1) & mask
        }
    }

    /// Lays the queue out afresh from index 0 in a ring of `newSize` slots (without the entry
    /// `dropping` places from the front, if given) and rebuilds the table for it.
    private mutating func rebuild(ringSize newSize: Int, dropping removed: Int? = nil) {
        var entries: [Entry] = []
        entries.reserveCapacity(newSize)
        for offset in 0..<footprint where offset != removed {
            entries.append(ring[(head + offset) & (ringSize - 1)])
        }
        ring = entries
        ringSize = newSize
        head = 0
        footprint = entries.count
        table = Array(repeating: Self.empty, count: 2 * newSize)
        tableMask = 2 * newSize - 1
        count = 0
        for index in ring.indices where ring[index].live {
            table[find(ring[index].key).slot] = UInt32(index)
            count += 1
        }
    }
}

extension DedupCache where Value == Void {
    /// Remembers `key`; true when it was new (not seen within the retention window).
    @discardableResult
    mutating func insert(_ key: Key, at now: Instant) -> Bool { insert(key, value: (), at: now) }
}
