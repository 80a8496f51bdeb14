import MeshNode

/// The node's timers in due order: a binary min-heap of (time, id), with cancellation and
/// re-setting done by a current-deadline table, so stale heap entries are skipped when popped.
struct TimerQueue {
    private var heap: [(at: Instant, id: TimerID)] = []
    private var deadline: [TimerID: Instant] = [:]

    mutating func set(_ id: TimerID, at: Instant) {
        deadline[id] = at
        heap.append((at, id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].at < heap[parent].at else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func cancel(_ id: TimerID) { deadline[id] = nil }

    /// The earliest live timer due at or before `limit`, removed.
    mutating func popDue(before limit: Instant) -> (TimerID, Instant)? {
        while let first = heap.first, first.at <= limit {
            removeFirst()
            if deadline[first.id] == first.at {
                deadline[first.id] = nil
                return (first.id, first.at)
            }
        }
        return nil
    }

    private mutating func removeFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].at < heap[smallest].at { smallest = left }
            if right < heap.count, heap[right].at < heap[smallest].at { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
