/// A bitchat packet (BinaryProtocol v1 / v2), big-endian throughout:
/// `version u8 | type u8 | ttl u8 | timestamp u64 | flags u8 | payloadLength (u16 v1, u32 v2)`,
/// then `senderID 8 | recipientID 8? | route (v2: count u8 + count * 8)? |
/// originalSize (u16 v1, u32 v2)? | payload | signature 64?`, then optional PKCS#7 padding.
///
/// Values keep what is on the wire (flags byte, compressed bytes, pad length), so decoding
/// then encoding gives the same bytes; docs/dialects/bitchat.md (BITCHAT-W1...W9) is the spec.
public struct BitchatPacket: WireFormat, NeutralForm {
    public static let formatID: FormatID = "bitchat.packet"

    public static let idSize = 8
    public static let signatureSize = 64
    /// The app's `FileTransferLimits.maxFramedFileBytes`, its cap on `payloadLength`.
    public static let maxPayloadLength = BitchatCompression.maxOriginalSize

    public struct Flags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let hasRecipient = Flags(rawValue: 0x01)
        public static let hasSignature = Flags(rawValue: 0x02)
        public static let isCompressed = Flags(rawValue: 0x04)
        /// Only meaningful in v2; a v1 decoder ignores it (and keeps it).
        public static let hasRoute = Flags(rawValue: 0x08)
        /// Not covered by the signature; relays may change it.
        public static let isRSR = Flags(rawValue: 0x10)
    }

    /// The compressed form of the payload as it was on the wire.
    public struct Compression: Hashable, Sendable {
        public var format: BitchatCompressionFormat
        /// The declared size (u16 in v1, u32 in v2), equal to `payload.count` once decoded.
        public var originalSize: Int
        /// The compressed bytes: a slice of the decoded input, not a copy.
        public var dataBytes: ArraySlice<UInt8>
        public var data: [UInt8] {
            get { Array(dataBytes) }
            set { dataBytes = newValue[...] }
        }
        public init(format: BitchatCompressionFormat, originalSize: Int, data: [UInt8]) {
            self.init(format: format, originalSize: originalSize, dataBytes: data[...])
        }
        public init(format: BitchatCompressionFormat, originalSize: Int, dataBytes: ArraySlice<UInt8>) {
            self.format = format
            self.originalSize = originalSize
            self.dataBytes = dataBytes
        }
    }

    public var version: UInt8
    public var type: UInt8
    public var ttl: UInt8
    /// Milliseconds since 1970.
    public var timestamp: UInt64
    /// The flags byte as sent: presence bits agree with the fields; reserved bits are kept.
    public var flags: Flags
    /// PKCS#7 pad bytes after the frame (0 = none).
    public var padding: Int

    // The byte fields are slices: of the input when decoded (a decoder copies nothing but an
    // inflated payload: a 255-hop route is one slice, not 255 arrays), of the given arrays when
    // built. The `[UInt8]` properties further down copy on each read; hot paths read these.
    public var senderIDBytes: ArraySlice<UInt8>
    public var recipientIDBytes: ArraySlice<UInt8>?
    /// v2 only: the source route, its 1...255 hops of 8 bytes back to back.
    public var routeBytes: ArraySlice<UInt8>? {
        didSet { unevenRouteHops = nil }
    }
    /// The hop count when `route` was given hops that are not all 8 bytes (an encoding problem).
    private var unevenRouteHops: Int?
    /// The payload, decompressed when `compression` is set.
    public var payloadBytes: ArraySlice<UInt8>
    public var compression: Compression?
    public var signatureBytes: ArraySlice<UInt8>?

    public var senderID: [UInt8] {
        get { Array(senderIDBytes) }
        set { senderIDBytes = newValue[...] }
    }
    public var recipientID: [UInt8]? {
        get { recipientIDBytes.map { Array($0) } }
        set { recipientIDBytes = newValue?[...] }
    }
    /// v2 only: the source route, 1...255 hops of 8 bytes.
    public var route: [[UInt8]]? {
        get {
            routeBytes.map { flat in
                stride(from: flat.startIndex, to: flat.endIndex, by: Self.idSize).map { Array(flat[$0..<min($0 + Self.idSize, flat.endIndex)]) }
            }
        }
        set {
            routeBytes = newValue.map { $0.flatMap { $0 }[...] }
            if let hops = newValue, hops.contains(where: { $0.count != Self.idSize }) { unevenRouteHops = hops.count }
        }
    }
    /// The payload, decompressed when `compression` is set.
    public var payload: [UInt8] {
        get { Array(payloadBytes) }
        set { payloadBytes = newValue[...] }
    }
    public var signature: [UInt8]? {
        get { signatureBytes.map { Array($0) } }
        set { signatureBytes = newValue?[...] }
    }

    public init(
        version: UInt8 = 1, type: UInt8, ttl: UInt8, timestamp: UInt64, senderID: [UInt8], recipientID: [UInt8]? = nil,
        route: [[UInt8]]? = nil, payload: [UInt8], compression: Compression? = nil, signature: [UInt8]? = nil,
        isRSR: Bool = false, padding: Int = 0
    ) {
        self.version = version
        self.type = type
        self.ttl = ttl
        self.timestamp = timestamp
        self.senderIDBytes = senderID[...]
        self.recipientIDBytes = recipientID?[...]
        self.payloadBytes = payload[...]
        self.compression = compression
        self.signatureBytes = signature?[...]
        self.padding = padding
        var f: Flags = []
        if recipientID != nil { f.insert(.hasRecipient) }
        if signature != nil { f.insert(.hasSignature) }
        if compression != nil { f.insert(.isCompressed) }
        if route != nil { f.insert(.hasRoute) }
        if isRSR { f.insert(.isRSR) }
        flags = f
        self.route = route
    }

    public var isRSR: Bool { flags.contains(.isRSR) }
    public var messageType: BitchatMessageType? { BitchatMessageType(rawValue: type) }

    fileprivate static func lengthFieldSize(_ version: UInt8) -> Int { version == 2 ? 4 : 2 }

    // MARK: decoding

    public init(decoding bytes: borrowing ArraySlice<UInt8>) throws(WireError) {
        // The layout reads and checks every field in place; the value then keeps slices of the
        // input (one retain each) and the inflated payload, nothing else copied.
        let layout = try Layout(decoding: bytes.span)
        let start = bytes.startIndex
        func slice(_ range: Range<Int>) -> ArraySlice<UInt8> { bytes[(start + range.lowerBound)..<(start + range.upperBound)] }
        version = layout.version
        type = layout.type
        ttl = layout.ttl
        timestamp = layout.timestamp
        flags = layout.flags
        padding = layout.padding
        senderIDBytes = slice(layout.senderID)
        recipientIDBytes = layout.recipientID.map(slice)
        routeBytes = layout.route.map(slice)
        if let inflated = layout.inflated {
            payloadBytes = inflated.payload[...]
            compression = Compression(format: inflated.format, originalSize: inflated.payload.count, dataBytes: slice(layout.payload))
        } else {
            payloadBytes = slice(layout.payload)
            compression = nil
        }
        signatureBytes = layout.signature.map(slice)
    }

    /// A packet read in place from borrowed bytes: its fields, and where each byte field lies
    /// (offsets from the start of the input). The same rules and errors as
    /// `BitchatPacket(decoding:)`, which is built on it. It holds no reference to the input; the
    /// one allocation is a compressed payload's inflated bytes (BITCHAT-W6 says to inflate).
    public struct Layout: Hashable, Sendable {
        // Four words, all a decode has to return: the byte fields' ranges follow from the
        // version, the flags, the route's hop count and where the payload lies. The 145-byte
        // layout of ranges and optionals came back from the closure that lends the span as a
        // copy and a destroy of the whole value (a fifth of an in-place decode).
        public let version: UInt8
        public let type: UInt8
        public let ttl: UInt8
        public let flags: Flags
        private let padLength: UInt8
        private let routeHops: UInt8
        /// At most 16 + 8 + 8 + 1 + 255 * 8 + 4 = 2,077.
        private let payloadStart: UInt16
        public let timestamp: UInt64
        /// At most `BitchatPacket.maxPayloadLength`, checked before anything is read.
        private let payloadCount: UInt32
        private let inflatedFormat: BitchatCompressionFormat?
        private let inflatedPayload: [UInt8]?

        public var padding: Int { Int(padLength) }
        public var senderID: Range<Int> {
            let start = 3 + 8 + 1 + BitchatPacket.lengthFieldSize(version)
            return start..<start + BitchatPacket.idSize
        }
        public var recipientID: Range<Int>? {
            flags.contains(.hasRecipient) ? senderID.upperBound..<senderID.upperBound + BitchatPacket.idSize : nil
        }
        /// v2 only: the route's hops, 8 bytes each, back to back.
        public var route: Range<Int>? {
            guard routeHops > 0 else { return nil }
            let start = (recipientID ?? senderID).upperBound + 1   // after the hop count
            return start..<start + Int(routeHops) * BitchatPacket.idSize
        }
        /// The payload as on the wire: the compressed data when `inflated` is set.
        public var payload: Range<Int> { Int(payloadStart)..<Int(payloadStart) + Int(payloadCount) }
        public var inflated: Inflated? {
            guard let inflatedFormat, let inflatedPayload else { return nil }
            return Inflated(format: inflatedFormat, payload: inflatedPayload)
        }
        public var signature: Range<Int>? {
            flags.contains(.hasSignature) ? payload.upperBound..<payload.upperBound + BitchatPacket.signatureSize : nil
        }

        /// A compressed payload, inflated: how it was compressed and what it inflates to.
        public struct Inflated: Hashable, Sendable {
            public var format: BitchatCompressionFormat
            public var payload: [UInt8]
        }

        public init(decoding bytes: Span<UInt8>) throws(WireError) {
            self = try bytes.read { r throws(WireError) in try Layout.read(&r) }
        }

        private init(version: UInt8, type: UInt8, ttl: UInt8, timestamp: UInt64, flags: Flags, padding: Int, routeHops: Int,
                     payload: Range<Int>, inflated: Inflated?) {
            self.version = version
            self.type = type
            self.ttl = ttl
            self.flags = flags
            padLength = UInt8(padding)
            self.routeHops = UInt8(routeHops)
            payloadStart = UInt16(payload.lowerBound)
            self.timestamp = timestamp
            payloadCount = UInt32(payload.count)
            inflatedFormat = inflated?.format
            inflatedPayload = inflated?.payload
        }

        // Every field read into a local, the layout built once at the end, all of it inlined
        // into `init(decoding:)`: assigning the fields of `self` one by one in an init that can
        // throw built the layout on the stack and copied it out (retaining the inflated payload).
        @inline(__always)
        private static func read(_ r: inout BorrowedByteReader) throws(WireError) -> Layout {
            let version = try r.readU8()
            guard version == 1 || version == 2 else {
                throw WireError(.unknownType, "version \(version): only 1 and 2 exist")
            }
            let type = try r.readU8()
            let ttl = try r.readU8()
            let timestamp = try r.readU64BE()
            let flags = Flags(rawValue: try r.readU8())
            let payloadLength = version == 2 ? Int(try r.readU32BE()) : Int(try r.readU16BE())
            // Refused before anything is read or allocated for it (the app does the same).
            guard payloadLength <= BitchatPacket.maxPayloadLength else {
                throw WireError(.tooLarge, "payloadLength \(payloadLength) is above \(BitchatPacket.maxPayloadLength)")
            }
            _ = try r.readRange(BitchatPacket.idSize)   // the sender
            if flags.contains(.hasRecipient) { _ = try r.readRange(BitchatPacket.idSize) }
            var routeHops = 0
            if version == 2, flags.contains(.hasRoute) {
                routeHops = Int(try r.readU8())
                guard routeHops > 0 else {
                    throw WireError(.valueOutOfRange, "route hop count 0 with the route flag set (1...255)")
                }
                _ = try r.readRange(routeHops * BitchatPacket.idSize)
            }
            let payload: Range<Int>
            var inflated: Inflated?
            if flags.contains(.isCompressed) {
                let sizeField = BitchatPacket.lengthFieldSize(version)
                guard payloadLength > sizeField else {
                    throw WireError(.lengthMismatch, "compressed payloadLength \(payloadLength) leaves no room after the \(sizeField)-byte original size")
                }
                let originalSize = version == 2 ? Int(try r.readU32BE()) : Int(try r.readU16BE())
                payload = try r.readRange(payloadLength - sizeField)
                let (bytes, format) = try r.withBytes(payload) { data throws(WireError) in
                    try BitchatCompression.inflate(data, originalSize: originalSize)
                }
                inflated = Inflated(format: format, payload: bytes)
            } else {
                payload = try r.readRange(payloadLength)
            }
            if flags.contains(.hasSignature) { _ = try r.readRange(BitchatPacket.signatureSize) }
            let padding = try BitchatPadding.padLength(of: r.readRest(), in: r)
            return Layout(version: version, type: type, ttl: ttl, timestamp: timestamp, flags: flags, padding: padding,
                          routeHops: routeHops, payload: payload, inflated: inflated)
        }
    }

    // MARK: encoding

    /// Why these fields cannot be written as one packet, or nil. Values built in code and
    /// values read from the neutral form go through the same test.
    public var encodingProblem: String? {
        guard version == 1 || version == 2 else { return "version \(version)" }
        if senderIDBytes.count != Self.idSize { return "senderID is \(senderIDBytes.count) bytes, not 8" }
        if let r = recipientIDBytes, r.count != Self.idSize { return "recipientID is \(r.count) bytes, not 8" }
        if let s = signatureBytes, s.count != Self.signatureSize { return "signature is \(s.count) bytes, not 64" }
        if flags.contains(.hasRecipient) != (recipientIDBytes != nil) { return "flag 0x01 disagrees with recipientID" }
        if flags.contains(.hasSignature) != (signatureBytes != nil) { return "flag 0x02 disagrees with signature" }
        if flags.contains(.isCompressed) != (compression != nil) { return "flag 0x04 disagrees with compression" }
        if let routeBytes {
            if version != 2 { return "a route needs version 2" }
            if !flags.contains(.hasRoute) { return "route without flag 0x08" }
            let hops = unevenRouteHops ?? routeBytes.count / Self.idSize
            if hops == 0 || hops > 255 { return "route has \(hops) hops (1...255)" }
            if unevenRouteHops != nil || routeBytes.count % Self.idSize != 0 { return "route hop not 8 bytes" }
        } else if version == 2, flags.contains(.hasRoute) {
            return "flag 0x08 without a route"
        }
        let sizeField = Self.lengthFieldSize(version)
        let payloadLength = compression.map { sizeField + $0.dataBytes.count } ?? payloadBytes.count
        let maxLength = version == 2 ? Self.maxPayloadLength : Int(UInt16.max)
        if payloadLength > maxLength { return "payloadLength \(payloadLength) is above \(maxLength)" }
        if let c = compression {
            if c.dataBytes.isEmpty { return "compressed data is empty" }
            if c.originalSize != payloadBytes.count { return "originalSize \(c.originalSize) is not the payload's \(payloadBytes.count) bytes" }
        }
        if !(0...255).contains(padding) { return "padding \(padding) is outside 0...255" }
        return nil
    }

    /// The frame; callers with untrusted values check `encodingProblem` first.
    public func encoded() -> [UInt8] {
        precondition(encodingProblem == nil, "BitchatPacket: \(encodingProblem ?? "")")
        var w = ByteWriter(capacity: 16 + 16 + (routeBytes?.count ?? 0) + payloadBytes.count + 64 + padding)
        w.writeU8(version)
        w.writeU8(type)
        w.writeU8(ttl)
        w.writeU64BE(timestamp)
        w.writeU8(flags.rawValue)
        let body = compression?.dataBytes ?? payloadBytes
        let payloadLength = body.count + (compression == nil ? 0 : Self.lengthFieldSize(version))
        if version == 2 { w.writeU32BE(UInt32(payloadLength)) } else { w.writeU16BE(UInt16(payloadLength)) }
        w.write(senderIDBytes)
        if let recipientIDBytes { w.write(recipientIDBytes) }
        if let routeBytes {
            w.writeU8(UInt8(routeBytes.count / Self.idSize))
            w.write(routeBytes)
        }
        if let compression {
            if version == 2 { w.writeU32BE(UInt32(compression.originalSize)) } else { w.writeU16BE(UInt16(compression.originalSize)) }
        }
        w.write(body)
        if let signatureBytes { w.write(signatureBytes) }
        w.write(repeatElement(UInt8(padding), count: padding))
        return w.bytes
    }

    /// The same packet with the pad the app's bucket rule gives (BITCHAT-W7).
    public func paddedToBucket() -> BitchatPacket {
        var p = self
        p.padding = 0
        p.padding = BitchatPadding.bucketPadLength(frameLength: p.encoded().count)
        return p
    }

    // MARK: neutral form

    public init(neutral: JSONValue) throws(WireError) {
        let f = try JSONFields(neutral, context: "BitchatPacket")
        version = try f.integer("version")
        type = try f.integer("type")
        ttl = try f.integer("ttl", rangeCode: .ttlOutOfRange)
        timestamp = try f.uint64Text("timestamp")
        flags = Flags(rawValue: try f.integer("flags"))
        senderIDBytes = try f.hex("senderID")[...]
        recipientIDBytes = try f.optionalHex("recipientID")?[...]
        var route: [[UInt8]]?
        if f.optional("route") != nil {
            var hops: [[UInt8]] = []
            for (i, hop) in try f.array("route").enumerated() {
                guard case .string(let text) = hop, let bytes = Hex.decode(text) else {
                    throw WireError(.wrongType, "BitchatPacket.route[\(i)] is not hex")
                }
                hops.append(bytes)
            }
            route = hops
        }
        payloadBytes = try f.hex("payload")[...]
        if let c = f.optional("compression") {
            let cf = try JSONFields(c, context: "BitchatPacket.compression")
            let name = try cf.string("format")
            guard let format = BitchatCompressionFormat(rawValue: name) else {
                throw WireError(.unknownType, "BitchatPacket.compression.format \"\(name)\"")
            }
            compression = Compression(format: format, originalSize: try cf.integer("originalSize"), data: try cf.hex("data"))
        } else {
            compression = nil
        }
        signatureBytes = try f.optionalHex("signature")?[...]
        padding = try f.optionalInteger("padding") ?? 0
        self.route = route
        if let problem = encodingProblem { throw WireError(.valueOutOfRange, "BitchatPacket: \(problem)") }
    }

    public var neutral: JSONValue {
        var m: [(String, JSONValue)] = [
            ("version", .integer(version)), ("type", .integer(type)), ("ttl", .integer(ttl)),
            ("timestamp", .uint64Text(timestamp)), ("flags", .integer(flags.rawValue)), ("senderID", .hex(senderID)),
        ]
        if let recipientID { m.append(("recipientID", .hex(recipientID))) }
        if let route { m.append(("route", .array(route.map { .hex($0) }))) }
        m.append(("payload", .hex(payload)))
        if let c = compression {
            m.append(("compression", .object([
                ("format", .string(c.format.rawValue)), ("originalSize", .integer(c.originalSize)), ("data", .hex(c.data)),
            ])))
        }
        if let signature { m.append(("signature", .hex(signature))) }
        m.append(("padding", .integer(padding)))
        return .object(m)
    }
}
