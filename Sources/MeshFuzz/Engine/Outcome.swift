import MeshWire

/// What one execution of a decoder did, reduced to what feedback and reports need.
public enum Outcome: Sendable {
    case decoded(JSONValue)
    case refused(WireError)

    /// The behaviour this outcome shows, as a 64-bit feature: the error code and the shape of
    /// its detail (digits blanked, so "offset 7" and "offset 9" are one path through the
    /// decoder), or the structural shape of the decoded value (keys, kinds, size classes).
    /// Swift's own coverage counters are only emitted together with a sanitizer, which the
    /// in-process engine does without (docs/fuzzing.md): this is the engine's coverage.
    public var feature: UInt64 {
        var h = FeatureHash()
        switch self {
        case .refused(let error):
            h.add(1)
            h.add(error.code.rawValue)
            // Quoted text and numbers in a detail come from the input (a key, an offset): left
            // in, every garbage key would count as a new behaviour.
            var quoted = false
            for byte in error.detail.utf8 {
                if byte == 0x22 { quoted.toggle(); continue }
                if !quoted, !(0x30...0x39).contains(byte) { h.add(byte) }
            }
        case .decoded(let value):
            h.add(2)
            Self.shape(value, into: &h, depth: 0)
        }
        return h.value
    }

    private static func shape(_ value: JSONValue, into h: inout FeatureHash, depth: Int) {
        guard depth < 8 else { return }
        switch value {
        case .null: h.add(3)
        case .bool(let b): h.add(b ? 4 : 5)
        case .number(let text): h.add(6); h.add(UInt8(min(text.utf8.count, 24)))
        case .string(let s): h.add(7); h.add(UInt8(truncatingIfNeeded: s.utf8.count.bitWidthClass))
        case .array(let items):
            h.add(8); h.add(UInt8(truncatingIfNeeded: items.count.bitWidthClass))
            for item in items.prefix(4) { shape(item, into: &h, depth: depth + 1) }
        case .object(let object):
            h.add(9)
            for member in object.members { h.add(member.key); shape(member.value, into: &h, depth: depth + 1) }
        }
    }
}

/// FNV-1a, 64-bit: features only need to be distinct, not secret.
struct FeatureHash {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325
    mutating func add(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x100_0000_01B3 }
    mutating func add(_ text: String) { for byte in text.utf8 { add(byte) }; add(0) }
}

extension Int {
    /// 0 for 0, else 1 + floor(log2): size classes, so a string of 40 and of 41 bytes are alike.
    var bitWidthClass: Int { self <= 0 ? 0 : Int.bitWidth - leadingZeroBitCount }
}
