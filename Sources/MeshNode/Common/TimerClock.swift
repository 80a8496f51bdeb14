/// Hands out the node's timer ids: one counter per node, so ids never repeat.
struct TimerClock {
    private var next: UInt64 = 1

    /// The id `make()` returns next.
    var upcoming: TimerID { TimerID(next) }

    mutating func make() -> TimerID {
        defer { next &+= 1 }
        return TimerID(next)
    }
}
