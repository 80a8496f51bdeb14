/// The two notations a message is read from and written to: the app's own JSON (`Data` as
/// base64, UInt64 as a number) or the neutral form of docs/vectors.md (bytes as hex, UInt64 as
/// decimal text, so readers whose numbers are doubles keep every bit). A format reads and
/// writes its fields once, in the notation it is asked for.
public enum JSONNotation: Sendable {
    case wire, neutral
}

extension JSONFields {
    public func bytes(_ key: String, _ notation: JSONNotation) throws(WireError) -> [UInt8] {
        switch notation {
        case .wire: try base64(key)
        case .neutral: try hex(key)
        }
    }

    public func optionalBytes(_ key: String, _ notation: JSONNotation) throws(WireError) -> [UInt8]? {
        switch notation {
        case .wire: try optionalBase64(key)
        case .neutral: try optionalHex(key)
        }
    }

    public func uint64(_ key: String, _ notation: JSONNotation) throws(WireError) -> UInt64 {
        switch notation {
        case .wire: try integer(key)
        case .neutral: try uint64Text(key)
        }
    }
}

extension JSONValue {
    public static func bytes(_ bytes: [UInt8], _ notation: JSONNotation) -> JSONValue {
        notation == .wire ? .base64(bytes) : .hex(bytes)
    }

    public static func uint64(_ value: UInt64, _ notation: JSONNotation) -> JSONValue {
        notation == .wire ? .integer(value) : .uint64Text(value)
    }
}
