/// Why a host-stack decoder (H4, HCI, L2CAP, ATT, advertising data) refused its input.
///
/// The `code` is the stable part: tests, `meshconform decode`, fuzz reports and the docs
/// (docs/ble-host.md) name errors by it, so a code is never renamed. `detail` is for humans.
/// These bytes come from an untrusted controller or peer, so every refusal is a value, never a trap.
public struct HostWireError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable, CaseIterable, Codable {
        /// The input ends before a field it must contain (includes empty input).
        case truncated
        /// A length field disagrees with the bytes it describes, or a list is not a whole number of entries.
        case lengthMismatch
        /// Bytes remain after a complete value where the format allows none.
        case trailingBytes
        /// An H4 packet indicator other than 0x01 command, 0x02 ACL, 0x03 SCO, 0x04 event, 0x05 ISO.
        case unknownPacketType
        /// A connection handle above 0x0EFF (the largest the Core spec allows).
        case badHandle
        /// Bits the spec reserves are set (ACL broadcast flag 0b11, for example).
        case reservedBits
        /// A field holds a value its layer does not define (Find Information format 3, Execute Write flag 2, signalling identifier 0, ...).
        case badValue
        /// Input larger than the layer's bound (an L2CAP PDU above the recombiner's maximum, adv data above 31 bytes, ...).
        case tooLarge
        /// Text or bytes that are not a 16-, 32- or 128-bit Bluetooth UUID.
        case badUUID
        /// Text that is not a Bluetooth device address `AA:BB:CC:DD:EE:FF`.
        case badAddress
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }

    public static func truncated(need: Int, have: Int, at offset: Int) -> HostWireError {
        HostWireError(.truncated, "need \(need) byte(s) at offset \(offset), have \(have)")
    }
}
