import Testing
@testable import MeshNode

/// `DedupCache` (a ring of entries and a table of indices into it) against a model that keeps
/// the same rules the plain way (a queue of every insert and update, a `Dictionary` from key to
/// its live insert): the same random inserts, updates, removals and passing time, then every
/// key of the range looked up.
@Suite struct DedupCacheTests {
    /// Keys whose hash is their value mod 16: long probe runs that wrap around the table's end,
    /// so removal must shift entries back across the wrap, not only within a run.
    struct Colliding: DedupKey {
        var value: Int
        func hash(into hasher: inout Hasher) { hasher.combine(value % 16) }
    }

    /// The rules, written the plain way.
    struct Model {
        let capacity: Int
        let retention: Duration
        let arbitrary: Bool
        var order: [(key: Colliding, stamp: Instant, serial: UInt64)] = []
        var live: [Colliding: (value: Int, stamp: Instant, serial: UInt64)] = [:]
        var serial: UInt64 = 0

        func value(for key: Colliding, at now: Instant) -> Int? {
            guard let entry = live[key], now - entry.stamp < retention else { return nil }
            return entry.value
        }

        mutating func insert(_ key: Colliding, value: Int, at now: Instant) -> Bool {
            expire(at: now)
            guard live[key] == nil else { return false }
            push(key, value, now)
            return true
        }

        mutating func update(_ key: Colliding, value: Int, at now: Instant) {
            expire(at: now)
            push(key, value, now)
        }

        mutating func expire(at now: Instant) {
            while let first = order.first, now - first.stamp >= retention { drop(at: 0) }
        }

        mutating func push(_ key: Colliding, _ value: Int, _ now: Instant) {
            serial += 1
            live[key] = (value, now, serial)
            order.append((key, now, serial))
            while order.count > capacity {
                guard arbitrary else {
                    drop(at: 0)
                    continue
                }
                var h = serial &* 0x9E37_79B9_7F4A_7C15
                h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
                h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
                drop(at: Int((h ^ (h >> 31)) % UInt64(order.count)))
            }
        }

        mutating func drop(at position: Int) {
            let entry = order.remove(at: position)
            if live[entry.key]?.serial == entry.serial { live[entry.key] = nil }
        }
    }

    @Test(arguments: [(8, 4, false), (40, 64, false), (300, 4096, false), (300, 100, false), (300, 100, true)])
    func agreesWithModel(keyRange: Int, capacity: Int, arbitrary: Bool) {
        let retention = Duration.milliseconds(500)
        var cache = DedupCache<Colliding, Int>(capacity: capacity, retention: retention, eviction: arbitrary ? .arbitrary : .oldestFirst)
        var model = Model(capacity: capacity, retention: retention, arbitrary: arbitrary)
        var rng = SeededRandom(seed: UInt64(keyRange * 31 + capacity))
        var now = Instant.zero
        for step in 0..<20_000 {
            let key = Colliding(value: Int(rng.next() % UInt64(keyRange)))
            now = now + .microseconds(Int64(rng.next() % 200))
            switch rng.next() % 4 {
            case 0:
                cache.remove(key)
                model.live[key] = nil
            case 1:
                cache.update(key, value: step, at: now)
                model.update(key, value: step, at: now)
            default:
                let fresh = cache.insert(key, value: step, at: now)
                #expect(fresh == model.insert(key, value: step, at: now), "insert \(key.value) at step \(step)")
            }
            if step % 97 == 0 {
                #expect(cache.count == model.live.count && cache.footprint == model.order.count, "sizes at step \(step)")
                // Also looked up later, nothing inserted meanwhile: entries then fall due
                // without being expired, and a lookup must read their time from the queue.
                let later = now + .milliseconds(Int64(rng.next() % 700))
                for value in 0..<keyRange {
                    let key = Colliding(value: value)
                    #expect(cache.value(for: key, at: now) == model.value(for: key, at: now), "key \(value) at step \(step)")
                    #expect(cache.value(for: key, at: later) == model.value(for: key, at: later), "key \(value) later at step \(step)")
                }
            }
        }
        #expect(cache.count == model.live.count && cache.footprint == model.order.count)
    }
}
