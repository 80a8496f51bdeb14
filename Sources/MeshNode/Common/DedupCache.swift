import CMemoryHints

/// A bounded, time-windowed memory of keys seen, for de-duplication (RELAY-R3, BLEMESH-R5) and
/// for the other "seen recently" tables (RELAY-R10 lastSeq, BLEMESH-R15 request ids, relay ack
/// routes). Entries live `retention` after their last insert or update; when more than
/// `capacity` are held the oldest goes first. Every operation is O(1) amortised: a hash table
/// of the entries plus a queue in insertion order, expired lazily from the front as time
/// passes.
///
/// A simulated mesh of thousands of nodes keeps thousands of these caches, and each lookup
/// touches a different one: what decides the cost is how many cache lines a lookup reads and
/// how many of the caches fit in the processor's cache. So a lookup reads one entry of the
/// table (key and value side by side) and nothing else, and the queue holds 16 bytes per
/// insert (no key).
///
/// An entry's time is kept in the queue alone (its insert's stamp): while nothing is due, which
/// a lookup tells from the oldest insert's stamp, every entry is live, and only when something
/// is due does a lookup read its entry's stamp from the queue. Without the time an entry of a
/// relay node's caches is 28 or 32 bytes instead of 40 (a 10,000-node mesh holds 80 MB less).
/// This relies on the node's time never going backwards, as every caller's clock does.
struct DedupCache<Key: DedupKey, Value> {
    enum Eviction {
        case oldestFirst
        case arbitrary
        /// Past `capacity`, the oldest go until this many are left (bitchat iOS: 1000 to 750).
        case trimOldest(to: Int)
    }

    /// A key remembered, with the serial of its last insert or update: the queue entry with
    /// that serial is the one that expires it.
    private struct Entry {
        var key: Key
        var value: Value
        var serial: UInt32
    }

    /// One insert or update, in the queue: where its key's entry lives (the low bits of the
    /// key's hash), which insert it was, and when. 16 bytes: the queues are a fifth of a large
    /// mesh's memory.
    private struct Insert {
        var hash: UInt32
        var serial: UInt32
        var stamp: Int64
    }

    /// Open addressing, linear probing, at most three quarters full; `tableMask` is its
    /// count - 1, kept here so that a lookup does not read the array's header (one more cache
    /// miss per lookup in a large mesh). Removal shifts the following entries of the probe run
    /// back (no tombstones), so a cache that keeps inserting and expiring never fills with
    /// dead entries.
    private var table: [Entry?] = []
    private var tableMask = -1
    /// `TableHash.process`, read here beside the mask rather than from the lazy global (a call
    /// per hash).
    let seeds = TableHash.process
    /// Keys currently remembered.
    private(set) var count = 0
    /// `retention` in whole nanoseconds, rounded up: an insert `d` ns old is live when
    /// `d < retentionNanoseconds`, as when `Duration.nanoseconds(d) < retention` (compared here
    /// without building a 128-bit `Duration` per access).
    private let retentionNanoseconds: Int64
    /// The stamp of the insert at `head` while `footprint > 0`: what an insert (`expire`) and a
    /// lookup (`isLive`) compare first, kept beside the fields a lookup reads so that neither
    /// loads the queue's front (in a large mesh, a cache miss).
    private var oldestStamp: Int64 = 0

    /// Insertion order: a ring of `queue.count` (a power of two) slots, the oldest at `head`.
    /// An update queues its key again; the earlier insert is then stale (its serial no longer
    /// the entry's), is skipped when it reaches the front, and still counts toward `capacity`,
    /// so the queue stays bounded whatever the update pattern.
    private var queue: [Insert] = []
    /// `queue.count - 1`, kept here for the same reason as `tableMask`: `prefetchInsert` finds
    /// the slot the next insert writes without reading the queue's header (the miss it starts).
    private var queueMask = -1
    private var head = 0
    /// Queue entries held, live or stale: the memory actually in use. Kept here rather than
    /// read from the queue's storage: the simulator asks every node for it after every event.
    private(set) var footprint = 0
    private var serial: UInt32 = 0
    let capacity: Int

    // The fields above are in the order a lookup, then an insert, reads them: in a simulated
    // mesh each access to a node's cache is a miss, and a lookup then loads one line of it.
    /// Inserts ever made: what the mutant's eviction draws its position from.
    private var pushes: UInt64 = 0
    let retention: Duration
    /// Which entry goes when more than `capacity` are held: the oldest (every page's rule), or,
    /// for the mutant `evict-arbitrary`, one anywhere in the queue, as a Swift `Set`'s
    /// `removeFirst()` picks one (camp app row 2).
    let eviction: Eviction

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
    /// mutants that break them (`small-dedup-cache`, `short-retention`, `evict-arbitrary`), or
    /// that bend them as an app does (`dedup-trim`: bitchat iOS's 1000 trimmed to 750).
    init(seenBy faults: Set<Fault>, capacity: Int, retention: Duration) {
        self.init(capacity: faults.contains(.smallDedupCache) ? 16 : faults.contains(.dedupTrim) ? 1000 : capacity,
                  retention: faults.contains(.shortRetention) ? .seconds(10) : retention,
                  eviction: faults.contains(.evictArbitrary) ? .arbitrary : faults.contains(.dedupTrim) ? .trimOldest(to: 750) : .oldestFirst)
    }

    @inline(__always)
    func contains(_ key: Key, at now: Instant) -> Bool { value(for: key, at: now) != nil }

    /// Inlined: called, it is handed the cache by address, and a caller whose cache is a
    /// property of its own `inout` self copied the whole cache (129 bytes) to the stack first.
    @inline(__always)
    func value(for key: Key, at now: Instant) -> Value? {
        guard count > 0 else { return nil }
        // The closure reads locals, not `self`, as `find`'s does.
        let mask = tableMask, hash = key.tableHash(seeds)
        let entry = table.withUnsafeBufferPointer { table -> Entry? in
            let (slot, found) = Self.find(key, hash: hash, in: table, mask: mask)
            return found ? table[slot] : nil
        }
        guard let entry else { return nil }
        return isLive(entry.serial, at: now) ? entry.value : nil
    }

    /// Whether the insert `serial` (an entry's last) is within the retention window at `now`:
    /// yes for every insert while the oldest is, else as its stamp in the queue says.
    @inline(__always)
    private func isLive(_ serial: UInt32, at now: Instant) -> Bool {
        guard now.nanoseconds - oldestStamp >= retentionNanoseconds else { return true }
        return now.nanoseconds - Self.stamp(ofInsert: serial, in: queue, head: head, footprint: footprint, last: self.serial) < retentionNanoseconds
    }

    /// The stamp of the insert `serial`, which is in the queue (an entry goes when its last
    /// insert leaves the queue). The queue holds the inserts in serial order, the last (serial
    /// `last`) at its end, unless the mutant's eviction took one out of the middle: then it is
    /// looked for. Static, given the queue's fields: a method would be handed the cache by
    /// address, and every lookup that inlines `isLive` then copied the whole cache (129 bytes)
    /// to the stack for this rare call.
    @inline(never)   // rare: kept out of the lookups it would make larger
    private static func stamp(ofInsert serial: UInt32, in queue: [Insert], head: Int, footprint: Int, last: UInt32) -> Int64 {
        let mask = queue.count - 1
        let later = Int(last &- serial)
        if later < footprint, case let insert = queue[(head + footprint - 1 - later) & mask], insert.serial == serial { return insert.stamp }
        for offset in 0..<footprint where queue[(head + offset) & mask].serial == serial { return queue[(head + offset) & mask].stamp }
        return .min   // not queued: no entry should be, so none is live
    }

    /// Starts loading the slot where a lookup of a key with this `tableHash` begins, and the
    /// cache line after it (`Node.prefetch(for:)`): a probe run often goes on past the first
    /// line (two or three 32-byte entries), and a new key's lookup reads to the run's end.
    /// With the first line alone, the profile's largest wait in a beacon's reception was the
    /// probe's next slot.
    func prefetch(hash: Int) {
        guard count > 0 else { return }
        let mask = tableMask
        table.withUnsafeBufferPointer { table in
            let home = UnsafeRawPointer(table.baseAddress.unsafelyUnwrapped + (hash & mask))
            meshconform_prefetch(home)
            // Past the table's end (a run that wraps) the load is only wasted: a prefetch never faults.
            meshconform_prefetch(home + 64)
        }
    }

    /// Starts loading what an insert or update reads or writes beyond the lookup's slot: the
    /// table's and the queue's headers (their counts and reference counts, read to check a
    /// write) and the queue slot the insert fills. In a large mesh each is a miss; a caller about
    /// to record in several caches starts them all at once, so they overlap instead of each
    /// insert waiting on its own. Mutating so that the arrays' references are read in place (a
    /// copy retains them).
    mutating func prefetchInsert() {
        withUnsafeMutablePointer(to: &table) { meshconform_prefetch(UnsafeRawPointer($0).load(as: UnsafeRawPointer.self)) }
        let tail = (head + footprint) & queueMask
        withUnsafeMutablePointer(to: &queue) {
            let storage = UnsafeRawPointer($0).load(as: UnsafeRawPointer.self)
            meshconform_prefetch(storage)
            // The slot past the array's header (32 bytes: a class's two words, count, capacity).
            // With an empty queue the mask is -1 and the address is wrong, but a prefetch never faults.
            meshconform_prefetch(storage + 32 + tail * MemoryLayout<Insert>.stride)
        }
    }

    /// Remembers `key` with `value` unless it is already present; true when it was new.
    @discardableResult
    mutating func insert(_ key: Key, value: Value, at now: Instant) -> Bool {
        expire(at: now)
        let hash = key.tableHash(seeds)
        var place: (slot: Int, found: Bool)?
        if count > 0 {
            place = find(key, hash: hash)
            if place!.found { return false }
        }
        push(key, value, hash, now, place: place)
        return true
    }

    /// Sets `key`'s value and restarts its retention.
    mutating func update(_ key: Key, value: Value, at now: Instant) {
        expire(at: now)
        push(key, value, key.tableHash(seeds), now)
    }

    mutating func remove(_ key: Key) {
        guard count > 0, case (let slot, true) = find(key, hash: key.tableHash(seeds)) else { return }
        vacate(slot)
    }

    /// Forgets every entry older than the retention window.
    mutating func expire(at now: Instant) {
        while footprint > 0, now.nanoseconds - oldestStamp >= retentionNanoseconds {
            dropFront()
        }
    }

    /// The slot holding `key`, or the empty slot where it would go. The table must not be empty.
    private func find(_ key: Key, hash: Int) -> (slot: Int, found: Bool) {
        // Through locals, not `self`: called from the mutating `push` (an update), a closure
        // that read `self` had the whole cache copied to the stack first, and the copy's loads of
        // fields just stored waited for those stores, so for the queue slot's before them (a miss).
        let mask = tableMask
        return table.withUnsafeBufferPointer { Self.find(key, hash: hash, in: $0, mask: mask) }
    }

    @inline(__always)
    private static func find(_ key: Key, hash: Int, in table: UnsafeBufferPointer<Entry?>, mask: Int) -> (slot: Int, found: Bool) {
        let slots = table.baseAddress.unsafelyUnwrapped
        var slot = hash & mask
        while let entry = slots[slot] {
            if entry.key == key { return (slot, true) }
            slot = (slot + 1) & mask
        }
        return (slot, false)
    }

    /// `place`: where `find` put the key, if the caller just asked (not asked again unless
    /// the table grows).
    private mutating func push(_ key: Key, _ value: Value, _ hash: Int, _ now: Instant, place: (slot: Int, found: Bool)? = nil) {
        pushes &+= 1
        serial &+= 1
        if footprint == queue.count { growQueue() }
        queue[(head + footprint) & queueMask] = Insert(hash: UInt32(truncatingIfNeeded: hash), serial: serial, stamp: now.nanoseconds)
        if footprint == 0 { oldestStamp = now.nanoseconds }
        footprint += 1
        var place = place
        if (count + 1) * 4 > table.count * 3 {
            growTable()
            place = nil
        }
        let (slot, found) = place ?? find(key, hash: hash)
        if !found { count += 1 }
        table[slot] = Entry(key: key, value: value, serial: serial)
        while footprint > capacity {
            switch eviction {
            case .oldestFirst: dropFront()
            case .arbitrary: dropArbitrary()
            case .trimOldest(let left): while footprint > left { dropFront() }
            }
        }
    }

    private mutating func dropFront() {
        forget(queue[head])
        head = (head + 1) & queueMask
        footprint -= 1
        if footprint > 0 { oldestStamp = queue[head].stamp }
    }

    /// The mutant's eviction: an entry at a position that looks random but is fixed by the
    /// insert count (splitmix64 of it), so every run of the mutant evicts alike. O(n).
    private mutating func dropArbitrary() {
        var h = pushes &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        let position = Int((h ^ (h >> 31)) % UInt64(footprint))
        let mask = queueMask
        forget(queue[(head + position) & mask])
        for offset in position..<footprint - 1 {
            queue[(head + offset) & mask] = queue[(head + offset + 1) & mask]
        }
        footprint -= 1
        if footprint > 0 { oldestStamp = queue[head].stamp }
    }

    /// Removes the entry `insert` made, unless a later insert or update (or a removal) has
    /// superseded it: only the entry still carrying its serial is its.
    private mutating func forget(_ insert: Insert) {
        guard count > 0 else { return }
        var slot = Int(insert.hash) & tableMask
        while let entry = table[slot] {
            if entry.serial == insert.serial {
                vacate(slot)
                return
            }
            slot = (slot + 1) & tableMask
        }
    }

    /// Empties `slot`, then shifts back each following entry of the probe run whose home is
    /// not between the hole and itself (cyclically): the hole would cut it off from its home.
    private mutating func vacate(_ slot: Int) {
        count -= 1
        let mask = tableMask
        var hole = slot
        table[hole] = nil
        var next = (hole + 1) & mask
        while let entry = table[next] {
            let home = entry.key.tableHash(seeds) & mask
            let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !staysPut {
                table[hole] = entry
                table[next] = nil
                hole = next
            }
            next = (next + 1) & mask
        }
    }

    /// Twice the slots. Each entry goes to the first free slot from its home, through pointers:
    /// the keys are distinct, so none is looked for (a table grows from 8 slots to its size in
    /// a large mesh one doubling at a time, and each re-places every entry).
    private mutating func growTable() {
        let old = table
        let mask = max(8, 2 * old.count) - 1
        var grown = [Entry?].filled(with: nil, count: mask + 1)
        grown.withUnsafeMutableBufferPointer { slots in
            for case let entry? in old {
                var slot = entry.key.tableHash(seeds) & mask
                while case .some = slots[slot] { slot = (slot + 1) & mask }
                slots[slot] = entry
            }
        }
        table = grown
        tableMask = mask
    }

    /// Twice the slots, the queue laid out afresh from index 0. It grows only when full: its
    /// inserts from `head` on, then the ones before, then all of them again to fill the new
    /// half (slots past `footprint` are written before they are read; copied, not filled one
    /// by one).
    private mutating func growQueue() {
        var grown: [Insert] = []
        grown.reserveCapacity(max(8, 2 * queue.count))
        if queue.isEmpty {
            grown.append(contentsOf: repeatElement(Insert(hash: 0, serial: 0, stamp: 0), count: 8))
        } else {
            grown.append(contentsOf: queue[head...])
            grown.append(contentsOf: queue[..<head])
            grown.append(contentsOf: grown)
        }
        queue = grown
        queueMask = grown.count - 1
        head = 0
    }
}

extension DedupCache where Value == Void {
    /// Remembers `key`; true when it was new (not seen within the retention window).
    @discardableResult
    mutating func insert(_ key: Key, at now: Instant) -> Bool { insert(key, value: (), at: now) }
}
