/// The payload of a bitchat `fragment` (0x20) packet, big-endian:
/// `fragmentID 8 | index u16 | total u16 | originalType u8 | data`. The fragments' data,
/// concatenated in index order, is a whole encoded (possibly padded) packet.
public struct BitchatFragment: WireFormat, NeutralForm {
    public static let formatID: FormatID = "bitchat.fragment"
    public static let headerSize = 13
    /// The app's cap on fragments per packet.
    public static let maxTotal = 10_000

    public var index: Int
    public var total: Int
    /// The inner packet's type as the sender claims it: not authenticated, so receivers
    /// dispatch on the reassembled packet's own type (BITCHAT-R9).
    public var originalType: UInt8
    /// The fragment ID and the data, as slices of one buffer: a decoded fragment's is its input
    /// (one reference for both fields, so a decode retains the input once and copies nothing), a
    /// built one's is the ID followed by the data.
    private var storage: ArraySlice<UInt8>
    /// Where the ID ends and the data starts in `storage` (a decoded input has the 5 header
    /// bytes between them).
    private var idEnd: Int
    private var dataStart: Int

    public var fragmentIDBytes: ArraySlice<UInt8> {
        get { storage[storage.startIndex..<idEnd] }
        set { self = BitchatFragment(fragmentIDBytes: newValue, index: index, total: total, originalType: originalType, dataBytes: dataBytes) }
    }
    public var dataBytes: ArraySlice<UInt8> {
        get { storage[dataStart...] }
        set { self = BitchatFragment(fragmentIDBytes: fragmentIDBytes, index: index, total: total, originalType: originalType, dataBytes: newValue) }
    }

    public var fragmentID: [UInt8] {
        get { Array(fragmentIDBytes) }
        set { fragmentIDBytes = newValue[...] }
    }
    public var data: [UInt8] {
        get { Array(dataBytes) }
        set { dataBytes = newValue[...] }
    }

    public init(fragmentID: [UInt8], index: Int, total: Int, originalType: UInt8, data: [UInt8]) {
        self.init(fragmentIDBytes: fragmentID[...], index: index, total: total, originalType: originalType, dataBytes: data[...])
    }

    public init(fragmentIDBytes: ArraySlice<UInt8>, index: Int, total: Int, originalType: UInt8, dataBytes: ArraySlice<UInt8>) {
        storage = (Array(fragmentIDBytes) + dataBytes)[...]
        idEnd = fragmentIDBytes.count
        dataStart = idEnd
        self.index = index
        self.total = total
        self.originalType = originalType
    }

    public init(decoding bytes: borrowing ArraySlice<UInt8>) throws(WireError) {
        // The header is read in place from the borrowed input, and the value's one copy of the
        // slice is its only reference to it: one retain per decode, nothing copied.
        let layout = try Layout(decoding: bytes.span)
        let start = bytes.startIndex
        index = layout.index
        total = layout.total
        originalType = layout.originalType
        idEnd = start + layout.fragmentID.upperBound
        dataStart = start + layout.data.lowerBound
        storage = copy bytes
    }

    /// A fragment read in place from borrowed bytes: its fields, and where its ID and data lie
    /// (offsets from the start of the input). The same rules and errors as
    /// `BitchatFragment(decoding:)`, which is built on it; it holds no reference to the input,
    /// so a decode costs no retain (for loops that only look at fragments).
    public struct Layout: Hashable, Sendable {
        // Four words, so a decode returns it in registers.
        public var index: Int
        public var total: Int
        public var originalType: UInt8
        /// The input's length: the data runs from the header's end to it.
        public var count: Int
        public var fragmentID: Range<Int> { 0..<8 }
        public var data: Range<Int> { BitchatFragment.headerSize..<count }

        public init(decoding bytes: Span<UInt8>) throws(WireError) {
            guard bytes.count >= BitchatFragment.headerSize else {
                // Cut short: the reader names the first field that is missing.
                try bytes.read { r throws(WireError) in
                    try r.skip(8)
                    _ = try r.readU16BE()
                    _ = try r.readU16BE()
                    _ = try r.readU8()
                }
                preconditionFailure("a \(bytes.count)-byte input holds the 13-byte header")
            }
            // The fixed header is read straight from the span (no reader: a fragment is looked
            // at millions of times a second by a fuzzer or a relay), unchecked: the guard above
            // is the bounds check.
            index = Int(bytes[unchecked: 8]) << 8 | Int(bytes[unchecked: 9])
            total = Int(bytes[unchecked: 10]) << 8 | Int(bytes[unchecked: 11])
            // index is 0 or more (two bytes): the test in indexProblem, its text only when thrown.
            if total < 1 || total > BitchatFragment.maxTotal || index >= total, let problem = BitchatFragment.indexProblem(index: index, total: total) {
                throw WireError(.chunkIndexOutOfRange, "BitchatFragment: \(problem)")
            }
            originalType = bytes[unchecked: 12]
            count = bytes.count
        }
    }

    // Equal fields, wherever the bytes are stored.
    public static func == (a: BitchatFragment, b: BitchatFragment) -> Bool {
        a.index == b.index && a.total == b.total && a.originalType == b.originalType
            && a.fragmentIDBytes == b.fragmentIDBytes && a.dataBytes == b.dataBytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(index)
        hasher.combine(total)
        hasher.combine(originalType)
        hasher.combine(fragmentIDBytes)
        hasher.combine(dataBytes)
    }

    static func indexProblem(index: Int, total: Int) -> String? {
        if total < 1 || total > maxTotal { return "total \(total) is outside 1...\(maxTotal)" }
        if index < 0 || index >= total { return "index \(index) is outside 0..<\(total)" }
        return nil
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Self.headerSize + dataBytes.count)
        w.write(fragmentIDBytes)
        w.writeU16BE(UInt16(truncatingIfNeeded: index))
        w.writeU16BE(UInt16(truncatingIfNeeded: total))
        w.writeU8(originalType)
        w.write(dataBytes)
        return w.bytes
    }

    public init(neutral: JSONValue) throws(WireError) {
        let f = try JSONFields(neutral, context: "BitchatFragment")
        let fragmentID = try f.hex("fragmentID")
        guard fragmentID.count == 8 else {
            throw WireError(.lengthMismatch, "BitchatFragment.fragmentID is \(fragmentID.count) bytes, not 8")
        }
        self.init(fragmentID: fragmentID, index: try f.integer("index"), total: try f.integer("total"),
                  originalType: try f.integer("originalType"), data: try f.hex("data"))
        if let problem = Self.indexProblem(index: index, total: total) {
            throw WireError(.chunkIndexOutOfRange, "BitchatFragment: \(problem)")
        }
    }

    public var neutral: JSONValue {
        .object([
            ("fragmentID", .hex(fragmentID)), ("index", .integer(index)), ("total", .integer(total)),
            ("originalType", .integer(originalType)), ("data", .hex(data)),
        ])
    }

    /// Splits an encoded packet into fragments of at most `chunkSize` data bytes (the app:
    /// 469). nil when it would take more than `maxTotal` fragments.
    public static func split(_ frame: [UInt8], fragmentID: [UInt8], originalType: UInt8, chunkSize: Int) -> [BitchatFragment]? {
        precondition(chunkSize > 0)
        let total = max(1, (frame.count + chunkSize - 1) / chunkSize)
        guard total <= maxTotal else { return nil }
        return (0..<total).map { i in
            let start = i * chunkSize
            return BitchatFragment(fragmentIDBytes: fragmentID[...], index: i, total: total, originalType: originalType,
                                   dataBytes: frame[start..<min(frame.count, start + chunkSize)])
        }
    }
}
