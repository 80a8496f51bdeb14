/// What the simulator's clock can wake up for: plain data, held in the event queue itself.
/// Node indices are `Int32` to keep the queue's entries small: a 10,000-node run holds
/// hundreds of thousands of them.
enum SimEvent {
    /// A node powers on (first start, or a join after a failure) and learns its live links.
    case start(node: Int32)
    /// The bytes of `packet` arrive at `node` on its own link id, carried by `edge` (the link's
    /// edge, so the reception need not look it up). `tag` follows the workload message that
    /// caused the transmission, for duplicate and hop accounting. The packet first: its pointer
    /// then needs no padding, and a queue entry stays 48 bytes.
    case receive(packet: InFlightPacket, node: Int32, link: Int32, edge: Int32, tag: CauseTag)
    /// A node timer falls due; `token` tells a live timer from a cancelled or replaced one.
    case timer(node: Int32, id: UInt64, token: UInt64)
    /// A timer of a node whose timer ids are fresh (`SimNode.timerIDsAreFresh`) falls due: the
    /// event is the timer's only record. `life` is the node's generation when it was set (a
    /// failure ends its timers), `tag` and `isRelay` what the simulator's metrics count for it.
    case ownTimer(node: Int32, life: Int32, id: UInt64, tag: CauseTag, isRelay: Bool)
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

/// The bytes of one reception in flight, held by its event as the one reference an `Array` is.
///
/// Each send action holds its own reference to its buffer (a relay's seven sends, seven); the
/// transmission moves that reference into the event, and the reception moves it out into the
/// receiving node's input, so no reference is counted between the node that sends and the node
/// that receives. Reference counting is atomic, and an atomic waits for every load and store in
/// flight: in a large mesh, for the misses of this event and the loads started ahead. Held in
/// the event itself, the bytes' address is known as soon as the event is, one load earlier than
/// through a table of packets (a table of every reception in flight is a cache miss per event).
///
/// A plain pointer, so that events stay plain data the queue moves and sorts freely. The rule
/// that makes it safe: every `InFlightPacket` made is taken exactly once (`take()`), by its
/// reception or, for an event never handled, when the run ends.
struct InFlightPacket {
    /// The array's storage object: its header, then the bytes.
    let storage: UnsafeRawPointer

    /// Takes over the reference `bytes` holds.
    init(_ bytes: consuming [UInt8]) {
        var bytes = bytes
        storage = withUnsafeMutablePointer(to: &bytes) { array in
            let storage = UnsafeRawPointer(array).load(as: UnsafeRawPointer.self)
            // An empty array written over it, the old value not ended: its reference is now ours.
            array.initialize(to: [])
            return storage
        }
    }

    /// The bytes, with the reference this packet held. Once per packet.
    func take() -> [UInt8] {
        var bytes: [UInt8] = []   // the static empty storage: written over, nothing is lost
        withUnsafeMutablePointer(to: &bytes) { UnsafeMutableRawPointer($0).storeBytes(of: storage, as: UnsafeRawPointer.self) }
        return bytes
    }

    /// The bytes where they are, for a look ahead: no reference counted, valid while the packet
    /// is in flight.
    var buffer: UnsafeBufferPointer<UInt8> {
        var bytes: [UInt8] = []
        withUnsafeMutablePointer(to: &bytes) { UnsafeMutableRawPointer($0).storeBytes(of: storage, as: UnsafeRawPointer.self) }
        defer { withUnsafeMutablePointer(to: &bytes) { $0.initialize(to: []) } }   // lent, not ours to end
        return bytes.withUnsafeBufferPointer { $0 }
    }
}
