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
        // A node hears every beacon of its neighbourhood from each of its links: most inputs
        // are the canonical encoding, read here byte by byte; anything else goes to the
        // general parser, which would read the canonical form to the same value.
        if let beacon = Self.canonical(bytes) {
            self = beacon
            return
        }
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

    /// `JSONWriter.write(neutral)`, written directly: keys in byte order, no whitespace, the
    /// UUID in uppercase (`UUIDText`), integers in decimal (RelayCodecTests compares the two).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(80)
        append(to: &out)
        return out
    }

    /// `encoded()` appended to `out` (a packet's header, written in the packet's own buffer).
    func append(to out: inout [UInt8]) {
        out += #"{"hop":"#.utf8
        out += String(hop).utf8
        out += #","origin":""#.utf8
        UUIDText.append(origin, to: &out)
        out += #"","seqNo":"#.utf8
        out += String(seqNo).utf8
        out += #","ttl":"#.utf8
        out += String(ttl).utf8
        out.append(UInt8(ascii: "}"))
    }

    /// The beacon when `bytes` are exactly a canonical encoding (`encoded()`'s layout, the UUID
    /// in either case, integers without leading zeros and in range), else nil.
    static func canonical(_ bytes: ArraySlice<UInt8>) -> Beacon? {
        var at = bytes.startIndex
        func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.endIndex - at >= count else { return false }
            for i in 0..<count where bytes[at + i] != text.utf8Start[i] { return false }
            at += count
            return true
        }
        func integer(max: UInt64) -> UInt64? {
            let start = at
            var value: UInt64 = 0
            while at < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]), at - start < 10 {
                value = value * 10 + UInt64(bytes[at] - UInt8(ascii: "0"))
                at += 1
            }
            let digits = at - start
            guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0"), value <= max else { return nil }
            return value
        }
        guard literal(#"{"hop":"#), let hop = integer(max: 255),
              literal(#","origin":""#), bytes.endIndex - at >= 36, let origin = UUIDText.parse(bytes[at..<at + 36])
        else { return nil }
        at += 36
        guard literal(#"","seqNo":"#), let seqNo = integer(max: UInt64(UInt32.max)),
              literal(#","ttl":"#), let ttl = integer(max: 255), literal("}"), at == bytes.endIndex
        else { return nil }
        return Beacon(origin: origin, seqNo: UInt32(seqNo), ttl: UInt8(ttl), hop: UInt8(hop))
    }

    public var neutral: JSONValue {
        .object([("origin", .uuid(origin)), ("seqNo", .integer(seqNo)), ("ttl", .integer(ttl)), ("hop", .integer(hop))])
    }
}
