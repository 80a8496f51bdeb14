import Foundation

/// Typed, policy-checked access to the members of a JSON object.
///
/// The policies are the dialects' JSON conventions (docs/dialects/*.md), in one place:
/// - absent and explicit `null` are the same for an optional field (as `decodeIfPresent`);
///   `null` in a required field is `wrongType`;
/// - unknown keys are ignored (as `JSONDecoder` does) and dropped on re-encoding;
/// - integers are exact whatever their size; `8.0` is 8, `8.5` is `wrongType`;
/// - UUIDs are 8-4-4-4-12 hex in either case (Foundation accepts lowercase), written uppercase;
/// - `Data` is standard padded base64 (Foundation's `Data(base64Encoded:)` rules).
public struct JSONFields {
    public let object: JSONObject
    /// The message type, for error messages ("FrameHeader.ttl").
    public let context: String

    public init(_ value: JSONValue, context: String) throws(WireError) {
        guard case .object(let object) = value else {
            throw WireError(.wrongType, "\(context): expected an object, found \(value.kind)")
        }
        self.object = object
        self.context = context
    }

    /// Parses `bytes` as JSON and requires an object.
    public init(parsing bytes: ArraySlice<UInt8>, context: String) throws(WireError) {
        try self.init(JSONParser.parse(bytes), context: context)
    }

    // MARK: presence

    public func optional(_ key: String) -> JSONValue? {
        switch object[key] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    public func required(_ key: String) throws(WireError) -> JSONValue {
        switch object[key] {
        case nil: throw WireError(.missingField, "\(context).\(key) is missing")
        case .null?: throw WireError(.wrongType, "\(context).\(key) is null")
        case let value?: return value
        }
    }

    func wrongType(_ key: String, _ expected: String, _ found: JSONValue) -> WireError {
        WireError(.wrongType, "\(context).\(key): expected \(expected), found \(found.kind)")
    }

    // MARK: scalars

    public func string(_ key: String) throws(WireError) -> String {
        try string(key, try required(key))
    }

    public func optionalString(_ key: String) throws(WireError) -> String? {
        guard let v = optional(key) else { return nil }
        return try string(key, v)
    }

    private func string(_ key: String, _ v: JSONValue) throws(WireError) -> String {
        guard case .string(let s) = v else { throw wrongType(key, "a string", v) }
        return s
    }

    public func bool(_ key: String) throws(WireError) -> Bool {
        let v = try required(key)
        guard case .bool(let b) = v else { throw wrongType(key, "a boolean", v) }
        return b
    }

    public func double(_ key: String) throws(WireError) -> Double {
        let v = try required(key)
        guard case .number(let text) = v else { throw wrongType(key, "a number", v) }
        guard let d = Double(text), d.isFinite else {
            throw WireError(.valueOutOfRange, "\(context).\(key): \(text) is not a finite double")
        }
        return d
    }

    /// An integer field of any width, range-checked against `I`.
    /// `rangeCode` lets TTL fields report `ttlOutOfRange`.
    public func integer<I: FixedWidthInteger>(
        _ key: String, as type: I.Type = I.self, rangeCode: WireError.Code = .valueOutOfRange
    ) throws(WireError) -> I {
        try integer(key, try required(key), rangeCode: rangeCode)
    }

    public func optionalInteger<I: FixedWidthInteger>(_ key: String, as type: I.Type = I.self) throws(WireError) -> I? {
        guard let v = optional(key) else { return nil }
        return try integer(key, v, rangeCode: .valueOutOfRange)
    }

    func integer<I: FixedWidthInteger>(_ key: String, _ v: JSONValue, rangeCode: WireError.Code) throws(WireError) -> I {
        guard case .number(let text) = v else { throw wrongType(key, "an integer", v) }
        // Built only when thrown: error text costs more than the decoding itself.
        func outOfRange() -> WireError { WireError(rangeCode, "\(context).\(key): \(text) is outside \(I.min)...\(I.max)") }
        switch JSONNumberText.integer(text) {
        case .notIntegral:
            throw WireError(.wrongType, "\(context).\(key): \(text) is not an integer")
        case .overflow:
            throw outOfRange()
        case .value(let negative, let magnitude):
            if negative {
                guard magnitude != 0 else { return 0 }
                guard I.isSigned, magnitude <= UInt64(I.max) + 1 else { throw outOfRange() }
                return I(truncatingIfNeeded: 0 &- magnitude)
            }
            guard let value = I(exactly: magnitude) else { throw outOfRange() }
            return value
        }
    }

    // MARK: conventions

    public func uuid(_ key: String) throws(WireError) -> UUID {
        try Self.uuid(try string(key), field: "\(context).\(key)")
    }

    public func optionalUUID(_ key: String) throws(WireError) -> UUID? {
        guard let s = try optionalString(key) else { return nil }
        return try Self.uuid(s, field: "\(context).\(key)")
    }

    public static func uuid(_ text: String, field: @autoclosure () -> String) throws(WireError) -> UUID {
        guard let id = UUIDText.parse(text) else {
            throw WireError(.badUUID, "\(field()): \"\(text.prefix(64))\" is not a UUID")
        }
        return id
    }

    public func uuidArray(_ key: String) throws(WireError) -> [UUID] {
        let elements = try array(key)
        var ids: [UUID] = []
        ids.reserveCapacity(elements.count)
        for (i, e) in elements.enumerated() {
            guard case .string(let s) = e else { throw wrongType("\(key)[\(i)]", "a UUID string", e) }
            ids.append(try Self.uuid(s, field: "\(context).\(key)[\(i)]"))
        }
        return ids
    }

    public func array(_ key: String) throws(WireError) -> [JSONValue] {
        let v = try required(key)
        guard case .array(let elements) = v else { throw wrongType(key, "an array", v) }
        return elements
    }

    public func base64(_ key: String) throws(WireError) -> [UInt8] {
        try Self.base64(try string(key), field: "\(context).\(key)")
    }

    public func optionalBase64(_ key: String) throws(WireError) -> [UInt8]? {
        guard let s = try optionalString(key) else { return nil }
        return try Self.base64(s, field: "\(context).\(key)")
    }

    static func base64(_ text: String, field: @autoclosure () -> String) throws(WireError) -> [UInt8] {
        guard let data = Data(base64Encoded: text) else {
            throw WireError(.badBase64, "\(field()) is not padded standard base64")
        }
        return Array(data)
    }

    // MARK: neutral-form conventions (docs/vectors.md): bytes as hex, UInt64 as decimal text

    public func hex(_ key: String) throws(WireError) -> [UInt8] {
        let s = try string(key)
        guard let bytes = Hex.decode(s) else { throw WireError(.wrongType, "\(context).\(key) is not hex") }
        return bytes
    }

    public func optionalHex(_ key: String) throws(WireError) -> [UInt8]? {
        guard optional(key) != nil else { return nil }
        return try hex(key)
    }

    /// A UInt64 written as a decimal string (so JavaScript readers of vectors keep every bit);
    /// a plain JSON number is accepted too.
    public func uint64Text(_ key: String) throws(WireError) -> UInt64 {
        let v = try required(key)
        if case .string(let s) = v {
            guard let n = UInt64(s) else { throw WireError(.valueOutOfRange, "\(context).\(key): \"\(s)\" is not a UInt64") }
            return n
        }
        return try integer(key, v, rangeCode: .valueOutOfRange)
    }
}

extension JSONValue {
    public static func uuid(_ id: UUID) -> JSONValue { .string(UUIDText.format(id)) }
    public static func base64(_ bytes: [UInt8]) -> JSONValue { .string(Data(bytes).base64EncodedString()) }
    public static func hex(_ bytes: [UInt8]) -> JSONValue { .string(Hex.encode(bytes)) }
    public static func uint64Text(_ v: UInt64) -> JSONValue { .string(String(v)) }
}
