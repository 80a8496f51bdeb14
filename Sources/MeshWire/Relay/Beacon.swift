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
        CanonicalText.put(#"{"hop":"#, to: out, &at)
        at += CanonicalText.writeDecimal(UInt32(hop), to: out + at)
        CanonicalText.put(#","origin":""#, to: out, &at)
        UUIDText.write(origin.uuid, to: out + at)
        at += 36
        CanonicalText.put(#"","seqNo":"#, to: out, &at)
        at += CanonicalText.writeDecimal(seqNo, to: out + at)
        CanonicalText.put(#","ttl":"#, to: out, &at)
        at += CanonicalText.writeDecimal(UInt32(ttl), to: out + at)
        CanonicalText.put("}", to: out, &at)
        return at
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
        guard word(0) & seven == CanonicalText.literal(#"{"hop":"#), let hop = CanonicalText.decimal(base, &at, end: end, digits: 3, max: 255),
              word(at) == CanonicalText.literal(#","origin":""#), word(at + 3) == CanonicalText.literal(#","origin":""#, from: 3),
              let origin = UUIDText.words(UnsafeBufferPointer(start: base + at + 11, count: 36)) else { return nil }
        at += 11 + 36
        guard word(at) == CanonicalText.literal(#"","seqNo":"#), word(at + 2) == CanonicalText.literal(#"","seqNo":"#, from: 2) else { return nil }
        at += 10
        guard let seqNo = CanonicalText.decimal(base, &at, end: end, digits: 10, max: UInt64(UInt32.max)),
              end - at >= 9, word(at) & seven == CanonicalText.literal(#","ttl":"#) else { return nil }
        at += 7
        guard let ttl = CanonicalText.decimal(base, &at, end: end, digits: 3, max: 255), at == end - 1, base[at] == UInt8(ascii: "}") else { return nil }
        return Beacon(origin: UUIDText.uuid(origin), seqNo: UInt32(seqNo), ttl: UInt8(ttl), hop: UInt8(hop))
    }

    public var neutral: JSONValue {
        .object([("origin", .uuid(origin)), ("seqNo", .integer(seqNo)), ("ttl", .integer(ttl)), ("hop", .integer(hop))])
    }
}
