import Foundation

/// UUIDs as JSON text without Foundation's formatter and parser, which go through printf and
/// sscanf on Linux: after the JSON itself, the largest cost of a simulated node relaying
/// envelopes (every envelope names four to six UUIDs). Written as `uuidString` writes them,
/// uppercase 8-4-4-4-12; read in that layout with hex digits of either case (RELAY-W6), and
/// nothing else: no braces, no missing hyphens, no signs or spaces inside.
enum UUIDText {
    private static let digits: StaticString = "0123456789ABCDEF"

    static func format(_ id: UUID) -> String {
        String(unsafeUninitializedCapacity: 36) { write(id, into: $0) }
    }

    /// The same 36 bytes appended to `out` (a fast writer's UUID inside JSON, with no String between).
    static func append(_ id: UUID, to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: 36))
        out.withUnsafeMutableBufferPointer { buffer in
            _ = write(id, into: UnsafeMutableBufferPointer(rebasing: buffer[start..<start + 36]))
        }
    }

    private static func write(_ id: UUID, into text: UnsafeMutableBufferPointer<UInt8>) -> Int {
        withUnsafeBytes(of: id.uuid) { raw in
            let digits = Self.digits.utf8Start
            var at = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[at] = UInt8(ascii: "-")
                    at += 1
                }
                let byte = raw[index]
                text[at] = digits[Int(byte >> 4)]
                text[at + 1] = digits[Int(byte & 0x0F)]
                at += 2
            }
            return at
        }
    }

    static func parse(_ text: String) -> UUID? {
        // nil outside: the storage was not contiguous (a bridged string), so copy it first.
        let contiguous: UUID?? = text.utf8.withContiguousStorageIfAvailable { parse(bytes: $0) }
        return contiguous ?? Array(text.utf8).withUnsafeBufferPointer { parse(bytes: $0) }
    }

    /// The same rule over bytes (a fast path's UUID inside JSON it has checked itself).
    static func parse(_ bytes: ArraySlice<UInt8>) -> UUID? {
        bytes.withUnsafeBufferPointer { parse(bytes: $0) }
    }

    /// Where each of the 32 hex digits sits in the 36 bytes of text (the hyphens at 8, 13, 18, 23).
    private static let digitOffsets: [Int] = (0..<36).filter { ![8, 13, 18, 23].contains($0) }

    private static func parse(bytes text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36, text[8] == UInt8(ascii: "-"), text[13] == UInt8(ascii: "-"),
              text[18] == UInt8(ascii: "-"), text[23] == UInt8(ascii: "-") else { return nil }
        var id: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        // Hex values of every byte, 0xFF for a non-digit: one OR over the 32 tells a bad digit.
        let ok = withUnsafeMutableBytes(of: &id) { out -> Bool in
            Self.digitOffsets.withUnsafeBufferPointer { offsets in
                Self.hexValues.withUnsafeBufferPointer { values in
                    var bad: UInt8 = 0
                    for index in 0..<16 {
                        let high = values[Int(text[offsets[2 * index]])], low = values[Int(text[offsets[2 * index + 1]])]
                        bad |= high | low
                        out[index] = high << 4 | low & 0x0F
                    }
                    return bad & 0xF0 == 0
                }
            }
        }
        return ok ? UUID(uuid: id) : nil
    }

    private static let hexValues: [UInt8] = (0...255).map { c in
        switch UInt8(c) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(c) - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(c) - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(c) - UInt8(ascii: "a") + 10
        default: 0xFF
        }
    }
}
