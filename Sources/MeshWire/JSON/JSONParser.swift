/// A strict RFC 8259 parser for JSON read off the air.
///
/// Bounded: recursion stops at `maxDepth` (`tooDeep`), nothing is allocated beyond what the
/// input holds. Precise: input that ends mid-value is `truncated` (the usual symptom of an
/// MTU cut), wrong bytes are `badJSON`, a repeated key is `duplicateKey`.
public struct JSONParser {
    /// Deeper than any message of any dialect; deep enough to never reject a real one.
    public static let maxDepth = 32

    private let bytes: ArraySlice<UInt8>
    private var index: Int
    private var depth = 0

    public static func parse(_ bytes: ArraySlice<UInt8>) throws(WireError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, index: bytes.startIndex)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.endIndex else { throw parser.fail("unexpected byte after the JSON value") }
        return value
    }

    public static func parse(_ text: String) throws(WireError) -> JSONValue {
        try parse(Array(text.utf8)[...])
    }

    private var offset: Int { index - bytes.startIndex }

    private func fail(_ why: String) -> WireError {
        index == bytes.endIndex
            ? WireError(.truncated, "JSON ends at offset \(offset): \(why)")
            : WireError(.badJSON, "\(why) at offset \(offset)")
    }

    private func peek() -> UInt8? { index < bytes.endIndex ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let c = peek(), c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: StaticString) throws(WireError) {
        for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard peek() == expected else { throw fail("bad literal") }
            index += 1
        }
    }

    private mutating func parseValue() throws(WireError) -> JSONValue {
        guard let c = peek() else { throw fail("expected a value") }
        switch c {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected byte 0x\(Hex.encode([c]))")
        }
    }

    private mutating func enter() throws(WireError) {
        depth += 1
        guard depth <= Self.maxDepth else {
            throw WireError(.tooDeep, "nesting deeper than \(Self.maxDepth) at offset \(offset)")
        }
    }

    private mutating func parseObject() throws(WireError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [JSONObject.Member] = []
        var seen = Set<String>()
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { index += 1; return .object(JSONObject(members)) }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let keyOffset = offset
            let key = try parseString()
            guard seen.insert(key).inserted else {
                throw WireError(.duplicateKey, "key \"\(key)\" repeated at offset \(keyOffset)")
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            members.append(.init(key: key, value: try parseValue()))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(JSONObject(members))
            default: throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(WireError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws(WireError) -> String {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw fail("expected a digit") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let d = peek(), isDigit(d) else { throw fail("expected a digit after '.'") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let d = peek(), isDigit(d) else { throw fail("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // Foundation, and so every app, refuses the whole message when any number in it
        // overflows a Double, whatever its key (docs/vectors.md, "JSON numbers").
        if index - start > 308 || bytes[start..<index].contains(where: { $0 | 0x20 == UInt8(ascii: "e") }),
           let d = Double(text), d.isInfinite {
            throw WireError(.valueOutOfRange, "number \(text.prefix(24)) at offset \(start - bytes.startIndex) overflows a Double")
        }
        return text
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    private mutating func skipDigits() { while let c = peek(), isDigit(c) { index += 1 } }

    private mutating func parseString() throws(WireError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, so the bytes are the string.
        while let c = peek(), c != UInt8(ascii: "\""), c != UInt8(ascii: "\\"), c >= 0x20 { index += 1 }
        if peek() == UInt8(ascii: "\"") {
            let raw = bytes[start..<index]
            index += 1
            return try validUTF8(raw)
        }
        var out = Array(bytes[start..<index])
        while true {
            guard let c = peek() else { throw fail("unterminated string") }
            index += 1
            switch c {
            case UInt8(ascii: "\""):
                return try validUTF8(out[...])
            case UInt8(ascii: "\\"):
                try parseEscape(into: &out)
            case ..<0x20:
                index -= 1
                throw fail("control byte in a string")
            default:
                out.append(c)
            }
        }
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws(WireError) {
        guard let e = peek() else { throw fail("unterminated escape") }
        index += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0c)
        case UInt8(ascii: "n"): out.append(0x0a)
        case UInt8(ascii: "r"): out.append(0x0d)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard peek() == UInt8(ascii: "\\") else { throw fail("unpaired surrogate") }
                index += 1
                guard peek() == UInt8(ascii: "u") else { throw fail("unpaired surrogate") }
                index += 1
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw fail("unpaired surrogate")
            }
            guard let u = Unicode.Scalar(scalar) else { throw fail("bad escape") }
            out.append(contentsOf: UTF8.encode(u)!)
        default:
            index -= 1
            throw fail("bad escape")
        }
    }

    private mutating func parseHex4() throws(WireError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let c = peek() else { throw fail("short \\u escape") }
            let nibble: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("bad hex digit in \\u escape")
            }
            v = v << 4 | nibble
            index += 1
        }
        return v
    }

    private func validUTF8(_ raw: ArraySlice<UInt8>) throws(WireError) -> String {
        guard let s = String(validating: raw, as: UTF8.self) else {
            throw WireError(.badJSON, "string is not valid UTF-8 before offset \(offset)")
        }
        return s
    }
}
