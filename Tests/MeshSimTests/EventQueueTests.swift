import Testing
@testable import MeshSim

/// `EventQueue` (sorted bucket, ring of buckets, heap of far events, heap of late arrivals)
/// against the plain rule: pop the least (time, scheduling order) of what is pending.
@Suite struct EventQueueTests {
    @Test(arguments: [1, 2, 3, 4])
    func popsInTimeThenSchedulingOrder(seed: UInt64) {
        var random = SimRandom(seed: seed)
        var queue = EventQueue()
        var model: [(time: Int64, order: Int32)] = []
        var now: Int64 = 0
        var next: Int32 = 0
        func schedule(_ time: Int64) {
            queue.schedule(.inject(message: next), at: time)
            model.append((time, next))
            next += 1
        }
        let bucket = Int64(1) << EventQueue.bucketShift
        for _ in 0..<4000 {
            // Mostly a pop, else a schedule: within this bucket (also before now, as a timer set
            // in the past fires at once), a few buckets ahead, past the ring, or at equal times.
            if random.unit() < 0.45, !model.isEmpty {
                let expected = model.enumerated().min { ($0.element.time, $0.element.order) < ($1.element.time, $1.element.order) }!
                model.remove(at: expected.offset)
                guard let entry = queue.popFirst(), case .inject(let order) = entry.event else {
                    Issue.record("queue empty or wrong event with \(model.count + 1) pending")
                    return
                }
                #expect(entry.time == expected.element.time && order == expected.element.order)
                now = entry.time
                #expect(queue.count == model.count)
                continue
            }
            switch random.unit() {
            case ..<0.3: schedule(now + Int64(random.unit() * Double(bucket)))
            case ..<0.4: schedule(max(0, now - 5))
            case ..<0.8: schedule(now + Int64(random.unit() * Double(40 * bucket)))
            case ..<0.9: schedule(now + Int64(EventQueue.bucketCount) * bucket + Int64(random.unit() * Double(5 * bucket)))
            default: schedule(now + 3 * bucket)
            }
        }
        while let expected = model.enumerated().min(by: { ($0.element.time, $0.element.order) < ($1.element.time, $1.element.order) }) {
            model.remove(at: expected.offset)
            guard let entry = queue.popFirst(), case .inject(let order) = entry.event else {
                Issue.record("queue empty with \(model.count + 1) pending")
                return
            }
            #expect(entry.time == expected.element.time && order == expected.element.order)
        }
        #expect(queue.popFirst() == nil)
    }
}
