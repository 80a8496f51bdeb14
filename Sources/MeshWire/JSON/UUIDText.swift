import Foundation

/// UUIDs as JSON text without Foundation's formatter and parser, which go through printf and
/// sscanf on Linux: after the JSON itself, the largest cost of a simulated node relaying
/// envelopes (every envelope names four to six UUIDs). Written as `uuidString` writes them,
/// uppercase 8-4-4-4-12; read in that layout with hex digits of either case (RELAY-W6), and
/// nothing else: no braces, no missing hyphens, no signs or spaces inside.
enum UUIDText {
    private static let digits = Array("0123456789ABCDEF".utf8)

    static func format(_ id: UUID) -> String {
        withUnsafeBytes(of: id.uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { text in
                var at = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    text[at] = digits[Int(byte >> 4)]
                    text[at + 1] = digits[Int(byte & 0x0F)]
                    at += 2
                }
                return at
            }
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

    private static func parse(bytes text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36 else { return nil }
        var id: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let ok = withUnsafeMutableBytes(of: &id) { out -> Bool in
            var at = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard text[at] == UInt8(ascii: "-") else { return false }
                    at += 1
                }
                guard let high = value(text[at]), let low = value(text[at + 1]) else { return false }
                out[index] = high << 4 | low
                at += 2
            }
            return true
        }
        return ok ? UUID(uuid: id) : nil
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
