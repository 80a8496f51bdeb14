import Foundation

/// A relay presence beacon: `{"hop":<UInt8>,"origin":"<UUID>","seqNo":<UInt32>,"ttl":<UInt8>}`.
///
/// Meant to travel as packet type 'B' (0x42); the app really sends it as 'F', which receivers
/// then fail to read as a FrameHeader (a vector keeps that case).
public struct Beacon: WireFormat, NeutralForm {
    public static let formatID: FormatID = "relay.beacon"

    public var origin: UUID
    public var seqNo: UInt32
    public var ttl: UInt8
    public var hop: UInt8

    public init(origin: UUID, seqNo: UInt32, ttl: UInt8, hop: UInt8) {
        self.origin = origin
        self.seqNo = seqNo
        self.ttl = ttl
        self.hop = hop
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try self.init(fields: JSONFields(parsing: bytes, context: "Beacon"))
    }

    public init(neutral: JSONValue) throws(WireError) {
        try self.init(fields: JSONFields(neutral, context: "Beacon"))
    }

    // The neutral form is the wire form: no field needs another notation.
    private init(fields f: JSONFields) throws(WireError) {
        origin = try f.uuid("origin")
        seqNo = try f.integer("seqNo")
        ttl = try f.integer("ttl", rangeCode: .ttlOutOfRange)
        hop = try f.integer("hop", rangeCode: .ttlOutOfRange)
    }

    public func encoded() -> [UInt8] { JSONWriter.write(neutral) }

    public var neutral: JSONValue {
        .object([("origin", .uuid(origin)), ("seqNo", .integer(seqNo)), ("ttl", .integer(ttl)), ("hop", .integer(hop))])
    }
}
