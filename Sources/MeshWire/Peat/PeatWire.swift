/// Numbers and checks shared by the peat formats (docs/dialects/peat.md section 2), kept in one
/// place so every peat decoder applies the same limits with the same error codes.
public enum PeatWire {
    /// The first byte of a GATT value selects what it is (PEAT-W1): these five are frames; any
    /// other first byte starts a plain document.
    public static let encryptedMarker: UInt8 = 0xAE
    public static let peerE2EEMarker: UInt8 = 0xAF
    public static let keyExchangeMarker: UInt8 = 0xB0
    public static let relayEnvelopeMarker: UInt8 = 0xB1
    public static let deltaDocumentMarker: UInt8 = 0xB2
    public static let frameMarkers: ClosedRange<UInt8> = 0xAE...0xB2

    /// Section markers inside a document, in the only order an encoder writes them.
    public static let peripheralMarker: UInt8 = 0xAB
    public static let emergencyMarker: UInt8 = 0xAC
    public static let chatMarker: UInt8 = 0xAD

    /// 2020-01-01T00:00:00Z in milliseconds: peat-btle refuses earlier event timestamps as spoofed.
    public static let minimumTimestamp: UInt64 = 1_577_836_800_000
    /// One GATT attribute value (document MAX_DOCUMENT_SIZE, and the binding's limit).
    public static let maxValueSize = 512
    public static let maxCounterEntries = 256
    public static let maxEmergencyAcks = 256

    /// FNV-1a, 32 bits: meshconform's payload hash for fresh message ids (peat-btle's own hash
    /// function is not on the wire's contract: only the id's uniqueness is) and the node id of
    /// an address longer than 4 bytes.
    public static func digest32<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return hash
    }

    static func checkSize(_ count: Int, _ context: @autoclosure () -> String) throws(WireError) {
        guard count <= maxValueSize else {
            throw WireError(.tooLarge, "\(context()) is \(count) bytes, above the \(maxValueSize)-byte maximum")
        }
    }

    static func nonZeroNode(_ id: UInt32, _ field: @autoclosure () -> String) throws(WireError) -> UInt32 {
        guard id != 0 else { throw WireError(.valueOutOfRange, "\(field()) is 0, which peat reserves for \"no node\"") }
        return id
    }

    /// A timestamp in ms since 1970 that peat-btle would accept; `allowZero` for the fields where
    /// 0 means "not set".
    static func timestamp(_ ts: UInt64, _ field: @autoclosure () -> String, allowZero: Bool) throws(WireError) -> UInt64 {
        guard ts >= minimumTimestamp || (allowZero && ts == 0) else {
            throw WireError(.badDate, "\(field()) \(ts) ms is before 2020-01-01 (\(minimumTimestamp))")
        }
        return ts
    }

    static func marker(_ r: inout ByteReader, _ expected: UInt8, _ context: @autoclosure () -> String) throws(WireError) {
        let m = try r.readU8()
        guard m == expected else {
            throw WireError(.unknownType, "\(context()): marker 0x\(String(m, radix: 16, uppercase: true)), expected 0x\(String(expected, radix: 16, uppercase: true))")
        }
    }

    /// Flag bytes whose undefined bits must be clear, so every accepted value re-encodes to itself.
    static func flags(_ byte: UInt8, defined: UInt8, _ field: @autoclosure () -> String) throws(WireError) -> UInt8 {
        guard byte & ~defined == 0 else {
            throw WireError(.valueOutOfRange, "\(field()) 0x\(String(byte, radix: 16)) sets undefined bits")
        }
        return byte
    }

    static func reserved(_ byte: UInt8, _ field: @autoclosure () -> String) throws(WireError) {
        guard byte == 0 else { throw WireError(.valueOutOfRange, "\(field()): reserved byte is 0x\(String(byte, radix: 16)), must be 0") }
    }
}

extension JSONFields {
    /// A u32 node id in the neutral form (a plain JSON integer).
    func peatNode(_ key: String) throws(WireError) -> UInt32 { try integer(key) }
}
