/// A hash map from keys to values in one array: open addressing, linear probing, each entry's
/// hash, key and value side by side. What `DedupCache` looks keys up in: a `Dictionary` keeps
/// its occupancy bitmap, keys and values in three separate places, so a lookup in a node's
/// cache reads three or four cache lines, and in a simulated mesh of thousands of nodes every
/// one of them is a miss; here a lookup usually reads the line of its entry alone.
///
/// Removal shifts the following entries of the probe run back (no tombstones), so a table
/// that keeps inserting and removing, as a time-windowed cache does, never fills with dead
/// entries. It grows at three quarters full and never shrinks, like `Dictionary`.
struct ProbingTable<Key: Hashable, Value> {
    private struct Entry {
        var hash: Int
        var key: Key
        var value: Value
    }

    private var entries: [Entry?] = []
    private(set) var count = 0

    init() {}

    subscript(key: Key) -> Value? {
        get {
            guard count > 0 else { return nil }
            let hash = key.hashValue
            return entries.withUnsafeBufferPointer { buffer in
                let mask = buffer.count - 1
                var index = hash & mask
                while let entry = buffer[index] {
                    if entry.hash == hash, entry.key == key { return entry.value }
                    index = (index + 1) & mask
                }
                return nil
            }
        }
        set {
            let hash = key.hashValue
            if let newValue {
                set(Entry(hash: hash, key: key, value: newValue))
            } else {
                remove(key, hash: hash)
            }
        }
    }

    private mutating func set(_ new: Entry) {
        if (count + 1) * 4 > entries.count * 3 { grow() }
        let mask = entries.count - 1
        var index = new.hash & mask
        while let entry = entries[index] {
            if entry.hash == new.hash, entry.key == new.key {
                entries[index] = new
                return
            }
            index = (index + 1) & mask
        }
        entries[index] = new
        count += 1
    }

    private mutating func remove(_ key: Key, hash: Int) {
        guard count > 0 else { return }
        let mask = entries.count - 1
        var hole = hash & mask
        while true {
            guard let entry = entries[hole] else { return }
            if entry.hash == hash, entry.key == key { break }
            hole = (hole + 1) & mask
        }
        entries[hole] = nil
        count -= 1
        // Backward shift: an entry after the hole whose home is not between the hole and
        // itself (cyclically) would be cut off from its home by the hole, so it moves into it.
        var next = (hole + 1) & mask
        while let entry = entries[next] {
            let home = entry.hash & mask
            let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !staysPut {
                entries[hole] = entry
                entries[next] = nil
                hole = next
            }
            next = (next + 1) & mask
        }
    }

    private mutating func grow() {
        let old = entries
        entries = Array(repeating: nil, count: max(8, old.count * 2))
        count = 0
        for case let entry? in old { set(entry) }
    }
}
