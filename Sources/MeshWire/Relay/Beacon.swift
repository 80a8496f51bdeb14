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
        Array(unsafeUninitializedCapacity: Self.maxEncodedCount) { buffer, count in
            count = write(to: UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped))
        }
    }

    /// The longest encoding: hop and ttl of three digits, seqNo of ten.
    static let maxEncodedCount = 88

    /// `encoded()` written at `out`, which has room for `maxEncodedCount` bytes; returns the
    /// length. Every relay of a beacon writes one, so it goes straight into the packet's buffer:
    /// through `Array.append` each literal and digit cost a capacity check and a copy call.
    func write(to out: UnsafeMutableRawPointer) -> Int {
        var at = 0
        func put(_ literal: StaticString) {
            (out + at).copyMemory(from: literal.utf8Start, byteCount: literal.utf8CodeUnitCount)
            at += literal.utf8CodeUnitCount
        }
        put(#"{"hop":"#)
        at += Self.writeDecimal(UInt32(hop), to: out + at)
        put(#","origin":""#)
        UUIDText.write(origin.uuid, to: out + at)
        at += 36
        put(#"","seqNo":"#)
        at += Self.writeDecimal(seqNo, to: out + at)
        put(#","ttl":"#)
        at += Self.writeDecimal(UInt32(ttl), to: out + at)
        put("}")
        return at
    }

    /// `value` in decimal, no leading zeros (as `String(value)` writes it); returns the length.
    private static func writeDecimal(_ value: UInt32, to out: UnsafeMutableRawPointer) -> Int {
        var length = 1, rest = value / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        rest = value
        for at in (0..<length).reversed() {
            out.storeBytes(of: UInt8(ascii: "0") + UInt8(rest % 10), toByteOffset: at, as: UInt8.self)
            rest /= 10
        }
        return length
    }

    /// The beacon when `bytes` are exactly a canonical encoding (`encoded()`'s layout, the UUID
    /// in either case, integers without leading zeros and in range), else nil.
    static func canonical(_ bytes: ArraySlice<UInt8>) -> Beacon? {
        bytes.withUnsafeBufferPointer(canonical)
    }

    /// The same over bytes in place: a node hears several copies of every beacon of its
    /// neighbourhood, so this read is on the path of most receptions in a simulated mesh. The
    /// literals are compared a word at a time (a 7-byte one with its word's last byte masked,
    /// an 11- or 10-byte one as two overlapping words), through pointers: no bounds checks and
    /// no slices (each one retained the input).
    static func canonical(_ text: UnsafeBufferPointer<UInt8>) -> Beacon? {
        // The literals (41 bytes), the UUID (36), then 1-3, 1-10 and 1-3 digits.
        guard let base = text.baseAddress, (75...88).contains(text.count) else { return nil }
        let end = text.count
        let raw = UnsafeRawPointer(base)
        func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        let seven: UInt64 = 0x00FF_FFFF_FFFF_FFFF
        // Every load below ends before `end`: hop leaves `at` at 10 at most, 75 bytes at least.
        var at = 7
        guard word(0) & seven == literal(#"{"hop":"#), let hop = decimal(base, &at, end: end, digits: 3, max: 255),
              word(at) == literal(#","origin":""#), word(at + 3) == literal(#","origin":""#, from: 3),
              let origin = UUIDText.words(UnsafeBufferPointer(start: base + at + 11, count: 36)) else { return nil }
        at += 11 + 36
        guard word(at) == literal(#"","seqNo":"#), word(at + 2) == literal(#"","seqNo":"#, from: 2) else { return nil }
        at += 10
        guard let seqNo = decimal(base, &at, end: end, digits: 10, max: UInt64(UInt32.max)),
              end - at >= 9, word(at) & seven == literal(#","ttl":"#) else { return nil }
        at += 7
        guard let ttl = decimal(base, &at, end: end, digits: 3, max: 255), at == end - 1, base[at] == UInt8(ascii: "}") else { return nil }
        return Beacon(origin: UUIDText.uuid(origin), seqNo: UInt32(seqNo), ttl: UInt8(ttl), hop: UInt8(hop))
    }

    /// Eight bytes of a literal from `offset` as a little-endian word; past its end, its
    /// terminating zero (so a 7-byte literal matches a word whose last byte is masked off).
    @inline(__always)
    private static func literal(_ text: StaticString, from offset: Int = 0) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(text.utf8Start).loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// At most `digits` decimal digits from `at`, before `end`, no leading zero, at most `max`.
    @inline(__always)
    private static func decimal(_ base: UnsafePointer<UInt8>, _ at: inout Int, end: Int, digits: Int, max: UInt64) -> UInt64? {
        let start = at, limit = Swift.min(end, at + digits)
        var value: UInt64 = 0
        while at < limit, case let digit = base[at] &- UInt8(ascii: "0"), digit < 10 {
            value = value &* 10 &+ UInt64(digit)
            at += 1
        }
        guard at > start, at - start == 1 || base[start] != UInt8(ascii: "0"), value <= max else { return nil }
        return value
    }

    public var neutral: JSONValue {
        .object([("origin", .uuid(origin)), ("seqNo", .integer(seqNo)), ("ttl", .integer(ttl)), ("hop", .integer(hop))])
    }
}
