/// Writes JSON byte-for-byte as Foundation's `JSONEncoder` with `.sortedKeys` does, so the
/// canonical encoding of a message is what the apps themselves send: no whitespace, keys in
/// byte order, `/` escaped as `\/`, control bytes as `\u00XX` except the short escapes,
/// everything else raw UTF-8.
public struct JSONWriter {
    public struct Options: Sendable {
        public var escapeSlashes = true
        public var pretty = false
        public init(escapeSlashes: Bool = true, pretty: Bool = false) {
            self.escapeSlashes = escapeSlashes
            self.pretty = pretty
        }
        /// For people reading CLI output.
        public static let human = Options(escapeSlashes: false, pretty: true)
    }

    public static func write(_ value: JSONValue, options: Options = Options()) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, options: options, indent: 0, into: &out)
        return out
    }

    public static func string(_ value: JSONValue, options: Options = Options()) -> String {
        String(decoding: write(value, options: options), as: UTF8.self)
    }

    private static func write(_ value: JSONValue, options: Options, indent: Int, into out: inout [UInt8]) {
        switch value {
        case .null: append("null", to: &out)
        case .bool(let b): append(b ? "true" : "false", to: &out)
        case .number(let text): appendUTF8(text, to: &out)
        case .string(let s): writeString(s, options: options, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for i in elements.indices {
                let e = elements[i]
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(options, indent + 1, &out)
                write(e, options: options, indent: indent + 1, into: &out)
            }
            if !elements.isEmpty { newline(options, indent, &out) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            let sorted = sortedByKey(object.members)
            for i in sorted.indices {
                let m = sorted[i]
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(options, indent + 1, &out)
                writeString(m.key, options: options, into: &out)
                out.append(UInt8(ascii: ":"))
                if options.pretty { out.append(UInt8(ascii: " ")) }
                write(m.value, options: options, indent: indent + 1, into: &out)
            }
            if !sorted.isEmpty { newline(options, indent, &out) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ options: Options, _ indent: Int, _ out: inout [UInt8]) {
        guard options.pretty else { return }
        out.append(0x0a)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    /// A literal's bytes.
    static func append(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private static func appendUTF8(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { out.append(contentsOf: $0) }
    }

    /// The members in byte order of their keys (what `.sortedKeys` gives), by a stable
    /// insertion sort: objects are small, and often in order already (decoded canonical JSON).
    private static func sortedByKey(_ members: [JSONObject.Member]) -> [JSONObject.Member] {
        guard members.count <= 32 else { return members.sorted { keyPrecedes($0.key, $1.key) } }
        var sorted = members
        for i in sorted.indices.dropFirst() {
            var j = i
            while j > 0, keyPrecedes(sorted[j].key, sorted[j - 1].key) {
                sorted.swapAt(j, j - 1)
                j -= 1
            }
        }
        return sorted
    }

    /// Byte order of the UTF-8, compared over the strings' storage: `utf8.lexicographicallyPrecedes`
    /// is generic, and unspecialised in debug builds it was most of the writer's time.
    private static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                var i = 0
                while i < x.count, i < y.count {
                    if x[i] != y[i] { return x[i] < y[i] }
                    i += 1
                }
                return x.count < y.count
            }
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// One pass over the string's UTF-8, copying the runs that need no escape in one go. Most
    /// strings are such a run (UUIDs, names); base64 chunk payloads mostly hold a `/` or two.
    /// This was the nodes' hottest path (a simulated blemesh node spends its time writing chunk
    /// JSON), so it indexes the storage directly, with no per-byte iterator or array.
    private static func writeString(_ s: String, options: Options, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var i = 0, run = 0
            while i < bytes.count {
                let c = bytes[i]
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || (c == UInt8(ascii: "/") && options.escapeSlashes) else {
                    i += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                out.append(UInt8(ascii: "\\"))
                switch c {
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0c: out.append(UInt8(ascii: "f"))
                case 0x0a: out.append(UInt8(ascii: "n"))
                case 0x0d: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case ..<0x20:
                    append("u00", to: &out)
                    out.append(hex[Int(c >> 4)])
                    out.append(hex[Int(c & 0xf)])
                default: out.append(c)
                }
                i += 1
                run = i
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
