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

    /// The same rule over bytes in place. Straight-line arithmetic, no tables: the lookups in
    /// lazily initialised static arrays (digit offsets, hex values) took about 355 instructions
    /// per UUID where this takes about 220 (callgrind), and no branch to mispredict.
    static func parse(bytes text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36, let base = text.baseAddress, base[8] == UInt8(ascii: "-"), base[13] == UInt8(ascii: "-"),
              base[18] == UInt8(ascii: "-"), base[23] == UInt8(ascii: "-") else { return nil }
        // Hex value of a digit, or 0xFF: one OR over the 32 tells a bad digit. Without branches:
        // digits and letters alternate at random in a UUID, and a branch on which one it is
        // was mispredicted about once in three (most of this function's time).
        @inline(__always) func value(_ c: UInt8) -> UInt8 {
            let digit = c &- UInt8(ascii: "0")
            let letter = (c | 0x20) &- UInt8(ascii: "a")   // either case
            let isDigit: UInt8 = digit < 10 ? 0xFF : 0, isLetter: UInt8 = letter < 6 ? 0xFF : 0
            return digit & isDigit | (letter &+ 10) & isLetter | ~(isDigit | isLetter)
        }
        var bad: UInt8 = 0
        @inline(__always) func byte(_ at: Int) -> UInt8 {
            let high = value(base[at]), low = value(base[at + 1])
            bad |= high | low
            return high << 4 | low & 0x0F
        }
        // The 16 bytes at their places in 8-4-4-4-12.
        let id: uuid_t = (byte(0), byte(2), byte(4), byte(6), byte(9), byte(11), byte(14), byte(16),
                          byte(19), byte(21), byte(24), byte(26), byte(28), byte(30), byte(32), byte(34))
        return bad & 0xF0 == 0 ? UUID(uuid: id) : nil
    }
}
