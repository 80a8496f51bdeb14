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
    // The byte fields are slices: of the input when decoded (a decode allocates no array), of
    // the encoded entries or given arrays when built. The array properties further down copy
    // on each read; hot paths read these.
    /// The G-Counter as on the wire, `entrySize` bytes per entry (node u32, count u64,
    /// little-endian), strictly ascending by node. One byte form per counter, so comparing the
    /// bytes compares the counters.
    public private(set) var counterBytes: ArraySlice<UInt8>
    public var counterCount: Int { counterBytes.count / Self.entrySize }
    public var peripheral: PeatPeripheral?
    public var emergency: PeatEmergency?
    /// The legacy chat CRDT section, carried opaque (peat-btle builds it only with "legacy-chat").
    public var chatBytes: ArraySlice<UInt8>?
    public var trailerBytes: ArraySlice<UInt8>

    /// G-Counter, strictly ascending by node: a copy made on each read; setting it encodes the entries.
    public var counters: [Counter] {
        get {
            counterBytes.withUnsafeBytes { raw in
                stride(from: 0, to: raw.count, by: Self.entrySize).map { at in
                    Counter(node: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)),
                            count: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt64.self)))
                }
            }
        }
        set {
            var w = ByteWriter(capacity: newValue.count * Self.entrySize)
            for c in newValue {
                w.writeU32LE(c.node)
                w.writeU64LE(c.count)
            }
            counterBytes = w.bytes[...]
        }
    }
    public var chat: [UInt8]? {
        get { chatBytes.map { Array($0) } }
        set { chatBytes = newValue?[...] }
    }
    public var trailer: [UInt8] {
        get { Array(trailerBytes) }
        set { trailerBytes = newValue[...] }
    }

    public struct Counter: Hashable, Sendable {
        public var node: UInt32
        public var count: UInt64
        public init(node: UInt32, count: UInt64) { self.node = node; self.count = count }
    }

    public init(version: UInt32, nodeID: UInt32, counters: [Counter] = [], peripheral: PeatPeripheral? = nil,
                emergency: PeatEmergency? = nil, chat: [UInt8]? = nil, trailer: [UInt8] = []) {
        self.version = version
        self.nodeID = nodeID
        self.counterBytes = []
        self.peripheral = peripheral
        self.emergency = emergency
        self.chatBytes = chat?[...]
        self.trailerBytes = trailer[...]
        self.counters = counters
    }

    public init(decoding bytes: borrowing ArraySlice<UInt8>) throws(WireError) {
        // The layout reads and checks every field in place; the value then keeps slices of the
        // input (one retain each, none for an empty field), and its peripheral (no bytes kept).
        let layout = try Layout(decoding: bytes.span)
        let start = bytes.startIndex
        func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
            range.isEmpty ? [] : bytes[(start + range.lowerBound)..<(start + range.upperBound)]
        }
        version = layout.version
        nodeID = layout.nodeID
        counterBytes = slice(layout.counters)
        peripheral = try layout.peripheral.map { range throws(WireError) in try PeatPeripheral(decoding: bytes.span.extracting(range)) }
        emergency = try layout.emergency.map { range throws(WireError) in try PeatEmergency(section: range, of: bytes) }
        chatBytes = layout.chat.map(slice)
        trailerBytes = slice(layout.trailer)
    }

    /// A document read in place from borrowed bytes: its header's fields, and where its
    /// counters and sections lie (offsets from the start of the input, every entry and section
    /// checked). The same rules and errors as `PeatDocument(decoding:)`, which is built on it; it
    /// holds no reference to the input and allocates nothing.
    public struct Layout: Hashable, Sendable {
        // Four words, so a decode returns it in registers: a 15-word layout was returned through
        // memory and copied out with wide loads of narrow stores (a store-forwarding stall per
        // decode, a fifth of its time). A document is at most 512 bytes, so every offset fits
        // 16 bits; no section's data starts at offset 0, so 0 means "no such section".
        private let header: UInt64     // version | nodeID << 32
        private let firstOffsets: UInt64   // counters end | peripheral start, end | emergency start
        private let lastOffsets: UInt64    // emergency end | chat start, end | trailer start
        private let count: Int

        public var version: UInt32 { UInt32(truncatingIfNeeded: header) }
        public var nodeID: UInt32 { UInt32(truncatingIfNeeded: header >> 32) }
        /// `entrySize` (12) bytes per entry: node u32, count u64, little-endian.
        public var counters: Range<Int> { PeatDocument.minimumSize..<Self.offset(firstOffsets, 0) }
        public var counterCount: Int { counters.count / PeatDocument.entrySize }
        /// The peripheral section's bytes, checked: `PeatPeripheral(decoding:)` reads them (a
        /// peripheral holds a string, and a layout holds no value that needs releasing).
        public var peripheral: Range<Int>? { Self.section(firstOffsets, 1) }
        /// The emergency section's bytes, checked: `PeatEmergency.Layout(decoding:)` reads them.
        public var emergency: Range<Int>? {
            let start = Self.offset(firstOffsets, 3)
            return start == 0 ? nil : start..<Self.offset(lastOffsets, 0)
        }
        public var chat: Range<Int>? { Self.section(lastOffsets, 1) }
        public var trailer: Range<Int> { Self.offset(lastOffsets, 3)..<count }

        private static func offset(_ word: UInt64, _ slot: Int) -> Int { Int(truncatingIfNeeded: word >> (16 * slot) & 0xFFFF) }
        private static func section(_ word: UInt64, _ slot: Int) -> Range<Int>? {
            let start = offset(word, slot)
            return start == 0 ? nil : start..<offset(word, slot + 1)
        }

        public init(decoding bytes: Span<UInt8>) throws(WireError) {
            self = try bytes.read { r throws(WireError) in try Layout.read(&r) }
        }

        private init(version: UInt32, nodeID: UInt32, counters: Range<Int>, peripheral: Range<Int>?,
                     emergency: Range<Int>?, chat: Range<Int>?, trailer: Range<Int>) {
            func pack(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> UInt64 {
                UInt64(truncatingIfNeeded: a) | UInt64(truncatingIfNeeded: b) << 16 | UInt64(truncatingIfNeeded: c) << 32 | UInt64(truncatingIfNeeded: d) << 48
            }
            header = UInt64(version) | UInt64(nodeID) << 32
            firstOffsets = pack(counters.upperBound, peripheral?.lowerBound ?? 0, peripheral?.upperBound ?? 0, emergency?.lowerBound ?? 0)
            lastOffsets = pack(emergency?.upperBound ?? 0, chat?.lowerBound ?? 0, chat?.upperBound ?? 0, trailer.lowerBound)
            count = trailer.upperBound
        }

        // Every field read into a local, the layout built once at the end, all of it inlined
        // into `init(decoding:)`: a layout built field by field in a separate init was copied
        // out with wide loads of narrow stores (a store-forwarding stall per decode).
        @inline(__always)
        private static func read(_ r: inout BorrowedByteReader) throws(WireError) -> Layout {
            try PeatWire.checkSize(r.count, "document")
            let version = try r.readU32LE()
            // A receiver dispatches on the first byte (PEAT-W1): this document would be read as a frame.
            guard !PeatWire.frameMarkers.contains(UInt8(truncatingIfNeeded: version)) else {
                throw WireError(.misplacedMarker, "document version \(version) starts with frame marker 0x\(String(UInt8(truncatingIfNeeded: version), radix: 16))")
            }
            let nodeID = try r.readU32LE()
            let count = try r.readU32LE()
            guard count <= PeatWire.maxCounterEntries else {
                throw WireError(.valueOutOfRange, "document num_entries \(count) is above \(PeatWire.maxCounterEntries)")
            }
            guard r.remaining >= Int(count) * PeatDocument.entrySize else {
                throw .truncated(need: Int(count) * PeatDocument.entrySize, have: r.remaining, at: r.offset)
            }
            let counters = try r.readRange(Int(count) * PeatDocument.entrySize)
            // Entries in place (their bytes are there: checked above), node ids non-zero and
            // strictly ascending. One comparison per entry: with `last` starting at 0, a node
            // id at or below it is either 0 or out of order, told apart only when thrown.
            let firstBad: Int? = r.withBytes(counters) { entries in
                var last: UInt32 = 0
                var at = 0
                while at < entries.count {
                    let node = UInt32(littleEndian: entries.loadUnaligned(fromByteOffset: at, as: UInt32.self))
                    if node <= last { return at }
                    last = node
                    at &+= PeatDocument.entrySize
                }
                return nil
            }
            if let at = firstBad.map({ counters.lowerBound + $0 }) {
                let i = (at - counters.lowerBound) / PeatDocument.entrySize
                let node = r.u32LE(at: at)
                _ = try PeatWire.nonZeroNode(node, "document counter[\(i)].node")
                throw WireError(.outOfOrder, "document counter[\(i)].node \(node) does not follow \(r.u32LE(at: at - PeatDocument.entrySize))")
            }
            var peripheral: Range<Int>?
            var emergency: Range<Int>?
            var chat: Range<Int>?
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
                        return try PeatPeripheral.Layout(&section)
                    }
                    peripheral = data
                case PeatWire.emergencyMarker:
                    _ = try r.withBytes(data) { raw throws(WireError) in
                        var section = BorrowedByteReader(raw)
                        return try PeatEmergency.Layout(&section)
                    }
                    emergency = data
                default: chat = data
                }
            }
            return Layout(version: version, nodeID: nodeID, counters: counters, peripheral: peripheral, emergency: emergency,
                          chat: chat, trailer: r.readRest())
        }
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 64 + counterBytes.count)
        w.writeU32LE(version)
        w.writeU32LE(nodeID)
        w.writeU32LE(UInt32(counterCount))
        w.write(counterBytes)
        func section(_ marker: UInt8, _ data: some Collection<UInt8>) {
            w.writeU8(marker)
            w.writeU8(0)
            w.writeU16LE(UInt16(truncatingIfNeeded: data.count))
            w.write(data)
        }
        if let peripheral { section(PeatWire.peripheralMarker, peripheral.encoded()) }
        if let emergency { section(PeatWire.emergencyMarker, emergency.encoded()) }
        if let chatBytes { section(PeatWire.chatMarker, chatBytes) }
        w.write(trailerBytes)
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
