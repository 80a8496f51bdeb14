/// Appends fixed-width fields; the mirror of `ByteReader`.
public struct ByteWriter {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func write<S: Sequence>(_ data: S) where S.Element == UInt8 { bytes.append(contentsOf: data) }
    public mutating func writeU8(_ v: UInt8) { bytes.append(v) }
    public mutating func writeU16BE(_ v: UInt16) { writeBE(UInt64(v), 2) }
    public mutating func writeU32BE(_ v: UInt32) { writeBE(UInt64(v), 4) }
    public mutating func writeU64BE(_ v: UInt64) { writeBE(v, 8) }
    public mutating func writeU16LE(_ v: UInt16) { writeLE(UInt64(v), 2) }
    public mutating func writeU32LE(_ v: UInt32) { writeLE(UInt64(v), 4) }
    public mutating func writeU64LE(_ v: UInt64) { writeLE(v, 8) }

    private mutating func writeBE(_ v: UInt64, _ width: Int) {
        for i in stride(from: width - 1, through: 0, by: -1) { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    private mutating func writeLE(_ v: UInt64, _ width: Int) {
        for i in 0..<width { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }
}
