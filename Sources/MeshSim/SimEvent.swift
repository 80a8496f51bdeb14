/// What the simulator's clock can wake up for. Node indices are `Int32` to keep the heap's
/// entries small: a 10,000-node run holds hundreds of thousands of them.
enum SimEvent {
    /// A node powers on (first start, or a join after a failure) and learns its live links.
    case start(node: Int32)
    /// Bytes arrive at `node` on its own link id. `tag` follows the workload message that
    /// caused the transmission, for duplicate and hop accounting.
    case receive(node: Int32, link: Int32, bytes: [UInt8], tag: CauseTag)
    /// A node timer falls due; `token` tells a live timer from a cancelled or replaced one.
    case timer(node: Int32, id: UInt64, token: UInt64)
    /// The workload's message `index` is handed to its origin's app.
    case inject(message: Int32)
    /// The scheduled churn step `index` (fail, join or move).
    case churn(index: Int32)
}

/// The workload message a transmission descends from (or -1 for background traffic such as
/// beacons), and how many transmissions the chain from the origin took to get here.
struct CauseTag {
    var message: Int32
    var hops: Int32
    static let background = CauseTag(message: -1, hops: 0)
}
