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

    /// The same rule over bytes in place, eight digits at a time in a 64-bit word (SWAR): each
    /// byte is classed and converted with whole-word arithmetic, no tables and no branch per
    /// digit (digits and letters alternate at random in a UUID: a branch on which one it is was
    /// mispredicted about once in three). About 150 instructions per UUID where a byte at a time
    /// took 220 (callgrind).
    static func parse(bytes text: UnsafeBufferPointer<UInt8>) -> UUID? {
        bytes(text).map(UUID.init(uuid:))
    }

    /// The 16 bytes the text spells, by the same rule, without building a `UUID` (Foundation's
    /// initializer is about 60 instructions more, a cost for a reader that only hashes them).
    static func bytes(_ text: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        guard text.count == 36, let base = text.baseAddress, base[8] == UInt8(ascii: "-"), base[13] == UInt8(ascii: "-"),
              base[18] == UInt8(ascii: "-"), base[23] == UInt8(ascii: "-") else { return nil }
        let raw = UnsafeRawPointer(base)
        func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        func half(_ offset: Int) -> UInt64 { UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
        // The 32 digits of 8-4-4-4-12 as four words: 0-7, 9-12 and 14-17, 19-22 and 24-27, 28-35.
        var bad: UInt64 = 0
        let (a, b) = (packed(word(0), &bad), packed(half(9) | half(14) << 32, &bad))
        let (c, d) = (packed(half(19) | half(24) << 32, &bad), packed(word(28), &bad))
        guard bad == 0 else { return nil }
        var id: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &id) { out in
            out.storeBytes(of: a.littleEndian, as: UInt32.self)
            out.storeBytes(of: b.littleEndian, toByteOffset: 4, as: UInt32.self)
            out.storeBytes(of: c.littleEndian, toByteOffset: 8, as: UInt32.self)
            out.storeBytes(of: d.littleEndian, toByteOffset: 12, as: UInt32.self)
        }
        return id
    }

    /// Eight hex digits (the first in the lowest byte) as the four bytes they spell, first byte
    /// lowest; any byte that is not a digit sets a bit of `bad`.
    @inline(__always)
    private static func packed(_ text: UInt64, _ bad: inout UInt64) -> UInt32 {
        let ones: UInt64 = 0x0101_0101_0101_0101, high = ones << 7
        // For bytes below 0x80: the high bit of each byte set where the byte is >= k.
        func atLeast(_ x: UInt64, _ k: UInt64) -> UInt64 { ((x | high) &- k &* ones) & high }
        let digit = atLeast(text, 0x30) & ~atLeast(text, 0x3A)
        let folded = text | 0x2020_2020_2020_2020   // 'A'-'F' to 'a'-'f'; digits keep their bit 0x20
        let letter = atLeast(folded, 0x61) & ~atLeast(folded, 0x67)
        bad |= text & high | ~(digit | letter) & high
        // Digits are their low nibble; 'a'-'f' have low nibbles 1-6, nine short of their value.
        let nibbles = (text & 0x0F0F_0F0F_0F0F_0F0F) &+ (letter >> 7) &* 9
        // Pairs of nibbles to bytes (in bytes 0, 2, 4, 6), then the four bytes side by side.
        var value = (nibbles << 4 | nibbles >> 8) & 0x00FF_00FF_00FF_00FF
        value = (value | value >> 8) & 0x0000_FFFF_0000_FFFF
        return UInt32(truncatingIfNeeded: value | value >> 16)
    }
}
