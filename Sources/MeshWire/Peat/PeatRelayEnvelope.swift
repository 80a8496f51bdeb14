/// The multi-hop wrapper (peat-btle `RelayEnvelope`): `0xB1 | flags | message_id[16] | hop u8 |
/// max_hops u8 | origin u32 LE | payload_len u32 LE | payload`. Flags: bit 0 requires_ack,
/// bit 1 broadcast. A relay increments `hop` while `hop < max_hops` (PEAT-R3); nothing else changes.
public struct PeatRelayEnvelope: WireFormat, NeutralForm {
    public static let formatID: FormatID = "peat.relay-envelope"
    public static let headerSize = 28
    public static let defaultMaxHops: UInt8 = 7

    public var requiresAck: Bool
    public var broadcast: Bool
    public var messageID: [UInt8]
    public var hop: UInt8
    public var maxHops: UInt8
    public var origin: UInt32
    public var payload: [UInt8]

    public init(requiresAck: Bool = false, broadcast: Bool, messageID: [UInt8], hop: UInt8 = 0,
                maxHops: UInt8 = defaultMaxHops, origin: UInt32, payload: [UInt8]) {
        self.requiresAck = requiresAck
        self.broadcast = broadcast
        self.messageID = messageID
        self.hop = hop
        self.maxHops = maxHops
        self.origin = origin
        self.payload = payload
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try PeatWire.checkSize(bytes.count, "relay envelope")
        var r = ByteReader(bytes)
        try PeatWire.marker(&r, PeatWire.relayEnvelopeMarker, "relay envelope")
        let flags = try PeatWire.flags(try r.readU8(), defined: 0x03, "relay envelope flags")
        requiresAck = flags & 0x01 != 0
        broadcast = flags & 0x02 != 0
        messageID = Array(try r.readBytes(16))
        hop = try r.readU8()
        maxHops = try r.readU8()
        // No relay writes hop past max_hops (PEAT-R3): such an envelope is forged or corrupt.
        guard hop <= maxHops else { throw WireError(.ttlOutOfRange, "relay envelope hop \(hop) is above max_hops \(maxHops)") }
        origin = try PeatWire.nonZeroNode(try r.readU32LE(), "relay envelope origin")
        let length = try r.readU32LE()
        guard UInt64(length) <= UInt64(r.remaining) else {
            throw WireError(.truncated, "relay envelope payload_len \(length) but \(r.remaining) byte(s) follow")
        }
        payload = Array(try r.readBytes(Int(length)))
        try r.expectEnd()
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Self.headerSize + payload.count)
        w.writeU8(PeatWire.relayEnvelopeMarker)
        w.writeU8((requiresAck ? 0x01 : 0) | (broadcast ? 0x02 : 0))
        w.write(messageID)
        w.writeU8(hop)
        w.writeU8(maxHops)
        w.writeU32LE(origin)
        w.writeU32LE(UInt32(truncatingIfNeeded: payload.count))
        w.write(payload)
        return w.bytes
    }

    public init(neutral: JSONValue) throws(WireError) {
        let f = try JSONFields(neutral, context: "RelayEnvelope")
        self.init(requiresAck: try f.bool("requiresAck"), broadcast: try f.bool("broadcast"), messageID: try f.hex("messageId"),
                  hop: try f.integer("hop", rangeCode: .ttlOutOfRange), maxHops: try f.integer("maxHops", rangeCode: .ttlOutOfRange),
                  origin: try f.peatNode("origin"), payload: try f.hex("payload"))
        guard messageID.count == 16 else { throw WireError(.lengthMismatch, "RelayEnvelope.messageId is \(messageID.count) bytes, must be 16") }
        _ = try PeatRelayEnvelope(decoding: encoded())
    }

    public var neutral: JSONValue {
        .object([("requiresAck", .bool(requiresAck)), ("broadcast", .bool(broadcast)), ("messageId", .hex(messageID)),
                 ("hop", .integer(hop)), ("maxHops", .integer(maxHops)), ("origin", .integer(origin)), ("payload", .hex(payload))])
    }

    /// peat-btle's `MessageId::from_content`: origin u32 LE | timestamp ms u64 LE | payload hash u32 LE.
    public static func messageID(origin: UInt32, timestampMs: UInt64, payloadHash: UInt32) -> [UInt8] {
        var w = ByteWriter(capacity: 16)
        w.writeU32LE(origin)
        w.writeU64LE(timestampMs)
        w.writeU32LE(payloadHash)
        return w.bytes
    }
}
