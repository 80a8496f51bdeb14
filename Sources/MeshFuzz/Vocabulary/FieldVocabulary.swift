import Foundation
import MeshWire

/// What a field of a wire format holds, as far as choosing values that break apps goes
/// (docs/fuzzing.md, "Values that break apps"). JSON formats declare their keys with these
/// (`FormatFields`); keys nobody declared get a type read off the value.
public indirect enum FieldType: Sendable, Hashable {
    /// A JSON number apps read into an integer of some width (Int, Int32, UInt64 ...).
    case integer
    /// An integer the page bounds (a chunk count's 1024): the boundaries, and each limit
    /// with its neighbours.
    case bounded([UInt64])
    /// A JSON number apps read into a Double (seconds since 2001, coordinates).
    case number
    case bool
    case string
    /// 8-4-4-4-12 hex text.
    case uuid
    /// ISO 8601 date text.
    case date
    /// Base64 text; when the bytes are JSON (a control message's inner message), its fields
    /// are fields too, under the name `key>inner`.
    case base64
    /// Text that is itself JSON of another format (camp's protocol message in `content`).
    case jsonText
    case list(FieldType)
    /// One of the values the dialect page lists.
    case enumeration([JSONValue])
    case object

    /// The type a value of an undeclared key looks like.
    static func inferred(from value: JSONValue) -> FieldType {
        switch value {
        case .number(let text): text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? .number : .integer
        case .bool: .bool
        case .string(let s): s.utf8.count == 36 && UUID(uuidString: s) != nil ? .uuid : .string
        case .array(let items): .list(items.first.map(inferred(from:)) ?? .string)
        case .object: .object
        case .null: .string
        }
    }
}

/// One value to put in a field. JSON fields get a JSON value or a length (of a list: that
/// many items, copies of the ones there; of a string: that many characters); binary fields
/// get an integer written at the field's width, or a count / length with the items or bytes
/// behind it resized to match, so the rest of the unit still lines up.
public enum FieldValue: Sendable, Hashable, CustomStringConvertible {
    case json(JSONValue)
    case listLength(Int)
    case stringLength(Int)
    case unsigned(UInt64)
    /// A count field set to n with n items behind it; a length field with n bytes behind it.
    case resized(Int)

    public var description: String {
        switch self {
        case .json(let v): JSONWriter.string(v)
        case .listLength(let n): "list of \(n)"
        case .stringLength(let n): "string of \(n)"
        case .unsigned(let v): "0x" + String(v, radix: 16)
        case .resized(let n): "\(n) items/bytes"
        }
    }
}

/// The values that break apps, per field type: integer boundaries of the widths apps decode
/// into, lengths around small powers of two, UUID and base64 edge forms, every enum value of
/// the page, dates at the edges of what parsers take, and the tokens of the vectors.
public enum FieldVocabulary {
    /// Lengths of lists, strings and byte fields: empty, one, just over the small fixed buffers
    /// apps keep (8, 16, 32, 64), around 256 (a length byte), and 1024.
    public static let lengths = [0, 1, 2, 8, 9, 16, 17, 32, 33, 64, 65, 255, 256, 1024]

    /// A limit the page sets, with its neighbours: the last value allowed and the first not.
    static func around(_ limits: [UInt64]) -> [UInt64] { limits.flatMap { [$0 &- 1, $0, $0 &+ 1] } }

    /// 0, 1, -1 and each power of two apps overflow at (2^7, 2^8, 2^15, 2^16, 2^31, 2^32,
    /// 2^53, 2^63, 2^64) with its neighbours, and the negative edges of the signed widths.
    public static let integerBoundaries: [String] = {
        var texts = ["0", "1", "-1"]
        for bits in [7, 8, 15, 16, 31, 32, 53, 63, 64] {
            let p = Self.powerOfTwo(bits)
            texts += [Self.decimal(p, minus: 1), Self.decimal(p, minus: 0), Self.decimal(p, plus: 1)]
        }
        for bits in [7, 15, 31, 63] {
            texts += ["-" + Self.decimal(Self.powerOfTwo(bits), minus: 0), "-" + Self.decimal(Self.powerOfTwo(bits), plus: 1)]
        }
        texts += ["-9007199254740993"]
        var seen = Set<String>()
        return texts.filter { seen.insert($0).inserted }
    }()

    /// Doubles at their edges, for fields apps read as Double, besides the integer ones.
    static let doubleEdges = ["-0", "0.5", "1e-7", "5e-324", "1.7976931348623157e308", "-1.7976931348623157e308", "767923200.999999"]

    /// Binary integers of a `width`-byte field: the boundaries that fit it, -1 as all ones.
    public static func unsignedValues(width: Int) -> [UInt64] {
        let max: UInt64 = width >= 8 ? .max : (1 << UInt64(8 * width)) - 1
        var values: [UInt64] = [0, 1, 2, max, max - 1]
        for bits in [7, 8, 15, 16, 31, 32, 53, 63] where bits < 8 * width {
            let p: UInt64 = 1 << UInt64(bits)
            values += [p - 1, p, p + 1]
        }
        values += lengths.map(UInt64.init).filter { $0 <= max }
        var seen = Set<UInt64>()
        return values.filter { $0 <= max && seen.insert($0).inserted }
    }

    /// UUID text that parsers disagree on: nil and all-F, lower case, no dashes, braces, a
    /// URN, one character short or long, a non-hex digit, a dash moved.
    public static let uuidForms: [String] = [
        "00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
        "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "E621E1F8C36C495A93FC0C247A3E6E5F",
        "{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}", "urn:uuid:E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        "E621E1F8-C36C-495A-93FC-0C247A3E6E5", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F0",
        "G621E1F8-C36C-495A-93FC-0C247A3E6E5F", "E621E1F8C-36C-495A-93FC-0C247A3E6E5F", "",
    ]

    /// Base64 that decoders disagree on: empty, padding only, missing or extra padding, the
    /// URL-safe alphabet, whitespace and a line break inside, non-canonical trailing bits,
    /// and the encodings of JSON's empty values.
    public static let base64Forms: [String] = [
        "", "=", "==", "A", "AA", "AA=", "AA==", "AA===", "AAAA", "////", "-_-_", "AA AA", "AA\nAA", "AB==", "QQ", "e30=", "W10=", "bnVsbA==",
    ]

    /// ISO 8601 text at the edges: the epochs, far past and future, fractions, offsets,
    /// an impossible day, a date without time.
    public static let dateForms: [String] = [
        "1970-01-01T00:00:00Z", "2001-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2025-05-03T00:00:00.123Z",
        "2025-05-03T00:00:00+01:00", "2025-02-30T00:00:00Z", "2025-05-03", "2025-05-03T24:00:00Z", "",
    ]

    /// Strings besides lengths: control characters, an escaped NUL, a lone surrogate's
    /// escape, right-to-left and combining marks, an emoji (4 UTF-8 bytes).
    static let stringForms: [String] = ["\u{0}", "\u{1F}", "\u{202E}abc", "e\u{301}", "\u{1F600}", "%s%n", "../"]

    /// Every value worth putting in a field of `type` that now holds `current`, plus
    /// `tokens` (what the vectors put in this key).
    public static func values(for type: FieldType, current: JSONValue?, tokens: [JSONValue] = []) -> [FieldValue] {
        var values: [FieldValue]
        switch type {
        case .integer:
            values = integerBoundaries.map { .json(.number($0)) }
        case .bounded(let limits):
            values = around(limits).map { .json(.number(String($0))) } + integerBoundaries.map { .json(.number($0)) }
        case .number:
            values = (integerBoundaries + doubleEdges).map { .json(.number($0)) }
        case .bool:
            values = [.json(.bool(true)), .json(.bool(false)), .json(.number("0")), .json(.number("1")), .json(.string("true")), .json(.null)]
        case .string:
            values = lengths.map(FieldValue.stringLength) + stringForms.map { .json(.string($0)) }
        case .uuid:
            values = uuidForms.map { .json(.string($0)) }
        case .date:
            values = dateForms.map { .json(.string($0)) } + [.json(.number("767923200")), .json(.number("0"))]
        case .base64:
            values = base64Forms.map { .json(.string($0)) } + lengths.map(FieldValue.stringLength)
        case .jsonText:
            values = ["", "{}", "[]", "null", "{\"a\":"].map { .json(.string($0)) } + lengths.map(FieldValue.stringLength)
        case .list:
            values = lengths.map(FieldValue.listLength) + [.json(.null), .json(.object([]))]
        case .enumeration(let cases):
            // Every value of the page, then the nearest wrong ones: re-cased, empty, unknown.
            values = cases.map(FieldValue.json)
            for case .string(let s) in cases {
                values += [.json(.string(s.lowercased() == s ? s.uppercased() : s.lowercased()))]
            }
            values += [.json(.string("")), .json(.string("UNKNOWN")), .json(.number("-1")), .json(.number("256"))]
        case .object:
            values = [.json(.object([])), .json(.array([])), .json(.null)]
        }
        values += tokens.map(FieldValue.json)
        if let current { values.removeAll { $0 == .json(current) } }
        return values
    }

    // MARK: decimal text of 2^n +- 1 up to 2^64 + 1, without overflow

    static func powerOfTwo(_ bits: Int) -> [UInt8] {
        var digits: [UInt8] = [1]   // little-endian decimal digits
        for _ in 0..<bits {
            var carry: UInt8 = 0
            for i in digits.indices {
                let d = digits[i] * 2 + carry
                digits[i] = d % 10
                carry = d / 10
            }
            if carry > 0 { digits.append(carry) }
        }
        return digits
    }

    static func decimal(_ digits: [UInt8], plus: Int = 0, minus: Int = 0) -> String {
        var d = digits.map(Int.init)
        d[0] += plus - minus
        for i in d.indices where d[i] < 0 || d[i] > 9 {
            guard i + 1 < d.count else { break }
            if d[i] < 0 { d[i] += 10; d[i + 1] -= 1 } else { d[i] -= 10; d[i + 1] += 1 }
        }
        while d.count > 1, d.last == 0 { d.removeLast() }
        return String(d.reversed().map { Character(String($0)) })
    }
}
