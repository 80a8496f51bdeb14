/// The header of a relay Ack packet: the acknowledged frame's `seq`, 8 bytes big-endian.
public struct RelayAck: WireFormat, NeutralForm {
    public static let formatID: FormatID = "relay.ack"
    public static let size = 8

    public var seq: UInt64

    public init(seq: UInt64) { self.seq = seq }

    public init(decoding bytes: borrowing ArraySlice<UInt8>) throws(WireError) {
        try self.init(decoding: bytes.span)
    }

    /// The same decoder over borrowed bytes (no reference kept: an ack is one integer).
    public init(decoding bytes: Span<UInt8>) throws(WireError) {
        // SwiftMeshRelay only checks this length; anything but 8 bytes is not an ack.
        guard bytes.count == Self.size else {
            throw WireError(.lengthMismatch, "ack header is \(bytes.count) byte(s), must be \(Self.size)")
        }
        var seq: UInt64 = 0
        for i in 0..<Self.size { seq = seq << 8 | UInt64(bytes[i]) }
        self.seq = seq
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Self.size)
        w.writeU64BE(seq)
        return w.bytes
    }

    public init(neutral: JSONValue) throws(WireError) {
        seq = try JSONFields(neutral, context: "Ack").uint64Text("seq")
    }

    public var neutral: JSONValue { .object([("seq", .uint64Text(seq))]) }
}
