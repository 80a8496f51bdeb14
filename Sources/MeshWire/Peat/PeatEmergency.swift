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
    /// node -> has acked, ascending by node.
    public var acks: [(node: UInt32, acked: Bool)]

    public init(source: UInt32, timestamp: UInt64, acks: [(node: UInt32, acked: Bool)]) {
        self.source = source
        self.timestamp = timestamp
        self.acks = acks
    }

    public init(decoding bytes: borrowing ArraySlice<UInt8>) throws(WireError) {
        try self.init(decoding: bytes.span)
    }

    /// The same decoder over borrowed bytes.
    public init(decoding bytes: Span<UInt8>) throws(WireError) {
        self = try bytes.read { r throws(WireError) in PeatEmergency(try Layout(&r), in: r) }
    }

    /// An event read in place: its fields and where its acks lie (offsets from the start of the
    /// input, `ackSize` bytes each, checked). The same rules and errors as
    /// `PeatEmergency(decoding:)`, which is built on it; holds no reference to the input.
    public struct Layout: Hashable, Sendable {
        public var source: UInt32
        public var timestamp: UInt64
        public var acks: Range<Int>
        public var ackCount: Int { acks.count / PeatEmergency.ackSize }

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

        func shifted(by delta: Int) -> Layout {
            var moved = self
            moved.acks = (acks.lowerBound + delta)..<(acks.upperBound + delta)
            return moved
        }
    }

    /// The value of a checked layout, its acks read from `r`'s bytes.
    init(_ layout: Layout, in r: BorrowedByteReader) {
        source = layout.source
        timestamp = layout.timestamp
        acks = stride(from: layout.acks.lowerBound, to: layout.acks.upperBound, by: Self.ackSize).map { at in
            (node: r.u32LE(at: at), acked: r[at + 4] == 1)
        }
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Self.headerSize + acks.count * Self.ackSize)
        w.writeU32LE(source)
        w.writeU64LE(timestamp)
        w.writeU32LE(UInt32(acks.count))
        for a in acks {
            w.writeU32LE(a.node)
            w.writeU8(a.acked ? 1 : 0)
        }
        return w.bytes
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.source == b.source && a.timestamp == b.timestamp && a.acks.elementsEqual(b.acks) { $0.node == $1.node && $0.acked == $1.acked }
    }

    public func hash(into h: inout Hasher) {
        h.combine(source)
        h.combine(timestamp)
        for a in acks { h.combine(a.node); h.combine(a.acked) }
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
