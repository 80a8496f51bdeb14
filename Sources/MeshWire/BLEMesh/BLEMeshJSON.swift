/// JSON conventions shared by the BLEMesh formats, kept in one place so every message reads
/// hop fields, bytes and sizes the same way.
enum BLEMeshJSON {
    /// The two notations a BLEMesh value is read from and written to: the app's own JSON
    /// (`Data` as base64, UInt64 as a number) or the neutral form of docs/vectors.md (bytes as
    /// hex, UInt64 as decimal text, so readers with double-only numbers keep every bit).
    enum Notation {
        case wire, neutral
    }

    /// BLEMesh declares TTLs and hop counts as `Int`, but every one of them is a hop budget
    /// that no real mesh exceeds; anything outside a byte is hostile or corrupt.
    static let hopRange = 0...255

    static func hop(_ f: JSONFields, _ key: String) throws(WireError) -> Int {
        let value: Int = try f.integer(key, rangeCode: .ttlOutOfRange)
        guard hopRange.contains(value) else {
            throw WireError(.ttlOutOfRange, "\(f.context).\(key): \(value) is outside 0...255")
        }
        return value
    }

    static func bytes(_ f: JSONFields, _ key: String, _ notation: Notation) throws(WireError) -> [UInt8] {
        switch notation {
        case .wire: try f.base64(key)
        case .neutral: try f.hex(key)
        }
    }

    static func optionalBytes(_ f: JSONFields, _ key: String, _ notation: Notation) throws(WireError) -> [UInt8]? {
        switch notation {
        case .wire: try f.optionalBase64(key)
        case .neutral: try f.optionalHex(key)
        }
    }

    static func uint64(_ f: JSONFields, _ key: String, _ notation: Notation) throws(WireError) -> UInt64 {
        switch notation {
        case .wire: try f.integer(key)
        case .neutral: try f.uint64Text(key)
        }
    }

    static func value(bytes: [UInt8], _ notation: Notation) -> JSONValue {
        switch notation {
        case .wire: .base64(bytes)
        case .neutral: .hex(bytes)
        }
    }

    static func value(uint64: UInt64, _ notation: Notation) -> JSONValue {
        switch notation {
        case .wire: .integer(uint64)
        case .neutral: .uint64Text(uint64)
        }
    }

    /// Checked before parsing, so an oversized write costs nothing to refuse; also applied to
    /// values built from the neutral form, so `encode` never writes what `decode` refuses.
    static func checkSize(_ count: Int, max: Int, _ context: String) throws(WireError) {
        guard count <= max else {
            throw WireError(.tooLarge, "\(context) is \(count) bytes, above the \(max)-byte maximum")
        }
    }
}
