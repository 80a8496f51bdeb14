/// A Bluetooth UUID in one of its three sizes: 16-bit and 32-bit values are shorthands for
/// `0000xxxx-0000-1000-8000-00805F9B34FB` / `xxxxxxxx-0000-1000-8000-00805F9B34FB`.
///
/// Equality is structural (a 16-bit UUID differs from its 128-bit spelling) because the size is
/// part of what goes on the air; use `matches(_:)` to compare meanings. On the air all sizes are
/// little-endian; `bigEndianBytes` is string order.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// String order (most significant byte first); 2, 4 or 16 bytes.
    public let bigEndianBytes: [UInt8]

    /// The Bluetooth Base UUID, 00000000-0000-1000-8000-00805F9B34FB.
    static let base: [UInt8] = [0, 0, 0, 0, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]

    public init(_ short: UInt16) { bigEndianBytes = [UInt8(short >> 8), UInt8(short & 0xFF)] }
    public init(uuid32: UInt32) { bigEndianBytes = (0..<4).map { UInt8(truncatingIfNeeded: uuid32 >> (8 * (3 - $0))) } }

    /// From big-endian (string order) bytes: 2, 4 or 16 of them.
    public init(bigEndian bytes: some Collection<UInt8>) throws(HostWireError) {
        guard [2, 4, 16].contains(bytes.count) else {
            throw HostWireError(.badUUID, "\(bytes.count) byte(s); a UUID has 2, 4 or 16")
        }
        bigEndianBytes = Array(bytes)
    }

    /// From its on-air form: 2, 4 or 16 bytes, little-endian.
    public init(littleEndian bytes: some Collection<UInt8>) throws(HostWireError) {
        try self.init(bigEndian: Array(bytes.reversed()))
    }

    /// "2800", "0x2800", "0000FFF0" (32-bit) or 8-4-4-4-12 text, any case.
    public init(string: String) throws(HostWireError) {
        var s = Substring(string)
        if s.hasPrefix("0x") || s.hasPrefix("0X") { s = s.dropFirst(2) }
        let hex = s.utf8.filter { $0 != UInt8(ascii: "-") }
        let dashes = s.utf8.count - hex.count
        let dashOK = (hex.count == 32 && dashes == 4 && Self.dashesInPlace(s)) || ((hex.count == 4 || hex.count == 8) && dashes == 0)
        guard dashOK else { throw HostWireError(.badUUID, "not a UUID: \(string.prefix(40))") }
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            guard let hi = Self.nibble(hex[i]), let lo = Self.nibble(hex[i + 1]) else {
                throw HostWireError(.badUUID, "not hex: \(string.prefix(40))")
            }
            out.append(hi << 4 | lo)
            i += 2
        }
        bigEndianBytes = out
    }

    private static func dashesInPlace(_ s: Substring) -> Bool {
        let u = Array(s.utf8)
        return u.count == 36 && [8, 13, 18, 23].allSatisfy { u[$0] == UInt8(ascii: "-") }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// 2, 4 or 16.
    public var byteCount: Int { bigEndianBytes.count }
    public var littleEndianBytes: [UInt8] { bigEndianBytes.reversed() }

    /// The 16-bit value when this is a 16-bit UUID.
    public var uuid16: UInt16? { byteCount == 2 ? UInt16(bigEndianBytes[0]) << 8 | UInt16(bigEndianBytes[1]) : nil }

    /// The 128-bit spelling (string order).
    public var expanded: [UInt8] {
        switch byteCount {
        case 16: return bigEndianBytes
        case 4: return bigEndianBytes + Self.base[4...]
        default: return [0, 0] + bigEndianBytes + Self.base[4...]
        }
    }

    /// The shortest spelling: 16-bit when on the base UUID with a 16-bit value, as ATT wants.
    public var shortened: BluetoothUUID {
        let e = expanded
        guard Array(e[4...]) == Array(Self.base[4...]) else { return self }
        if e[0] == 0, e[1] == 0 { return BluetoothUUID(UInt16(e[2]) << 8 | UInt16(e[3])) }
        return self
    }

    /// Same UUID, whatever the size it is spelled in.
    public func matches(_ other: BluetoothUUID) -> Bool { expanded == other.expanded }

    /// "2800" for 16-bit, "0000FFF0" for 32-bit, uppercase 8-4-4-4-12 for 128-bit.
    public var description: String {
        let hex = bigEndianBytes.hostHex.uppercased()
        guard byteCount == 16 else { return hex }
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }

    // GATT attribute types (Bluetooth Assigned Numbers).
    public static let primaryService = BluetoothUUID(0x2800)
    public static let secondaryService = BluetoothUUID(0x2801)
    public static let include = BluetoothUUID(0x2802)
    public static let characteristic = BluetoothUUID(0x2803)
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
}
