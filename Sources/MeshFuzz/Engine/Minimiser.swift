/// Delta debugging (Zeller's ddmin) under a budget of trials: the shortest sub-sequence it can
/// find for which `stillFails` holds. Used on bytes (a crasher) and on message sequences (the
/// over-the-air fuzzer), with trials that are expensive (a fresh worker, a fresh DUT), so the
/// budget caps the work and the best so far is always kept.
public struct Minimiser<Element> {
    public var budget: Int
    public private(set) var trials = 0

    public init(budget: Int) { self.budget = budget }

    /// `input` must fail; returns a failing sub-sequence no longer than it.
    public mutating func minimise(_ input: [Element], stillFails: ([Element]) throws -> Bool) rethrows -> [Element] {
        var current = input
        var granularity = 2
        while current.count >= 2, trials < budget {
            let chunk = (current.count + granularity - 1) / granularity
            var reduced = false
            var start = 0
            while start < current.count, trials < budget {
                // Try removing one chunk (the complement); single chunks are covered as the
                // granularity reaches the length.
                let end = min(current.count, start + chunk)
                let candidate = Array(current[..<start]) + Array(current[end...])
                trials += 1
                if !candidate.isEmpty, try stillFails(candidate) {
                    current = candidate
                    granularity = max(granularity - 1, 2)
                    reduced = true
                    break
                }
                start = end
            }
            if !reduced {
                if granularity >= current.count { break }
                granularity = min(current.count, granularity * 2)
            }
        }
        return current
    }
}
