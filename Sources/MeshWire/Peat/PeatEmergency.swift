/// An emergency event with its acknowledgement map (peat-btle `EmergencyEvent`), all little-endian:
/// `source u32 | timestamp u64 ms | num_acks u32 | num_acks * (node u32, acked u8)`.
///
/// Identity is `(source, timestamp)`; nodes merge ack maps with OR (PEAT-R6), so the map is a
/// set of facts that only grow: entries are strictly ascending by node and `acked` is 0 or 1.
public struct PeatEmergency: WireFormat, NeutralForm {
    public static let formatID: FormatID = "peat.emergency"
    static let headerSize = 16
    static let ackSize = 5

    public var source: UInt32
    /// Milliseconds since 1970.
    public var timestamp: UInt64
    /// The ack map as on the wire, `ackSize` bytes per entry (node u32 little-endian, acked 0
    /// or 1): a slice of the input when decoded (a decode allocates no array), of the encoded
    /// entries when built or set through `acks`. One byte form per map, so comparing the bytes
    /// compares the maps.
    public private(set) var ackBytes: ArraySlice<UInt8>
    public var ackCount: Int { ackBytes.count / Self.ackSize }

    /// node -> has acked, ascending by node: a copy made on each read (`ackBytes` is the
    /// stored form); setting it encodes the entries.
    public var acks: [(node: UInt32, acked: Bool)] {
        get {
            ackBytes.withUnsafeBytes { raw in
                stride(from: 0, to: raw.count, by: Self.ackSize).map { at in
                    (node: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)), acked: raw[at + 4] == 1)
                }
            }
        }
        set {
            var w = ByteWriter(capacity: newValue.count * Self.ackSize)
            for a in newValue {
                w.writeU32LE(a.node)
                w.writeU8(a.acked ? 1 : 0)
            }
            ackBytes = w.bytes[...]
        }
    }

    public init(source: UInt32, timestamp: UInt64, acks: [(node: UInt32, acked: Bool)]) {
        self.source = source
        self.timestamp = timestamp
        self.ackBytes = []
        self.acks = acks
    }

    public init(decoding bytes: borrowing ArraySlice<UInt8>) throws(WireError) {
        try self.init(section: 0..<bytes.count, of: bytes)
    }

    /// The event at `section` (offsets from the start of `bytes`), its acks a slice of `bytes`
    /// (a document's emergency section is decoded this way).
    init(section: Range<Int>, of bytes: borrowing ArraySlice<UInt8>) throws(WireError) {
        let layout = try Layout(decoding: bytes.span.extracting(section))
        let start = bytes.startIndex + section.lowerBound
        self.init(layout, ackBytes: bytes[(start + layout.acks.lowerBound)..<(start + layout.acks.upperBound)])
    }

    /// The same decoder over borrowed bytes; the value copies the ack entries (it owns its bytes).
    public init(decoding bytes: Span<UInt8>) throws(WireError) {
        self = try bytes.read { r throws(WireError) in
            let layout = try Layout(&r)
            return PeatEmergency(layout, ackBytes: r.withBytes(layout.acks) { ArraySlice($0) })
        }
    }

    /// An event read in place: its fields and where its acks lie (offsets from the start of the
    /// input, `ackSize` bytes each, checked). The same rules and errors as
    /// `PeatEmergency(decoding:)`, which is built on it; holds no reference to the input.
    public struct Layout: Hashable, Sendable {
        public var source: UInt32
        public var timestamp: UInt64
        public var acks: Range<Int>
        public var ackCount: Int { acks.count / PeatEmergency.ackSize }

        public init(decoding bytes: Span<UInt8>) throws(WireError) {
            self = try bytes.read { r throws(WireError) in try Layout(&r) }
        }

        /// Reads all of `r` (a document's emergency section reads its section this way).
        init(_ r: inout BorrowedByteReader) throws(WireError) {
            source = try PeatWire.nonZeroNode(try r.readU32LE(), "Emergency.source")
            timestamp = try PeatWire.timestamp(try r.readU64LE(), "Emergency.timestamp", allowZero: false)
            let count = try r.readU32LE()
            // Checked before any entry is read, so a hostile count costs nothing (peat-btle's DoS limit).
            guard count <= PeatWire.maxEmergencyAcks else {
                throw WireError(.valueOutOfRange, "Emergency.num_acks \(count) is above \(PeatWire.maxEmergencyAcks)")
            }
            guard r.remaining >= Int(count) * PeatEmergency.ackSize else {
                throw .truncated(need: Int(count) * PeatEmergency.ackSize, have: r.remaining, at: r.offset)
            }
            acks = r.offset..<r.offset + Int(count) * PeatEmergency.ackSize
            var last: UInt32?
            for i in 0..<Int(count) {
                let node = try PeatWire.nonZeroNode(try r.readU32LE(), "Emergency.acks[\(i)].node")
                if let last, node <= last {
                    throw WireError(.outOfOrder, "Emergency.acks[\(i)].node \(node) does not follow \(last)")
                }
                last = node
                let flag = try r.readU8()
                guard flag <= 1 else { throw WireError(.valueOutOfRange, "Emergency.acks[\(i)].acked is \(flag), must be 0 or 1") }
            }
            try r.expectEnd()
        }
    }

    /// The value of a checked layout, with its ack entries' bytes.
    init(_ layout: Layout, ackBytes: ArraySlice<UInt8>) {
        source = layout.source
        timestamp = layout.timestamp
        // An empty map keeps no reference to the input.
        self.ackBytes = ackBytes.isEmpty ? [] : ackBytes
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Self.headerSize + ackBytes.count)
        w.writeU32LE(source)
        w.writeU64LE(timestamp)
        w.writeU32LE(UInt32(ackCount))
        w.write(ackBytes)
        return w.bytes
    }

    public init(neutral: JSONValue) throws(WireError) {
        let f = try JSONFields(neutral, context: "Emergency")
        var acks: [(node: UInt32, acked: Bool)] = []
        for (i, e) in try f.array("acks").enumerated() {
            let a = try JSONFields(e, context: "Emergency.acks[\(i)]")
            acks.append((try a.peatNode("node"), try a.bool("acked")))
        }
        self.init(source: try f.peatNode("source"), timestamp: try f.uint64Text("timestamp"), acks: acks)
        // Built values obey the decoder's rules, so `encode` never writes what `decode` refuses.
        _ = try PeatEmergency(decoding: encoded())
    }

    public var neutral: JSONValue {
        .object([("source", .integer(source)), ("timestamp", .uint64Text(timestamp)),
                 ("acks", .array(acks.map { .object([("node", .integer($0.node)), ("acked", .bool($0.acked))]) }))])
    }

    // MARK: PEAT-R6, the CRDT merge

    /// Merges `other` into this event: the same `(source, timestamp)` ORs the ack maps, a
    /// different event replaces this one only when it is newer. Returns whether anything changed.
    public mutating func merge(_ other: PeatEmergency) -> Bool {
        guard source == other.source, timestamp == other.timestamp else {
            guard other.timestamp > timestamp else { return false }
            self = other
            return true
        }
        var map = Dictionary(acks.map { ($0.node, $0.acked) }, uniquingKeysWith: { $0 || $1 })
        var changed = false
        for a in other.acks {
            let mine = map[a.node]
            if mine == nil || (a.acked && mine == false) {
                // A node we did not track yet is a change too: the map grew.
                map[a.node] = (mine ?? false) || a.acked
                changed = true
            }
        }
        acks = map.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return changed
    }
}
