/// A strict RFC 8259 parser for JSON read off the air.
///
/// Bounded: recursion stops at `maxDepth` (`tooDeep`), nothing is allocated beyond what the
/// input holds. Precise: input that ends mid-value is `truncated` (the usual symptom of an
/// MTU cut), wrong bytes are `badJSON`, a repeated key is `duplicateKey`.
///
/// It reads one buffer pointer taken once per document: every decoder of a JSON dialect and
/// every node runs through here per byte, and a parser holding an `ArraySlice` retained and
/// released it on every byte read in debug builds (`swift test`, the reference node's runs),
/// which was a quarter of a conformance run's time (docs/performance.md, "Test time").
public struct JSONParser {
    /// Deeper than any message of any dialect; deep enough to never reject a real one.
    public static let maxDepth = 32

    /// Objects up to this many members find a repeated key by comparing with the members read
    /// so far (no hashing, no allocation); larger ones use a set.
    private static let linearKeyCheck = 16

    private let bytes: UnsafeBufferPointer<UInt8>
    /// Also the offset the errors give: the buffer starts at the document's first byte.
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    public static func parse(_ bytes: ArraySlice<UInt8>) throws(WireError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(WireError) in
            var parser = JSONParser(bytes: buffer)
            return try parser.parseDocument()
        }
    }

    public static func parse(_ text: String) throws(WireError) -> JSONValue {
        try parse(Array(text.utf8)[...])
    }

    private mutating func parseDocument() throws(WireError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected byte after the JSON value") }
        return value
    }

    private func fail(_ why: String) -> WireError {
        index == bytes.count
            ? WireError(.truncated, "JSON ends at offset \(index): \(why)")
            : WireError(.badJSON, "\(why) at offset \(index)")
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The bytes from `start` to the current index.
    private func text(from start: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[start..<index])
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0a, 0x0d, 0x09: index += 1
            default: return
            }
        }
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
            throw WireError(.tooDeep, "nesting deeper than \(Self.maxDepth) at offset \(index)")
        }
    }

    private mutating func parseObject() throws(WireError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var object = JSONObject()
        var seen: Set<String>? = nil
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { index += 1; return .object(object) }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let keyOffset = index
            let key = try parseString()
            if object.members.count == Self.linearKeyCheck { seen = Set(object.keys) }
            let repeated = seen == nil ? object.index(of: key) != nil : !seen!.insert(key).inserted
            guard !repeated else {
                throw WireError(.duplicateKey, "key \"\(key)\" repeated at offset \(keyOffset)")
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            object.members.append(.init(key: key, value: try parseValue()))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(object)
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
        var exponent = false
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
            exponent = true
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let d = peek(), isDigit(d) else { throw fail("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: text(from: start), as: UTF8.self)
        // Foundation, and so every app, refuses the whole message when any number in it
        // overflows a Double, whatever its key (docs/vectors.md, "JSON numbers").
        if index - start > 308 || exponent, let d = Double(text), d.isInfinite {
            throw WireError(.valueOutOfRange, "number \(text.prefix(24)) at offset \(start) overflows a Double")
        }
        return text
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    private mutating func skipDigits() { while index < bytes.count, isDigit(bytes[index]) { index += 1 } }

    private mutating func parseString() throws(WireError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, so the bytes are the string; ASCII needs no UTF-8 check.
        var ascii = true
        while index < bytes.count {
            let c = bytes[index]
            guard c != UInt8(ascii: "\""), c != UInt8(ascii: "\\"), c >= 0x20 else { break }
            if c >= 0x80 { ascii = false }
            index += 1
        }
        if peek() == UInt8(ascii: "\"") {
            let raw = text(from: start)
            index += 1
            return ascii ? String(decoding: raw, as: UTF8.self) : try validUTF8(raw)
        }
        var out = Array(text(from: start))
        while true {
            guard let c = peek() else { throw fail("unterminated string") }
            index += 1
            switch c {
            case UInt8(ascii: "\""):
                return try out.withUnsafeBufferPointer { raw throws(WireError) in try validUTF8(raw) }
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

    private func validUTF8(_ raw: UnsafeBufferPointer<UInt8>) throws(WireError) -> String {
        guard let s = String(validating: raw, as: UTF8.self) else {
            throw WireError(.badJSON, "string is not valid UTF-8 before offset \(index)")
        }
        return s
    }
}
