/// Reads fixed-width fields forward through a byte slice.
///
/// Every read checks the bytes are there first and throws `truncated` otherwise, so a length
/// field can never make a decoder allocate or index past what it was given.
public struct ByteReader {
    public let bytes: ArraySlice<UInt8>
    public private(set) var index: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    /// Offset from the start of the input, for error messages.
    public var offset: Int { index - bytes.startIndex }
    public var remaining: Int { bytes.endIndex - index }
    public var isAtEnd: Bool { index == bytes.endIndex }

    public mutating func readBytes(_ count: Int) throws(WireError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw .truncated(need: count, have: remaining, at: offset)
        }
        defer { index += count }
        return bytes[index..<index + count]
    }

    /// Steps over `count` bytes without making a slice of them.
    public mutating func skip(_ count: Int) throws(WireError) {
        guard count >= 0, count <= remaining else {
            throw .truncated(need: count, have: remaining, at: offset)
        }
        index += count
    }

    public mutating func readRest() -> ArraySlice<UInt8> {
        defer { index = bytes.endIndex }
        return bytes[index...]
    }

    /// The next byte, not consumed; nil at the end.
    public func peekU8() -> UInt8? { isAtEnd ? nil : bytes[index] }

    @inline(__always) public mutating func readU8() throws(WireError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(need: 1, have: 0, at: offset) }
        defer { index += 1 }
        return bytes[index]
    }

    @inline(__always) public mutating func readU16BE() throws(WireError) -> UInt16 { try UInt16(truncatingIfNeeded: readBE(2)) }
    @inline(__always) public mutating func readU32BE() throws(WireError) -> UInt32 { try UInt32(truncatingIfNeeded: readBE(4)) }
    @inline(__always) public mutating func readU64BE() throws(WireError) -> UInt64 { try readBE(8) }
    @inline(__always) public mutating func readU16LE() throws(WireError) -> UInt16 { try UInt16(truncatingIfNeeded: readLE(2)) }
    @inline(__always) public mutating func readU32LE() throws(WireError) -> UInt32 { try UInt32(truncatingIfNeeded: readLE(4)) }
    @inline(__always) public mutating func readU64LE() throws(WireError) -> UInt64 { try readLE(8) }

    // Integers are read in place: no slice of the input is made for them (a slice is a
    // reference to the input's storage, so a retain and a release per field).
    @inline(__always)
    private mutating func readBE(_ width: Int) throws(WireError) -> UInt64 {
        guard remaining >= width else { throw .truncated(need: width, have: remaining, at: offset) }
        var value: UInt64 = 0
        for i in index..<index + width { value = value << 8 | UInt64(bytes[i]) }
        index += width
        return value
    }

    @inline(__always)
    private mutating func readLE(_ width: Int) throws(WireError) -> UInt64 {
        guard remaining >= width else { throw .truncated(need: width, have: remaining, at: offset) }
        var value: UInt64 = 0
        for i in (index..<index + width).reversed() { value = value << 8 | UInt64(bytes[i]) }
        index += width
        return value
    }

    /// Throws `trailingBytes` unless the whole input has been read.
    public func expectEnd() throws(WireError) {
        guard isAtEnd else {
            throw WireError(.trailingBytes, "\(remaining) byte(s) after the end at offset \(offset)")
        }
    }
}
