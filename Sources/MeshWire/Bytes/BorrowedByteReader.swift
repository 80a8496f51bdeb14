/// `ByteReader`'s reads over bytes the caller lends for the duration of one decode (the memory of
/// a `Span`, or of an array slice inside `withUnsafeBytes`): no reference to the bytes is held, so
/// reading costs no retain or release, and byte fields come back as offsets, not slices.
///
/// The same checks and errors as `ByteReader`: every read checks the bytes are there first and
/// throws `truncated` otherwise. Offsets are from the start of the lent bytes. Only the binary
/// decoders' shared layouts (`BitchatPacket.Layout`, `PeatDocument.Layout`, ...) use it, always
/// inside the scope that lends the memory.
struct BorrowedByteReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var count: Int { bytes.count }
    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset == bytes.count }

    /// The offsets of the next `count` bytes, consumed.
    @inline(__always) mutating func readRange(_ count: Int) throws(WireError) -> Range<Int> {
        guard count >= 0, count <= remaining else { throw .truncated(need: count, have: remaining, at: offset) }
        defer { offset += count }
        return offset..<offset + count
    }

    mutating func skip(_ count: Int) throws(WireError) { _ = try readRange(count) }

    @inline(__always) mutating func readRest() -> Range<Int> {
        defer { offset = bytes.count }
        return offset..<bytes.count
    }

    /// The byte at `index` (an offset already read past), unchecked beyond the debug build.
    @inline(__always) subscript(index: Int) -> UInt8 { bytes[index] }

    /// Whether every byte at `range` (offsets already read past) is `value`: eight at a time.
    func allBytes(in range: Range<Int>, equal value: UInt8) -> Bool {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count)
        let word = UInt64(value) &* 0x0101_0101_0101_0101
        var at = range.lowerBound
        while range.upperBound - at >= 8 {
            guard bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self) == word else { return false }
            at += 8
        }
        while at < range.upperBound {
            guard bytes[at] == value else { return false }
            at += 1
        }
        return true
    }

    /// The little-endian integers at an offset already read past (and checked) by a layout.
    @inline(__always) func u32LE(at index: Int) -> UInt32 {
        precondition(index >= 0 && index + 4 <= bytes.count)
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self))
    }
    @inline(__always) func u64LE(at index: Int) -> UInt64 {
        precondition(index >= 0 && index + 8 <= bytes.count)
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
    }

    /// The next byte, not consumed; nil at the end.
    @inline(__always) func peekU8() -> UInt8? { isAtEnd ? nil : bytes[offset] }

    @inline(__always) mutating func readU8() throws(WireError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(need: 1, have: 0, at: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    @inline(__always) mutating func readU16BE() throws(WireError) -> UInt16 { UInt16(bigEndian: try load(UInt16.self)) }
    @inline(__always) mutating func readU32BE() throws(WireError) -> UInt32 { UInt32(bigEndian: try load(UInt32.self)) }
    @inline(__always) mutating func readU64BE() throws(WireError) -> UInt64 { UInt64(bigEndian: try load(UInt64.self)) }
    @inline(__always) mutating func readU16LE() throws(WireError) -> UInt16 { UInt16(littleEndian: try load(UInt16.self)) }
    @inline(__always) mutating func readU32LE() throws(WireError) -> UInt32 { UInt32(littleEndian: try load(UInt32.self)) }
    @inline(__always) mutating func readU64LE() throws(WireError) -> UInt64 { UInt64(littleEndian: try load(UInt64.self)) }

    /// The next integer's bytes in memory order, one unaligned load (not a byte at a time).
    @inline(__always)
    private mutating func load<T: FixedWidthInteger>(_: T.Type) throws(WireError) -> T {
        let width = MemoryLayout<T>.size
        guard remaining >= width else { throw .truncated(need: width, have: remaining, at: offset) }
        defer { offset += width }
        return bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
    }

    /// Throws `trailingBytes` unless the whole input has been read.
    @inline(__always) func expectEnd() throws(WireError) {
        guard isAtEnd else {
            throw WireError(.trailingBytes, "\(remaining) byte(s) after the end at offset \(offset)")
        }
    }

    /// The bytes at `range` (offsets already read past), lent to `body`.
    @inline(__always)
    func withBytes<R, E: Error>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: bytes[range]))
    }
}

extension Span<UInt8> {
    /// Lends the span's bytes to a `BorrowedByteReader` for one decode.
    @inline(__always)
    func read<R>(_ body: (inout BorrowedByteReader) throws(WireError) -> R) throws(WireError) -> R {
        try withUnsafeBytes { raw throws(WireError) in
            var reader = BorrowedByteReader(raw)
            return try body(&reader)
        }
    }
}
