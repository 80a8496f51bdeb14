/// A parsed JSON document.
///
/// Numbers keep the exact text they were written with, so a UInt64 above 2^53 survives and
/// the typed readers in `JSONFields` decide what the text may mean.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public static func integer<I: BinaryInteger>(_ v: I) -> JSONValue { .number(String(v)) }

    /// A Double written the way Foundation's JSONEncoder writes it: shortest round-trip digits,
    /// no ".0" on integral values, exponents as `1e+21` / `1e-07`.
    public static func double(_ v: Double) -> JSONValue {
        var text = v.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .number(text)
    }

    public static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }

    /// The name of the JSON kind, for error messages.
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// A JSON object with its members in the order they were written.
public struct JSONObject: Hashable, Sendable {
    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSONValue
    }

    public var members: [Member]

    public init(_ members: [Member] = []) { self.members = members }

    public subscript(key: String) -> JSONValue? {
        index(of: key).map { members[$0].value }
    }

    /// Where `key` is, by a plain loop: every field a decoder reads comes through here, and
    /// `firstIndex(where:)` is generic code that debug builds do not specialise.
    func index(of key: String) -> Int? {
        var i = 0
        while i < members.count {
            if members[i].key == key { return i }
            i += 1
        }
        return nil
    }

    public var keys: [String] { members.map(\.key) }
}
