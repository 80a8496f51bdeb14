import MeshWire

/// What one execution of a decoder did, reduced to what feedback and reports need.
public enum Outcome: Sendable {
    case decoded(JSONValue)
    case refused(WireError)

    /// The behaviour this outcome shows, as one 64-bit value: the refusal's feature, or the
    /// decoded value's whole shape. Names an outcome (replay answers, de-duplication of oracle
    /// failures); the engine's novelty test uses `forEachFeature`.
    public var feature: UInt64 {
        switch self {
        case .refused(let error):
            return Self.refusalFeature(error)
        case .decoded:
            var h = FeatureHash()
            h.add(2)
            forEachFeature { h.add(UInt64: $0) }
            return h.value
        }
    }

    /// Every behaviour this outcome shows, each a 64-bit feature: the engine's feedback in
    /// every build, and beside edge coverage in a coverage build (`EdgeCoverage`,
    /// docs/fuzzing.md). An input is new when any of its features is.
    /// - A refusal is one feature: the error code and its detail's words up to the first quote,
    ///   leaving out punctuation and every word with a digit ("offset 7", "0xAE"): those and
    ///   quoted text come from the input, so left in, every garbage byte would be a new
    ///   behaviour; each distinct check is one.
    /// - A decoded value is one feature per node: its path from the root (keys; array items
    ///   as one path), its kind, and for strings and arrays their size class (an object also
    ///   contributes its key sequence). Features per node, not one per whole value, so ten
    ///   counters of five sizes add a handful of features, not every combination.
    public func forEachFeature(_ body: (UInt64) -> Void) {
        switch self {
        case .refused(let error): body(Self.refusalFeature(error))
        case .decoded(let value):
            var root = FeatureHash()
            root.add(2)
            Self.features(value, path: root, depth: 0, body)
        }
    }

    private static func refusalFeature(_ error: WireError) -> UInt64 {
        var h = FeatureHash()
        h.add(1)
        h.add(error.code.rawValue)
        var detail = error.detail
        detail.makeContiguousUTF8()
        detail.utf8.withContiguousStorageIfAvailable { bytes in
            var wordStart = 0, hasDigit = false
            // Hashes the word that ends before `end`, unless it holds a digit.
            func endWord(_ end: Int) {
                if !hasDigit, wordStart < end { for i in wordStart..<end { h.add(bytes[i]) }; h.add(0x20) }
                hasDigit = false
            }
            for (i, byte) in bytes.enumerated() {
                switch byte {
                case 0x30...0x39: hasDigit = true
                case 0x41...0x5A, 0x61...0x7A, 0x5F: break
                // Quoted text is the input's (a key, a name), and may itself hold quotes: stop.
                case 0x22: endWord(i); return
                default: endWord(i); wordStart = i + 1
                }
            }
            endWord(bytes.count)
        }
        return h.value
    }

    private static func features(_ value: JSONValue, path: FeatureHash, depth: Int, _ body: (UInt64) -> Void) {
        guard depth < 8 else { return }
        var h = path
        switch value {
        case .null: h.add(3)
        case .bool(let b): h.add(b ? 4 : 5)
        case .number: h.add(6)
        case .string(let s): h.add(7); h.add(UInt8(truncatingIfNeeded: s.utf8.count.bitWidthClass))
        case .array(let items):
            h.add(8); h.add(UInt8(truncatingIfNeeded: items.count.bitWidthClass))
            var item = path
            item.add(8)
            for element in items.prefix(4) { features(element, path: item, depth: depth + 1, body) }
        case .object(let object):
            h.add(9)
            for member in object.members {
                h.add(member.key)
                var child = path
                child.add(member.key)
                features(member.value, path: child, depth: depth + 1, body)
            }
        }
        body(h.value)
    }
}

/// FNV-1a, 64-bit: features only need to be distinct, not secret.
struct FeatureHash {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325
    mutating func add(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x100_0000_01B3 }
    mutating func add(_ text: String) { for byte in text.utf8 { add(byte) }; add(0) }
    mutating func add(UInt64 value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
}

extension Int {
    /// 0 for 0, else 1 + floor(log2): size classes, so a string of 40 and of 41 bytes are alike.
    var bitWidthClass: Int { self <= 0 ? 0 : Int.bitWidth - leadingZeroBitCount }
}
