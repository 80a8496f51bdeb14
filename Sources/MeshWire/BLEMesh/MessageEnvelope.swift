import Foundation

/// A BLEMesh message as routed hop by hop: the JSON that `Chunker` slices into chunks.
///
/// Unlike every other BLEMesh message its date is ISO-8601 (whole seconds, `...Z`), because
/// the app sets `.iso8601` on this encoder only. Absent optionals are left out, never `null`.
public struct MessageEnvelope: WireFormat, NeutralForm {
    public static let formatID: FormatID = "blemesh.envelope"

    /// Reassembly allows far more (1024 x 162 bytes); real envelopes are a few hundred bytes,
    /// and this keeps a decoder's work proportionate.
    public static let maxSize = 65536

    public var id: UUID
    public var originID: UUID
    public var originName: String
    /// nil: broadcast to every node.
    public var destinationID: UUID?
    public var conversationID: UUID?
    /// Seconds since 1970-01-01T00:00:00Z. Whole seconds because ISO-8601 as the app writes it
    /// has no fraction; the app signs with the fractional time, so its signatures rarely verify.
    public var timestamp: Int64
    /// Per sender, from 1; part of the dedup key `"<id>-<originID>-<sequenceNumber>"`.
    public var sequenceNumber: UInt64
    /// Hops left, 0...255 (the app starts at 3 and relays only while above 1).
    public var ttl: Int
    /// The origin then every relay, so a relay never sends back to a node already on the path.
    public var hopPath: [UUID]
    /// The payload is a `ControlMessage`; control envelopes are never relayed by the app.
    public var isControlMessage: Bool
    public var isEncrypted: Bool
    public var isGroupMessage: Bool
    public var payload: [UInt8]
    /// Only the app's older "secure" version signs (P-256 ECDSA); the current one never does.
    public var signature: [UInt8]?

    public init(
        id: UUID, originID: UUID, originName: String, destinationID: UUID? = nil, conversationID: UUID? = nil,
        timestamp: Int64, sequenceNumber: UInt64, ttl: Int, hopPath: [UUID],
        isControlMessage: Bool = false, isEncrypted: Bool = false, isGroupMessage: Bool = false,
        payload: [UInt8], signature: [UInt8]? = nil
    ) {
        self.id = id
        self.originID = originID
        self.originName = originName
        self.destinationID = destinationID
        self.conversationID = conversationID
        self.timestamp = timestamp
        self.sequenceNumber = sequenceNumber
        self.ttl = ttl
        self.hopPath = hopPath
        self.isControlMessage = isControlMessage
        self.isEncrypted = isEncrypted
        self.isGroupMessage = isGroupMessage
        self.payload = payload
        self.signature = signature
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try BLEMeshJSON.checkSize(bytes.count, max: Self.maxSize, "MessageEnvelope")
        try self.init(fields: JSONFields(parsing: bytes, context: "MessageEnvelope"), .wire)
    }

    public init(neutral: JSONValue) throws(WireError) {
        try self.init(fields: JSONFields(neutral, context: "MessageEnvelope"), .neutral)
        try BLEMeshJSON.checkSize(encoded().count, max: Self.maxSize, "MessageEnvelope")
    }

    private init(fields f: JSONFields, _ notation: JSONNotation) throws(WireError) {
        id = try f.uuid("id")
        originID = try f.uuid("originID")
        originName = try f.string("originName")
        destinationID = try f.optionalUUID("destinationID")
        conversationID = try f.optionalUUID("conversationID")
        timestamp = try f.iso8601("timestamp")
        sequenceNumber = try f.uint64("sequenceNumber", notation)
        ttl = try BLEMeshJSON.hop(f, "ttl")
        hopPath = try f.uuidArray("hopPath")
        isControlMessage = try f.bool("isControlMessage")
        isEncrypted = try f.bool("isEncrypted")
        isGroupMessage = try f.bool("isGroupMessage")
        payload = try f.bytes("payload", notation)
        signature = try f.optionalBytes("signature", notation)
    }

    /// The control message a control envelope carries, or nil for a user message.
    public func controlMessage() throws(WireError) -> ControlMessage? {
        guard isControlMessage else { return nil }
        return try ControlMessage(decoding: payload[...])
    }

    public func encoded() -> [UInt8] { JSONWriter.write(json(.wire)) }

    public var neutral: JSONValue { json(.neutral) }

    private func json(_ notation: JSONNotation) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .uuid(id)),
            ("originID", .uuid(originID)),
            ("originName", .string(originName)),
        ]
        if let destinationID { members.append(("destinationID", .uuid(destinationID))) }
        if let conversationID { members.append(("conversationID", .uuid(conversationID))) }
        members += [
            ("timestamp", .string(ISO8601Seconds.format(timestamp))),
            ("sequenceNumber", .uint64(sequenceNumber, notation)),
            ("ttl", .integer(ttl)),
            ("hopPath", .array(hopPath.map(JSONValue.uuid))),
            ("isControlMessage", .bool(isControlMessage)),
            ("isEncrypted", .bool(isEncrypted)),
            ("isGroupMessage", .bool(isGroupMessage)),
            ("payload", .bytes(payload, notation)),
        ]
        if let signature { members.append(("signature", .bytes(signature, notation))) }
        return .object(members)
    }
}
