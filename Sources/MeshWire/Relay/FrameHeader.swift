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
        // Every node a frame floods through reads its header: the canonical encoding (what
        // every node of ours writes) is read in place, anything else by the JSON parser, which
        // reads the canonical form to the same header.
        if let header = bytes.withUnsafeBufferPointer(Self.canonical) {
            self = header
            return
        }
        try self.init(fields: JSONFields(parsing: bytes, context: "FrameHeader"), .wire)
    }

    public init(neutral: JSONValue) throws(WireError) {
        try self.init(fields: JSONFields(neutral, context: "FrameHeader"), .neutral)
    }

    /// Internal, not private: the tests read with it what the fast path must agree with.
    init(fields f: JSONFields, _ notation: JSONNotation) throws(WireError) {
        origin = try f.uuid("origin")
        dest = try f.uuid("dest")
        ttl = try f.integer("ttl", rangeCode: .ttlOutOfRange)
        seq = try f.uint64("seq", notation)
    }

    /// `JSONWriter.write(json(.wire))`, written directly (RelayCodecTests compares the two):
    /// every relay of a frame writes its header again.
    public func encoded() -> [UInt8] {
        Array(unsafeUninitializedCapacity: Self.maxEncodedCount) { buffer, count in
            count = write(to: UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped))
        }
    }

    /// The longest encoding: seq of twenty digits, ttl of three.
    static let maxEncodedCount = 132

    /// `encoded()` written at `out`, which has room for `maxEncodedCount` bytes; returns the length.
    func write(to out: UnsafeMutableRawPointer) -> Int {
        var at = 0
        CanonicalText.put(#"{"dest":""#, to: out, &at)
        UUIDText.write(dest.uuid, to: out + at)
        at += 36
        CanonicalText.put(#"","origin":""#, to: out, &at)
        UUIDText.write(origin.uuid, to: out + at)
        at += 36
        CanonicalText.put(#"","seq":"#, to: out, &at)
        at += CanonicalText.writeDecimal(seq, to: out + at)
        CanonicalText.put(#","ttl":"#, to: out, &at)
        at += CanonicalText.writeDecimal(UInt32(ttl), to: out + at)
        CanonicalText.put("}", to: out, &at)
        return at
    }

    /// The header when `text` is exactly a canonical encoding (`encoded()`'s layout, the UUIDs
    /// in either case, integers without leading zeros and in range), else nil.
    static func canonical(_ text: UnsafeBufferPointer<UInt8>) -> FrameHeader? {
        // The literals (37 bytes) and UUIDs (72), then 1-20 and 1-3 digits and the brace.
        guard let base = text.baseAddress, (111...132).contains(text.count) else { return nil }
        let end = text.count
        guard CanonicalText.matches(base, at: 0, #"{"dest":""#),
              let dest = UUIDText.words(UnsafeBufferPointer(start: base + 9, count: 36)),
              CanonicalText.matches(base, at: 45, #"","origin":""#),
              let origin = UUIDText.words(UnsafeBufferPointer(start: base + 57, count: 36)),
              CanonicalText.matches(base, at: 93, #"","seq":"#) else { return nil }
        var at = 101
        guard let seq = CanonicalText.decimal(base, &at, end: end, digits: 20, max: .max),
              end - at >= 9, CanonicalText.matches(base, at: at, #","ttl":"#) else { return nil }
        at += 7
        guard let ttl = CanonicalText.decimal(base, &at, end: end, digits: 3, max: 255), at == end - 1, base[at] == UInt8(ascii: "}") else { return nil }
        return FrameHeader(origin: UUIDText.uuid(origin), dest: UUIDText.uuid(dest), ttl: UInt8(ttl), seq: seq)
    }

    public var neutral: JSONValue { json(.neutral) }

    private func json(_ notation: JSONNotation) -> JSONValue {
        .object([("origin", .uuid(origin)), ("dest", .uuid(dest)), ("ttl", .integer(ttl)), ("seq", .uint64(seq, notation))])
    }
}
