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
    /// Literals and digits go in as bytes: through `String` they cost a conversion and a
    /// UTF-8 view each, and every relay of a beacon writes one.
    func append(to out: inout [UInt8]) {
        JSONWriter.append(#"{"hop":"#, to: &out)
        Self.appendDecimal(UInt32(hop), to: &out)
        JSONWriter.append(#","origin":""#, to: &out)
        UUIDText.append(origin, to: &out)
        JSONWriter.append(#"","seqNo":"#, to: &out)
        Self.appendDecimal(seqNo, to: &out)
        JSONWriter.append(#","ttl":"#, to: &out)
        Self.appendDecimal(UInt32(ttl), to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// `value` in decimal, no leading zeros (as `String(value)` writes it).
    private static func appendDecimal(_ value: UInt32, to out: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { digits in
            var rest = value, first = 10
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: digits[first...])
        }
    }

    /// The beacon when `bytes` are exactly a canonical encoding (`encoded()`'s layout, the UUID
    /// in either case, integers without leading zeros and in range), else nil.
    static func canonical(_ bytes: ArraySlice<UInt8>) -> Beacon? {
        bytes.withUnsafeBufferPointer(canonical)
    }

    /// The same over bytes in place: a node hears several copies of every beacon of its
    /// neighbourhood, so this read is on the path of most receptions in a simulated mesh, and
    /// through pointers it needs no bounds checks and no slices (each one retained the input).
    static func canonical(_ text: UnsafeBufferPointer<UInt8>) -> Beacon? {
        guard let base = text.baseAddress else { return nil }
        let end = text.count
        var at = 0
        func literal(_ expected: StaticString) -> Bool {
            let count = expected.utf8CodeUnitCount
            guard end - at >= count, memcmp(base + at, expected.utf8Start, count) == 0 else { return false }
            at += count
            return true
        }
        // At most `digits` decimal digits, no leading zero, at most `max`.
        func integer(max: UInt64, digits: Int) -> UInt64? {
            let start = at
            var value: UInt64 = 0
            while at < end, at - start < digits, case let digit = base[at] &- UInt8(ascii: "0"), digit < 10 {
                value = value * 10 + UInt64(digit)
                at += 1
            }
            guard at > start, at - start == 1 || base[start] != UInt8(ascii: "0"), value <= max else { return nil }
            return value
        }
        guard literal(#"{"hop":"#), let hop = integer(max: 255, digits: 3),
              literal(#","origin":""#), end - at >= 36,
              let origin = UUIDText.parse(bytes: UnsafeBufferPointer(start: base + at, count: 36))
        else { return nil }
        at += 36
        guard literal(#"","seqNo":"#), let seqNo = integer(max: UInt64(UInt32.max), digits: 10),
              literal(#","ttl":"#), let ttl = integer(max: 255, digits: 3), literal("}"), at == end
        else { return nil }
        return Beacon(origin: origin, seqNo: UInt32(seqNo), ttl: UInt8(ttl), hop: UInt8(hop))
    }

    public var neutral: JSONValue {
        .object([("origin", .uuid(origin)), ("seqNo", .integer(seqNo)), ("ttl", .integer(ttl)), ("hop", .integer(hop))])
    }
}
