import MeshNode

/// The messages a run injects: each one handed to its origin's app as
/// `.command(.send(payload:to:))` at its time.
public struct Workload: Hashable, Sendable {
    public struct Message: Hashable, Sendable {
        public var time: Instant
        public var origin: Int
        /// Destination node, or nil for a broadcast to every node.
        public var destination: Int?
        public init(time: Instant, origin: Int, destination: Int?) {
            self.time = time
            self.origin = origin
            self.destination = destination
        }
    }

    public enum Mode: String, Hashable, Sendable, CaseIterable {
        case broadcast, unicast
    }

    public var messages: [Message]
    /// Bytes of each payload (at least `WorkloadPayload.headerSize`).
    public var payloadSize: Int

    public init(messages: [Message], payloadSize: Int = 32) {
        self.messages = messages
        self.payloadSize = max(payloadSize, WorkloadPayload.headerSize)
    }

    /// `count` messages from random origins, one every `interval` from `start`; unicast ones
    /// go to a random node other than the origin.
    public static func random(count: Int, nodes: Int, mode: Mode, start: Instant = .seconds(1),
                              interval: Duration = .milliseconds(100), payloadSize: Int = 32, seed: UInt64) -> Workload {
        var random = SimRandom(seed: SimRandom.derive(seed, 0, salt: 0x3011))
        var messages: [Message] = []
        guard nodes > 0 else { return Workload(messages: [], payloadSize: payloadSize) }
        for index in 0..<count {
            let origin = Int(random.next() % UInt64(nodes))
            var destination: Int?
            if mode == .unicast, nodes > 1 {
                let pick = Int(random.next() % UInt64(nodes - 1))
                destination = pick >= origin ? pick + 1 : pick
            }
            let time = Instant(nanoseconds: start.nanoseconds + Int64(index) * interval.simNanoseconds)
            messages.append(Message(time: time, origin: origin, destination: destination))
        }
        return Workload(messages: messages, payloadSize: payloadSize)
    }
}

/// The payload the simulator injects: "MSIM" + the message index (big-endian UInt32), padded.
/// Reading it back from an app delivery ties the delivery to its workload message whatever
/// the dialect does to the bytes on the way.
public enum WorkloadPayload {
    static let magic: [UInt8] = Array("MSIM".utf8)
    public static let headerSize = 8

    public static func make(index: Int, size: Int) -> [UInt8] {
        var bytes = magic
        let value = UInt32(truncatingIfNeeded: index)
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        while bytes.count < size { bytes.append(UInt8(truncatingIfNeeded: bytes.count)) }
        return bytes
    }

    public static func index(of payload: [UInt8]) -> Int? {
        guard payload.count >= headerSize, Array(payload[0..<4]) == magic else { return nil }
        return Int(payload[4]) << 24 | Int(payload[5]) << 16 | Int(payload[6]) << 8 | Int(payload[7])
    }
}
