/// The simulator's pending events, popped in (time, sequence number) order. The sequence number
/// is the order of scheduling, so events due at the same instant run in the order they were
/// scheduled and a run never depends on the queue's internal layout.
///
/// Two levels, so that the part being worked on stays in the cache. Events are grouped by
/// time into buckets of `bucketWidth` nanoseconds (about a quarter of a millisecond): a 4-ary
/// heap holds the events of the bucket being drained (and anything scheduled into it or before
/// it), each later bucket within `bucketCount` buckets is an unsorted array in a ring, and
/// events further ahead wait in a second heap until their bucket comes up. A 10,000-node
/// beacon round has hundreds of thousands of events pending but only a few hundred in the
/// current bucket: one heap of all of them missed the cache on nearly every sift step (a
/// sixth of the run's time).
///
/// Every level holds the events themselves, with their time and sequence: an event is plain
/// data (a reception names its packet in the simulator's packet table), so moving one never
/// retains or releases anything, and popping one reads no other memory. Keys are unique (the
/// sequence), so the order popped is the same whatever the layout.
struct EventQueue {
    struct Entry {
        var time: Int64
        var sequence: UInt64
        var event: SimEvent
    }

    struct Key {
        var time: Int64
        var sequence: UInt64
        var event: SimEvent

        var bucket: Int64 { time >> EventQueue.bucketShift }
    }

    /// 2^18 ns = 262 µs per bucket; 2^15 buckets = 8.6 s ahead in the ring.
    static let bucketShift: Int64 = 18
    static let bucketCount = 1 << 15

    /// The bucket being drained: every key in `current` has a bucket at or before it, every
    /// key in `ring` and `far` one after it. Times start at 0.
    private var currentBucket: Int64 = -1
    private var current = KeyHeap()
    private var ring: [[Key]] = Array(repeating: [], count: EventQueue.bucketCount)
    private var ringKeys = 0
    private var far = KeyHeap()
    private var nextSequence: UInt64 = 0

    var count: Int { current.count + ringKeys + far.count }
    var isEmpty: Bool { count == 0 }

    mutating func schedule(_ event: SimEvent, at time: Int64) {
        let key = Key(time: time, sequence: nextSequence, event: event)
        nextSequence &+= 1
        let bucket = key.bucket
        if bucket <= currentBucket {
            current.push(key)
        } else if bucket - currentBucket < Int64(Self.bucketCount) {
            ring[Self.ringIndex(bucket)].append(key)
            ringKeys += 1
        } else {
            far.push(key)
        }
    }

    /// The event that `popFirst` returns next when it is already in the bucket being drained
    /// (nil otherwise, or when nothing is pending): for prefetching what it will read.
    var upcoming: SimEvent? { current.first?.event }

    mutating func popFirst() -> Entry? {
        if current.isEmpty, !advance() { return nil }
        let first = current.pop()
        return Entry(time: first.time, sequence: first.sequence, event: first.event)
    }

    private static func ringIndex(_ bucket: Int64) -> Int { Int(bucket & Int64(bucketCount - 1)) }

    /// Moves to the next bucket that holds anything and loads its keys into `current`; false
    /// when nothing is pending.
    private mutating func advance() -> Bool {
        while current.isEmpty {
            if ringKeys == 0 {
                // Nothing within the ring: jump straight to the first far bucket.
                guard let next = far.first else { return false }
                currentBucket = next.bucket
            } else {
                currentBucket += 1
            }
            // A ring slot holds keys of one bucket only: a key goes in when its bucket is less
            // than `bucketCount` ahead, and the slot is emptied when its bucket is reached.
            let index = Self.ringIndex(currentBucket)
            if !ring[index].isEmpty {
                ringKeys -= ring[index].count
                current.load(&ring[index])
            }
            while let next = far.first, next.bucket <= currentBucket { current.push(far.pop()) }
        }
        return true
    }
}

/// A 4-ary min-heap of keys by (time, sequence). Four children per node halve the depth.
struct KeyHeap {
    private var keys: [EventQueue.Key] = []

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }
    var first: EventQueue.Key? { keys.first }

    mutating func push(_ key: EventQueue.Key) {
        keys.append(key)
        siftUp(keys.count - 1)
    }

    /// The least key; the heap must not be empty.
    mutating func pop() -> EventQueue.Key {
        keys.swapAt(0, keys.count - 1)
        let first = keys.removeLast()
        if !keys.isEmpty { siftDown(0) }
        return first
    }

    /// Adds `more` to the heap and empties it (releasing its buffer: a drained bucket keeps no
    /// memory). An empty heap takes the array over whole and heapifies it bottom-up.
    mutating func load(_ more: inout [EventQueue.Key]) {
        if keys.isEmpty {
            keys = more
            more = []
            if keys.count > 1 {
                for index in stride(from: (keys.count - 2) / 4, through: 0, by: -1) { siftDown(index) }
            }
        } else {
            for key in more { push(key) }
            more = []
        }
    }

    /// (time, sequence) as one 128-bit number (times are never negative): one comparison the
    /// compiler can do without a branch, instead of two dependent ones.
    private static func precedes(_ a: EventQueue.Key, _ b: EventQueue.Key) -> Bool {
        UInt128(UInt64(bitPattern: a.time)) << 64 | UInt128(a.sequence) < UInt128(UInt64(bitPattern: b.time)) << 64 | UInt128(b.sequence)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 4
            guard Self.precedes(keys[child], keys[parent]) else { return }
            keys.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        let n = keys.count
        while true {
            let first = 4 * parent + 1
            guard first < n else { return }
            var smallest = first
            for child in first + 1..<min(first + 4, n) where Self.precedes(keys[child], keys[smallest]) { smallest = child }
            guard Self.precedes(keys[smallest], keys[parent]) else { return }
            keys.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
