import Foundation

/// A point on the node's clock, in nanoseconds from an arbitrary origin. The node never reads
/// a clock: the caller (simulator, virtual radio, stdio or GATT bridge) passes time in.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    public static let zero = Instant(nanoseconds: 0)
    public static func milliseconds(_ ms: Int64) -> Instant { Instant(nanoseconds: ms * 1_000_000) }
    public static func seconds(_ s: Double) -> Instant { Instant(nanoseconds: Int64(s * 1e9)) }

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: Instant, d: Duration) -> Instant {
        Instant(nanoseconds: a.nanoseconds + d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000)
    }
    public static func - (a: Instant, b: Instant) -> Duration { .nanoseconds(a.nanoseconds - b.nanoseconds) }

    /// Seconds as a Double, for logs and for codecs that keep seconds.
    public var seconds: Double { Double(nanoseconds) / 1e9 }
    public var description: String { String(format: "%.3fs", seconds) }
}

/// A link to one neighbour, as the transport numbers it (a GATT connection, a simulated edge,
/// a stdio link id). The node only compares links; it never opens one.
public struct LinkID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var raw: Int
    public init(_ raw: Int) { self.raw = raw }
    public static func < (a: LinkID, b: LinkID) -> Bool { a.raw < b.raw }
    public var description: String { "L\(raw)" }
}

/// A node's mesh identity: 16 bytes for the UUID-based dialects, other sizes for others.
public struct NodeAddress: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ uuid: UUID) { bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) } }

    public var uuid: UUID? {
        guard bytes.count == 16 else { return nil }
        let b = bytes
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    public static func < (a: NodeAddress, b: NodeAddress) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
    public var description: String { uuid?.uuidString ?? bytes.map { String(format: "%02X", $0) }.joined() }
}

/// A timer the node asked for; it comes back as `.timer(id)` when due.
public struct TimerID: Hashable, Sendable, CustomStringConvertible {
    public var raw: UInt64
    public init(_ raw: UInt64) { self.raw = raw }
    public var description: String { "T\(raw)" }
}

/// What the upper tester (the app above the node, or a conformance check) asks the node to do.
public enum UpperTesterCommand: Hashable, Sendable {
    /// Send `payload` to `destination`, or to everyone when it is nil.
    case send(payload: [UInt8], to: NodeAddress?)
}

/// Everything that can happen to a node. Time comes with each event (`Node.handle(_:at:)`).
public enum NodeEvent: Hashable, Sendable {
    case received([UInt8], on: LinkID)
    /// A neighbour is reachable on `link`; its address when the transport knows it, and the
    /// largest unit (one GATT value, in bytes) the link carries from this node in one send when
    /// the transport limits it below the dialect's own maximum (a notification fits ATT_MTU - 3,
    /// RELAY-G3, BLEMESH-G3); nil: no such limit.
    case linkUp(LinkID, peer: NodeAddress?, maxUnit: Int? = nil)
    case linkDown(LinkID)
    case timer(TimerID)
    case command(UpperTesterCommand)
}

/// A node's next event as a caller that sees it coming describes it to `Node.prefetch(for:)`:
/// the bytes of a packet about to arrive (borrowed for the call), or a timer about to fire.
public enum UpcomingInput {
    case packet(UnsafeBufferPointer<UInt8>)
    case timer(TimerID)
}

/// A message the node hands to its app.
public struct AppMessage: Hashable, Sendable {
    public var origin: NodeAddress
    public var destination: NodeAddress?
    public var payload: [UInt8]
    /// The dialect's message identifier (relay seq, blemesh envelope id, ...), as text.
    public var messageID: String

    public init(origin: NodeAddress, destination: NodeAddress?, payload: [UInt8], messageID: String) {
        self.origin = origin
        self.destination = destination
        self.payload = payload
        self.messageID = messageID
    }
}

/// What the node asks its caller to do.
public enum NodeAction: Hashable, Sendable {
    case send([UInt8], on: LinkID)
    case setTimer(TimerID, at: Instant)
    case cancelTimer(TimerID)
    /// Boxed: the largest payload by far (about 50 bytes), which every action would otherwise be
    /// sized for. A relay keeps its sends in an array until they go out; delivering is rare.
    indirect case deliver(AppMessage)
    /// The node drops this link (RELAY-R11: no more than its neighbour limit).
    case disconnect(LinkID)
    /// A message this node originated was acknowledged by its destination (the app's
    /// "delivered" tick): `messageID` as in `AppMessage.messageID`.
    case acknowledged(messageID: String)
}

extension Array where Element == NodeAction {
    /// Appends `actions`; an empty array becomes `actions` itself (nothing copied, no
    /// reference counted): how a path that has its actions in an array of their own hands them
    /// to a caller's array (`Node.handle(_:at:appendingTo:)`). No actions leave it as it is,
    /// its storage kept for the caller's next event.
    mutating func appendAll(_ actions: consuming [NodeAction]) {
        if actions.isEmpty { return }
        if isEmpty { self = actions } else { append(contentsOf: actions) }
    }
}
