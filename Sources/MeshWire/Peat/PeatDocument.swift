/// A peat-btle sync document, little-endian:
/// `version u32 | node_id u32 | num_entries u32 | num_entries * (node u32, count u64)` then
/// sections `marker u8 | 0x00 | len u16 | data` in the order 0xAB peripheral, 0xAC emergency,
/// 0xAD chat, each at most once. The first byte that is not a section marker ends the sections
/// (peat-btle's stop-at-unknown-marker rule); what follows is kept, unread, as `trailer`, so a
/// newer peer's sections survive a relay by an older one.
public struct PeatDocument: WireFormat, NeutralForm {
    public static let formatID: FormatID = "peat.document"
    /// Header and an empty counter: peat-btle's MIN_DOCUMENT_SIZE of 8 cannot hold num_entries.
    public static let minimumSize = 12
    static let entrySize = 12

    public var version: UInt32
    public var nodeID: UInt32
    /// G-Counter, strictly ascending by node.
    public var counters: [Counter]
    public var peripheral: PeatPeripheral?
    public var emergency: PeatEmergency?
    /// The legacy chat CRDT section, carried opaque (peat-btle builds it only with "legacy-chat").
    public var chat: [UInt8]?
    public var trailer: [UInt8]

    public struct Counter: Hashable, Sendable {
        public var node: UInt32
        public var count: UInt64
        public init(node: UInt32, count: UInt64) { self.node = node; self.count = count }
    }

    public init(version: UInt32, nodeID: UInt32, counters: [Counter] = [], peripheral: PeatPeripheral? = nil,
                emergency: PeatEmergency? = nil, chat: [UInt8]? = nil, trailer: [UInt8] = []) {
        self.version = version
        self.nodeID = nodeID
        self.counters = counters
        self.peripheral = peripheral
        self.emergency = emergency
        self.chat = chat
        self.trailer = trailer
    }

    public init(decoding bytes: borrowing ArraySlice<UInt8>) throws(WireError) {
        self = try bytes.span.read { r throws(WireError) in
            let layout = try Layout(&r)
            return PeatDocument(
                version: layout.version, nodeID: layout.nodeID,
                counters: stride(from: layout.counters.lowerBound, to: layout.counters.upperBound, by: Self.entrySize).map { at in
                    Counter(node: r.u32LE(at: at), count: r.u64LE(at: at + 4))
                },
                peripheral: try layout.peripheral.map { range throws(WireError) in
                    try r.withBytes(range) { raw throws(WireError) in
                        var section = BorrowedByteReader(raw)
                        return try PeatPeripheral(&section)
                    }
                },
                emergency: layout.emergency.map { PeatEmergency($0, in: r) },
                chat: layout.chat.map { r.withBytes($0) { Array($0) } }, trailer: r.withBytes(layout.trailer) { Array($0) })
        }
    }

    /// A document read in place from borrowed bytes: its fields, and where its counters, acks,
    /// chat and trailer lie (offsets from the start of the input, every entry checked). The same
    /// rules and errors as `PeatDocument(decoding:)`, which is built on it; it holds no
    /// reference to the input and allocates nothing (the value's counter and ack arrays are
    /// what a decode into `PeatDocument` allocates).
    public struct Layout: Hashable, Sendable {
        public var version: UInt32
        public var nodeID: UInt32
        /// `entrySize` (12) bytes per entry: node u32, count u64, little-endian.
        public var counters: Range<Int>
        public var counterCount: Int { counters.count / PeatDocument.entrySize }
        /// The peripheral section's bytes, checked: `PeatPeripheral(decoding:)` reads them (a
        /// peripheral holds a string, and a layout holds no value that needs releasing).
        public var peripheral: Range<Int>?
        public var emergency: PeatEmergency.Layout?
        public var chat: Range<Int>?
        public var trailer: Range<Int>

        public init(decoding bytes: Span<UInt8>) throws(WireError) {
            self = try bytes.read { r throws(WireError) in try Layout(&r) }
        }

        init(_ r: inout BorrowedByteReader) throws(WireError) {
            try PeatWire.checkSize(r.count, "document")
            version = try r.readU32LE()
            // A receiver dispatches on the first byte (PEAT-W1): this document would be read as a frame.
            guard !PeatWire.frameMarkers.contains(UInt8(truncatingIfNeeded: version)) else {
                throw WireError(.misplacedMarker, "document version \(version) starts with frame marker 0x\(String(UInt8(truncatingIfNeeded: version), radix: 16))")
            }
            nodeID = try r.readU32LE()
            let count = try r.readU32LE()
            guard count <= PeatWire.maxCounterEntries else {
                throw WireError(.valueOutOfRange, "document num_entries \(count) is above \(PeatWire.maxCounterEntries)")
            }
            guard r.remaining >= Int(count) * PeatDocument.entrySize else {
                throw .truncated(need: Int(count) * PeatDocument.entrySize, have: r.remaining, at: r.offset)
            }
            counters = try r.readRange(Int(count) * PeatDocument.entrySize)
            // Entries in place (their bytes are there: checked above), in order: node 0 first, then order.
            var last: UInt32 = 0
            for (i, at) in stride(from: counters.lowerBound, to: counters.upperBound, by: PeatDocument.entrySize).enumerated() {
                let node = try PeatWire.nonZeroNode(r.u32LE(at: at), "document counter[\(i)].node")
                if i > 0, node <= last {
                    throw WireError(.outOfOrder, "document counter[\(i)].node \(node) does not follow \(last)")
                }
                last = node
            }
            peripheral = nil
            emergency = nil
            chat = nil
            var lastMarker: UInt8 = 0
            while let marker = r.peekU8(), (PeatWire.peripheralMarker...PeatWire.chatMarker).contains(marker) {
                // Sections in the encoder's order, each once: a repeat would silently overwrite.
                guard marker > lastMarker else {
                    throw WireError(.misplacedMarker, "section 0x\(String(marker, radix: 16)) at offset \(r.offset) repeats or is out of order")
                }
                lastMarker = marker
                _ = try r.readU8()
                try PeatWire.reserved(try r.readU8(), "section 0x\(String(marker, radix: 16))")
                let data = try r.readRange(Int(try r.readU16LE()))
                // A section is decoded on its own bytes: its errors name offsets within it.
                switch marker {
                case PeatWire.peripheralMarker:
                    _ = try r.withBytes(data) { raw throws(WireError) in
                        var section = BorrowedByteReader(raw)
                        return try PeatPeripheral(&section)
                    }
                    peripheral = data
                case PeatWire.emergencyMarker:
                    emergency = try r.withBytes(data) { raw throws(WireError) in
                        var section = BorrowedByteReader(raw)
                        return try PeatEmergency.Layout(&section)
                    }.shifted(by: data.lowerBound)
                default: chat = data
                }
            }
            trailer = r.readRest()
        }
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 64 + counters.count * Self.entrySize)
        w.writeU32LE(version)
        w.writeU32LE(nodeID)
        w.writeU32LE(UInt32(counters.count))
        for c in counters {
            w.writeU32LE(c.node)
            w.writeU64LE(c.count)
        }
        func section(_ marker: UInt8, _ data: [UInt8]) {
            w.writeU8(marker)
            w.writeU8(0)
            w.writeU16LE(UInt16(truncatingIfNeeded: data.count))
            w.write(data)
        }
        if let peripheral { section(PeatWire.peripheralMarker, peripheral.encoded()) }
        if let emergency { section(PeatWire.emergencyMarker, emergency.encoded()) }
        if let chat { section(PeatWire.chatMarker, chat) }
        w.write(trailer)
        return w.bytes
    }

    public init(neutral: JSONValue) throws(WireError) {
        let f = try JSONFields(neutral, context: "Document")
        var counters: [Counter] = []
        for (i, e) in try f.array("counters").enumerated() {
            let c = try JSONFields(e, context: "Document.counters[\(i)]")
            counters.append(Counter(node: try c.peatNode("node"), count: try c.uint64Text("count")))
        }
        self.init(version: try f.integer("version"), nodeID: try f.peatNode("nodeId"), counters: counters,
                  peripheral: try f.optional("peripheral").map { v throws(WireError) in try PeatPeripheral(neutral: v) },
                  emergency: try f.optional("emergency").map { v throws(WireError) in try PeatEmergency(neutral: v) },
                  chat: try f.optionalHex("chat"), trailer: try f.optionalHex("trailer") ?? [])
        if let chat, chat.count > Int(UInt16.max) { throw WireError(.tooLarge, "Document.chat is \(chat.count) bytes") }
        // The trailer must start with a byte that ends the sections, or it would be read as one.
        if let first = trailer.first, (PeatWire.peripheralMarker...PeatWire.chatMarker).contains(first) {
            throw WireError(.misplacedMarker, "Document.trailer starts with section marker 0x\(String(first, radix: 16))")
        }
        _ = try PeatDocument(decoding: encoded())
    }

    public var neutral: JSONValue {
        var m: [(String, JSONValue)] = [("version", .integer(version)), ("nodeId", .integer(nodeID)),
                                        ("counters", .array(counters.map { .object([("node", .integer($0.node)), ("count", .uint64Text($0.count))]) }))]
        if let peripheral { m.append(("peripheral", peripheral.neutral)) }
        if let emergency { m.append(("emergency", emergency.neutral)) }
        if let chat { m.append(("chat", .hex(chat))) }
        if !trailer.isEmpty { m.append(("trailer", .hex(trailer))) }
        return .object(m)
    }
}
