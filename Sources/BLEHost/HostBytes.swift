/// Reads little-endian fields forward through a byte slice (Bluetooth is little-endian on the air).
///
/// Every read checks the bytes are there first and throws `truncated` otherwise, so a length
/// field from an untrusted peer can never make a decoder index or allocate past its input.
/// BLEHost keeps its own reader rather than MeshWire's so its errors are `HostWireError` and the
/// target depends on nothing.
public struct HostReader {
    public let bytes: ArraySlice<UInt8>
    public private(set) var index: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    public var offset: Int { index - bytes.startIndex }
    public var remaining: Int { bytes.endIndex - index }
    public var isAtEnd: Bool { index == bytes.endIndex }

    public mutating func readBytes(_ count: Int) throws(HostWireError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw .truncated(need: count, have: remaining, at: offset)
        }
        defer { index += count }
        return bytes[index..<index + count]
    }

    public mutating func readArray(_ count: Int) throws(HostWireError) -> [UInt8] { Array(try readBytes(count)) }

    public mutating func readRest() -> ArraySlice<UInt8> {
        defer { index = bytes.endIndex }
        return bytes[index...]
    }

    public mutating func readU8() throws(HostWireError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(need: 1, have: 0, at: offset) }
        defer { index += 1 }
        return bytes[index]
    }

    public mutating func readI8() throws(HostWireError) -> Int8 { Int8(bitPattern: try readU8()) }
    public mutating func readU16() throws(HostWireError) -> UInt16 { UInt16(truncatingIfNeeded: try readLE(2)) }
    public mutating func readU24() throws(HostWireError) -> UInt32 { UInt32(truncatingIfNeeded: try readLE(3)) }
    public mutating func readU32() throws(HostWireError) -> UInt32 { UInt32(truncatingIfNeeded: try readLE(4)) }
    public mutating func readU64() throws(HostWireError) -> UInt64 { try readLE(8) }

    private mutating func readLE(_ width: Int) throws(HostWireError) -> UInt64 {
        let b = try readBytes(width)
        var v: UInt64 = 0
        for byte in b.reversed() { v = v << 8 | UInt64(byte) }
        return v
    }

    /// Throws `trailingBytes` unless the whole input has been read.
    public func expectEnd() throws(HostWireError) {
        guard isAtEnd else {
            throw HostWireError(.trailingBytes, "\(remaining) byte(s) after the end at offset \(offset)")
        }
    }
}

/// Appends little-endian fields; the mirror of `HostReader`.
public struct HostWriter {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func write<S: Sequence>(_ data: S) where S.Element == UInt8 { bytes.append(contentsOf: data) }
    public mutating func writeU8(_ v: UInt8) { bytes.append(v) }
    public mutating func writeI8(_ v: Int8) { bytes.append(UInt8(bitPattern: v)) }
    public mutating func writeU16(_ v: UInt16) { writeLE(UInt64(v), 2) }
    public mutating func writeU24(_ v: UInt32) { writeLE(UInt64(v), 3) }
    public mutating func writeU32(_ v: UInt32) { writeLE(UInt64(v), 4) }
    public mutating func writeU64(_ v: UInt64) { writeLE(v, 8) }

    private mutating func writeLE(_ v: UInt64, _ width: Int) {
        for i in 0..<width { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hex without separators, for logs and error details.
    var hostHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for b in self { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
