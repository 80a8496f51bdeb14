/// The address type byte HCI carries next to every device address.
/// A struct over the raw byte, not an enum, so values a controller may add (0xFF anonymous in
/// extended reports) survive a round trip instead of failing the whole event.
public struct AddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let `public` = AddressType(rawValue: 0)
    public static let random = AddressType(rawValue: 1)
    public static let publicIdentity = AddressType(rawValue: 2)
    public static let randomIdentity = AddressType(rawValue: 3)
    public static let anonymous = AddressType(rawValue: 0xFF)

    /// Random or random identity: what own-address-type and the link layer care about.
    public var isRandom: Bool { rawValue == 1 || rawValue == 3 }

    public var description: String {
        switch rawValue {
        case 0: "public"
        case 1: "random"
        case 2: "public-identity"
        case 3: "random-identity"
        case 0xFF: "anonymous"
        default: "type-\(rawValue)"
        }
    }
}

/// A Bluetooth device address: six bytes, shown most significant first (`AA:BB:CC:DD:EE:FF`),
/// little-endian on the air, plus its type.
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible {
    /// Display order: `bytes[0]` is the `AA` of `AA:BB:CC:DD:EE:FF`.
    public let bytes: [UInt8]
    public var type: AddressType

    public init(bytes: [UInt8], type: AddressType = .random) throws(HostWireError) {
        guard bytes.count == 6 else { throw HostWireError(.badAddress, "\(bytes.count) byte(s); an address has 6") }
        self.bytes = bytes
        self.type = type
    }

    /// From the six on-air (little-endian) bytes.
    public init(littleEndian bytes: some Collection<UInt8>, type: AddressType) throws(HostWireError) {
        try self.init(bytes: Array(bytes.reversed()), type: type)
    }

    /// `AA:BB:CC:DD:EE:FF`, any case.
    public init(string: String, type: AddressType = .random) throws(HostWireError) {
        let parts = string.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { throw HostWireError(.badAddress, "not AA:BB:CC:DD:EE:FF: \(string.prefix(40))") }
        var out: [UInt8] = []
        for p in parts {
            guard p.utf8.count == 2, let v = UInt8(p, radix: 16) else {
                throw HostWireError(.badAddress, "not AA:BB:CC:DD:EE:FF: \(string.prefix(40))")
            }
            out.append(v)
        }
        try self.init(bytes: out, type: type)
    }

    public var littleEndianBytes: [UInt8] { bytes.reversed() }

    /// A random static address has its two top bits set and is neither all ones nor all zeros
    /// in the remaining 46 bits (Core Vol 6 Part B 1.3.2.1).
    public var isRandomStatic: Bool {
        guard bytes[0] & 0xC0 == 0xC0 else { return false }
        let rest = [bytes[0] & 0x3F] + bytes[1...]
        return rest.contains { $0 != 0 } && !(rest[0] == 0x3F && rest.dropFirst().allSatisfy { $0 == 0xFF })
    }

    public var string: String { bytes.map { b in String(b, radix: 16, uppercase: true).leftPadded(2) }.joined(separator: ":") }
    public var description: String { "\(string) (\(type))" }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
