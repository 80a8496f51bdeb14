import BLEHost
import MeshWire

/// The BLE host's parsers (`HostParsers.all`: HCI, L2CAP, ATT, advertising data) as fuzz
/// targets. A host parser has no JSON view, so its decoded value is its canonical re-encoding
/// (`{"canonical": hex}`): the round-trip oracle then checks that re-encoding is a fixed
/// point, and the value's size is bounded by the allocation oracle like any other.
extension FuzzTarget {
    init(host parser: HostParser) {
        let reencode = parser.reencode
        self.init(id: parser.id, summary: "BLE host parser \(parser.id) (HostWireError codes)",
                  decode: { bytes throws(WireError) in
                      let canonical: [UInt8]
                      do throws(HostWireError) { canonical = try reencode(bytes) } catch { throw WireError(hostError: error) }
                      return .object([("canonical", .string(Hex.encode(canonical)))])
                  },
                  encode: { value throws(WireError) in
                      guard case .object(let object) = value, case .string(let hex)? = object["canonical"], let bytes = Hex.decode(hex) else {
                          throw WireError(.wrongType, "a host parser's value is {\"canonical\": hex}")
                      }
                      return bytes
                  })
    }
}

extension WireError {
    /// The nearest registry code for a host refusal. The host's own code leads the detail
    /// (`host badHandle: ...`), so findings, corpus feedback (which hashes the detail's words)
    /// and reports still tell `badHandle` from `reservedBits`.
    init(hostError error: HostWireError) {
        let code: WireError.Code = switch error.code {
        case .truncated: .truncated
        case .lengthMismatch: .lengthMismatch
        case .trailingBytes: .trailingBytes
        case .unknownPacketType: .unknownType
        case .badHandle, .reservedBits, .badValue: .valueOutOfRange
        case .tooLarge: .tooLarge
        case .badUUID: .badUUID
        case .badAddress: .wrongType
        }
        self.init(code, "host \(error.code.rawValue): \(error.detail)")
    }
}
