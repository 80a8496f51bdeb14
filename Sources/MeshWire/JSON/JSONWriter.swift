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
        write(value, options: options, indent: 0, into: &out)
        return out
    }

    public static func string(_ value: JSONValue, options: Options = Options()) -> String {
        String(decoding: write(value, options: options), as: UTF8.self)
    }

    private static func write(_ value: JSONValue, options: Options, indent: Int, into out: inout [UInt8]) {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .number(let text): out += Array(text.utf8)
        case .string(let s): writeString(s, options: options, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(options, indent + 1, &out)
                write(e, options: options, indent: indent + 1, into: &out)
            }
            if !elements.isEmpty { newline(options, indent, &out) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            let sorted = object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (i, m) in sorted.enumerated() {
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
        out += Array(repeating: UInt8(ascii: " "), count: 2 * indent)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func writeString(_ s: String, options: Options, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (UUIDs, names, base64 chunk payloads) need no escape: copied in one go.
        // This loop was the nodes' hottest path (a simulated blemesh node spends its time
        // writing chunk JSON); the per-byte path below is unchanged for the others.
        let escapeSlashes = options.escapeSlashes
        let copied = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for c in bytes where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || (c == UInt8(ascii: "/") && escapeSlashes) {
                return false
            }
            out.append(contentsOf: bytes)
            return true
        }
        if copied == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), c]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), c]
            case UInt8(ascii: "/") where options.escapeSlashes: out += [UInt8(ascii: "\\"), c]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0c: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0a: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0d: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case ..<0x20: out += Array("\\u00".utf8) + [hex[Int(c >> 4)], hex[Int(c & 0xf)]]
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
