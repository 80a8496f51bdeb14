import Foundation

/// The JSON header of a relay Frame, as SwiftMeshRelay's `JSONEncoder` writes it:
/// `{"dest":"<UUID>","origin":"<UUID>","seq":<UInt64>,"ttl":<UInt8>}` (any key order on input).
public struct FrameHeader: WireFormat, NeutralForm {
    public static let formatID: FormatID = "relay.frame-header"

    public var origin: UUID
    public var dest: UUID
    public var ttl: UInt8
    /// Not a counter: the IEEE-754 bit pattern of the sender's `createdAt.timeIntervalSince1970`.
    /// Usually above 2^53, so it must never pass through a Double.
    public var seq: UInt64

    public init(origin: UUID, dest: UUID, ttl: UInt8, seq: UInt64) {
        self.origin = origin
        self.dest = dest
        self.ttl = ttl
        self.seq = seq
    }

    /// The `seq` SwiftMeshRelay derives from a creation time.
    public static func seq(createdAt secondsSince1970: Double) -> UInt64 { secondsSince1970.bitPattern }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try self.init(fields: JSONFields(parsing: bytes, context: "FrameHeader"), .wire)
    }

    public init(neutral: JSONValue) throws(WireError) {
        try self.init(fields: JSONFields(neutral, context: "FrameHeader"), .neutral)
    }

    private init(fields f: JSONFields, _ notation: JSONNotation) throws(WireError) {
        origin = try f.uuid("origin")
        dest = try f.uuid("dest")
        ttl = try f.integer("ttl", rangeCode: .ttlOutOfRange)
        seq = try f.uint64("seq", notation)
    }

    public func encoded() -> [UInt8] { JSONWriter.write(json(.wire)) }

    public var neutral: JSONValue { json(.neutral) }

    private func json(_ notation: JSONNotation) -> JSONValue {
        .object([("origin", .uuid(origin)), ("dest", .uuid(dest)), ("ttl", .integer(ttl)), ("seq", .uint64(seq, notation))])
    }
}
