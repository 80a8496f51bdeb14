/// What the simulator's clock can wake up for: plain data, held in the event queue itself.
/// Node indices are `Int32` to keep the queue's entries small: a 10,000-node run holds
/// hundreds of thousands of them.
enum SimEvent {
    /// A node powers on (first start, or a join after a failure) and learns its live links.
    case start(node: Int32)
    /// The bytes of `packet` (an index in the simulator's packet table, shared by the copies
    /// one send action puts on several links) arrive at `node` on its own link id, carried by
    /// `edge` (the link's edge, so the reception need not look it up). `tag` follows the
    /// workload message that caused the transmission, for duplicate and hop accounting.
    case receive(node: Int32, link: Int32, edge: Int32, packet: Int32, tag: CauseTag)
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
