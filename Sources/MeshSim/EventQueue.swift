/// The simulator's pending events, popped in (time, sequence number) order. The sequence number
/// is the order of scheduling, so events due at the same instant run in the order they were
/// scheduled and a run never depends on the queue's internal layout.
///
/// Two levels, so that the part being worked on stays in the cache. Events are grouped by
/// time into buckets of 2^`bucketShift` nanoseconds (about a quarter of a millisecond): each
/// bucket within `bucketCount` buckets of the current one is a buffer in a ring, in the order
/// scheduled, and events further ahead wait in a heap (`far`) until their bucket comes up.
/// When a bucket is reached its buffer is sorted by time (`drain`) and popped from the front;
/// anything else due by then (far events, events scheduled into the bucket being drained) goes
/// to a small 4-ary heap (`current`), and each pop takes the lesser of the two fronts. A
/// 10,000-node beacon round has hundreds of thousands of events pending but only a few hundred
/// in the current bucket: one heap of all of them missed the cache on nearly every sift step
/// (a sixth of the run's time), and a heap of the bucket's events still cost 8 % in sifting,
/// where the sort is two counting passes.
///
/// Every level holds the events themselves, with their time and sequence: an event is plain
/// data (a reception holds its packet as a plain pointer, `InFlightPacket`), so moving one
/// never retains or releases anything, and popping one reads no other memory. Keys are unique (the
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
    /// key in the ring and `far` one after it. Times start at 0.
    private var currentBucket: Int64 = -1
    /// The ring's buckets, then the drained one and the sort's scratch (`KeyBuffers`), reached
    /// through their pointer: an append to a bucket checks neither the ring's nor the bucket's
    /// array for uniqueness (two calls per event scheduled as `[[Key]]`, and a quarter of the
    /// scheduling's instructions).
    private let buffers = KeyBuffers(count: EventQueue.bucketCount + 2)
    /// `buffers.slots`, kept here: every event popped or scheduled would load it through
    /// `buffers` first.
    private let ring: UnsafeMutablePointer<KeyBuffers.Bucket>
    /// The current bucket's ring keys by (time, sequence), popped from `drainIndex`. Held here
    /// for the same reason, and in `buffers` (the slot after the ring's) to be freed with them.
    private var drain = KeyBuffers.Bucket()
    private var drainIndex = 0
    private var current = KeyHeap()
    private var ringKeys = 0
    /// About the most keys a bucket held lately (the largest drained, less an eighth per bucket
    /// since): a near bucket whose buffer is full grows to a quarter more than that at once.
    /// Grown from a few timers' keys by doubling, a bucket of a 10,000-node beacon round
    /// (thousands of keys) was copied a dozen times: a twentieth of the run's instructions.
    private var recentBucketKeys = 0
    /// How near (in buckets) a bucket must be to grow that way: the ones that fill are a
    /// link's latency ahead, while one far ahead holds a few timers for a long time.
    private static let fillingReach: Int64 = 64
    private var far = KeyHeap()
    private var nextSequence: UInt64 = 0

    init() { ring = buffers.slots }

    var count: Int { drain.count - drainIndex + current.count + ringKeys + far.count }
    var isEmpty: Bool { count == 0 }

    mutating func schedule(_ event: SimEvent, at time: Int64) {
        let key = Key(time: time, sequence: nextSequence, event: event)
        nextSequence &+= 1
        let bucket = key.bucket
        if bucket <= currentBucket {
            current.push(key)
        } else if bucket - currentBucket < Int64(Self.bucketCount) {
            let slot = ring + Self.ringIndex(bucket)
            if slot.pointee.count == slot.pointee.capacity {
                let filling = bucket - currentBucket <= Self.fillingReach
                slot.pointee.grow(to: max(2 * slot.pointee.count, 8, filling ? recentBucketKeys + recentBucketKeys / 4 : 0))
            }
            slot.pointee.append(key)
            ringKeys += 1
        } else {
            far.push(key)
        }
    }

    /// The event likely to be popped after `ahead` others, for prefetching what it will read:
    /// from the sorted bucket, whose keys the heap of other keys (rarely any) may precede.
    func upcoming(_ ahead: Int) -> SimEvent? {
        drainIndex + ahead < drain.count ? drain.keys.unsafelyUnwrapped[drainIndex + ahead].event : nil
    }

    mutating func popFirst() -> Entry? {
        if drainIndex == drain.count, current.isEmpty, !advance() { return nil }
        let first: Key
        if drainIndex < drain.count, case let next = drain.keys.unsafelyUnwrapped[drainIndex],
           current.first.map({ !KeyHeap.precedes($0, next) }) ?? true {
            first = next
            drainIndex += 1
        } else {
            first = current.pop()
        }
        return Entry(time: first.time, sequence: first.sequence, event: first.event)
    }

    private static func ringIndex(_ bucket: Int64) -> Int { Int(bucket & Int64(bucketCount - 1)) }

    /// Moves to the next bucket that holds anything and sorts its keys into `drain`; false
    /// when nothing is pending.
    private mutating func advance() -> Bool {
        drain.release()   // a drained bucket keeps no memory
        ring[Self.bucketCount] = drain
        drainIndex = 0
        while drain.count == 0, current.isEmpty {
            if ringKeys == 0 {
                // Nothing within the ring: jump straight to the first far bucket.
                guard let next = far.first else { return false }
                currentBucket = next.bucket
            } else {
                currentBucket += 1
            }
            // A ring slot holds keys of one bucket only: a key goes in when its bucket is less
            // than `bucketCount` ahead, and the slot is emptied when its bucket is reached.
            let slot = ring + Self.ringIndex(currentBucket)
            if slot.pointee.count > 0 {
                ringKeys -= slot.pointee.count
                swap(&drain, &slot.pointee)   // `drain` is empty: the slot's buffer moves, no copy
                ring[Self.bucketCount] = drain
                recentBucketKeys = max(drain.count, recentBucketKeys - recentBucketKeys / 8)
                Self.sortByTime(&drain, scratch: &ring[Self.bucketCount + 1])
            }
            while let next = far.first, next.bucket <= currentBucket { current.push(far.pop()) }
        }
        return true
    }
}

/// The key buffers of the ring's buckets (and of the bucket being drained and the sort's
/// scratch), owned together and freed with the queue. Keys are plain data (`SimEvent` holds
/// no reference), so buffers are copied and dropped without running anything per key.
///
/// A class only to free them: `EventQueue` holds one and is not meant to be copied (a copy
/// would share its buckets; the simulator keeps its one queue in place).
final class KeyBuffers {
    struct Bucket {
        var keys: UnsafeMutablePointer<EventQueue.Key>?
        var count = 0
        var capacity = 0

        mutating func append(_ key: EventQueue.Key) {
            (keys.unsafelyUnwrapped + count).initialize(to: key)
            count += 1
        }

        /// Room for `capacity` keys, those held kept.
        mutating func grow(to capacity: Int) {
            let grown = UnsafeMutablePointer<EventQueue.Key>.allocate(capacity: capacity)
            if let keys {
                grown.moveInitialize(from: keys, count: count)
                keys.deallocate()
            }
            keys = grown
            self.capacity = capacity
        }

        /// Empty, its buffer freed.
        mutating func release() {
            keys?.deallocate()
            self = Bucket()
        }
    }

    let slots: UnsafeMutablePointer<Bucket>
    private let count: Int

    init(count: Int) {
        assert(_isPOD(EventQueue.Key.self), "buffers are freed without deinitializing their keys")
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: Bucket(), count: count)
    }

    deinit {
        for index in 0..<count { slots[index].release() }
        slots.deallocate()
    }
}

extension EventQueue {
    /// Sorts the keys of one ring slot by (time, sequence): two stable counting passes over the
    /// time's `bucketShift` bits within the bucket (9 bits each). A slot's keys are appended in the order
    /// scheduled, so by sequence already, and a stable sort by time alone keeps that order among
    /// equal times.
    static func sortByTime(_ bucket: inout KeyBuffers.Bucket, scratch: inout KeyBuffers.Bucket) {
        let n = bucket.count
        guard n > 1 else { return }
        let keys = UnsafeMutableBufferPointer(start: bucket.keys, count: n)
        assert(zip(keys, keys.dropFirst()).allSatisfy { $0.sequence < $1.sequence && $0.bucket == $1.bucket })
        if scratch.capacity < n {
            scratch.release()
            scratch.grow(to: n)
        }
        let spare = UnsafeMutableBufferPointer(start: scratch.keys, count: n)
        // Two digits cover the bits of a time within its bucket.
        let bits = Int(bucketShift + 1) / 2, radix = 1 << bits, mask = Int64(radix - 1)
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * radix) { counts in
            counts.initialize(repeating: 0)
            for key in keys {
                counts[Int(key.time & mask)] += 1
                counts[radix + Int((key.time >> bits) & mask)] += 1
            }
            // Each digit's counts become the first index of its run.
            for pass in 0..<2 {
                var total = 0
                for digit in pass * radix..<(pass + 1) * radix {
                    let c = counts[digit]
                    counts[digit] = total
                    total += c
                }
            }
            // Keys are plain data: written over, not deinitialized (`KeyBuffers`).
            for key in keys {
                let digit = Int(key.time & mask)
                spare[counts[digit]] = key
                counts[digit] += 1
            }
            for key in spare {
                let digit = radix + Int((key.time >> bits) & mask)
                keys[counts[digit]] = key
                counts[digit] += 1
            }
        }
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

    /// (time, sequence) as one 128-bit number (times are never negative): one comparison the
    /// compiler can do without a branch, instead of two dependent ones.
    static func precedes(_ a: EventQueue.Key, _ b: EventQueue.Key) -> Bool {
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
