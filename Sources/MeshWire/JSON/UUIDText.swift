import Foundation

/// UUIDs as JSON text without Foundation's formatter and parser, which go through printf and
/// sscanf on Linux: after the JSON itself, the largest cost of a simulated node relaying
/// envelopes (every envelope names four to six UUIDs). Written as `uuidString` writes them,
/// uppercase 8-4-4-4-12; read in that layout with hex digits of either case (RELAY-W6), and
/// nothing else: no braces, no missing hyphens, no signs or spaces inside.
enum UUIDText {
    static func format(_ id: UUID) -> String {
        String(unsafeUninitializedCapacity: 36) { text in
            write(id.uuid, to: UnsafeMutableRawPointer(text.baseAddress.unsafelyUnwrapped))
            return 36
        }
    }

    /// The 36 bytes of `id`'s text at `text`, eight digits at a time (SWAR, as `words(_:)` reads
    /// them): a relay node writes a UUID into every beacon it relays.
    static func write(_ id: uuid_t, to text: UnsafeMutableRawPointer) {
        withUnsafeBytes(of: id) { raw in
            @inline(__always) func group(_ offset: Int) -> UInt64 { spelled(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
            let (a, b, c, d) = (group(0), group(4), group(8), group(12))
            // 8-4-4-4-12: bytes 0-3, 4-5, 6-7, 8-9, 10-15.
            text.storeBytes(of: a.littleEndian, as: UInt64.self)
            text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 8, as: UInt8.self)
            text.storeBytes(of: UInt32(truncatingIfNeeded: b).littleEndian, toByteOffset: 9, as: UInt32.self)
            text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 13, as: UInt8.self)
            text.storeBytes(of: UInt32(truncatingIfNeeded: b >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
            text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 18, as: UInt8.self)
            text.storeBytes(of: UInt32(truncatingIfNeeded: c).littleEndian, toByteOffset: 19, as: UInt32.self)
            text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 23, as: UInt8.self)
            text.storeBytes(of: UInt32(truncatingIfNeeded: c >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
            text.storeBytes(of: d.littleEndian, toByteOffset: 28, as: UInt64.self)
        }
    }

    /// Four bytes (the first lowest) as their eight uppercase hex digits, the first digit in
    /// the lowest byte.
    @inline(__always)
    private static func spelled(_ bytes: UInt32) -> UInt64 {
        var t = UInt64(bytes)
        t = (t | t << 16) & 0x0000_FFFF_0000_FFFF
        t = (t | t << 8) & 0x00FF_00FF_00FF_00FF   // byte i in the low half of 16-bit lane i
        let nibbles = (t >> 4) & 0x000F_000F_000F_000F | (t & 0x000F_000F_000F_000F) << 8
        // '0' + n, and 7 more for 10-15 ('A' is 7 after '9' + 1): n + 6 has bit 4 set from 10 on.
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 7
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
        words(text).map(uuid)
    }

    /// The 16 bytes the text spells, by the same rule, as two words (bytes 0-7 and 8-15, each
    /// read little-endian, as `TableHash.words` reads a UUID): 16 bytes as a `uuid_t` are 16
    /// arguments to pass and unpack, about 100 instructions for a reader that only hashes them.
    static func words(_ text: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        guard text.count == 36, let base = text.baseAddress, base[8] == UInt8(ascii: "-"), base[13] == UInt8(ascii: "-"),
              base[18] == UInt8(ascii: "-"), base[23] == UInt8(ascii: "-") else { return nil }
        let raw = UnsafeRawPointer(base)
        // The 32 digits of 8-4-4-4-12 as four words: 0-7, 9-12 and 14-17, 19-22 and 24-27, 28-35.
        var bad: UInt64 = 0
        let (a, b) = (packed(word(raw, 0), &bad), packed(half(raw, 9) | half(raw, 14) << 32, &bad))
        let (c, d) = (packed(half(raw, 19) | half(raw, 24) << 32, &bad), packed(word(raw, 28), &bad))
        guard bad == 0 else { return nil }
        return (UInt64(a) | UInt64(b) << 32, UInt64(c) | UInt64(d) << 32)
    }

    /// The same words read without checking the text (any words for text that is not a UUID):
    /// for a reader that only guesses where a key will be (`RelayPacket.beaconKeyHint`), at a
    /// third of `words(_:)`'s work. Equal to `words(_:)` wherever that reads a UUID.
    static func unverifiedWords(_ text: UnsafeRawPointer) -> (UInt64, UInt64) {
        let (a, b) = (joined(word(text, 0)), joined(half(text, 9) | half(text, 14) << 32))
        let (c, d) = (joined(half(text, 19) | half(text, 24) << 32), joined(word(text, 28)))
        return (UInt64(a) | UInt64(b) << 32, UInt64(c) | UInt64(d) << 32)
    }

    /// The UUID of two words as `words(_:)` gives them: their bytes are the UUID's bytes
    /// (`UUID` is its `uuid_t`; `uuidTextReadsEveryByteAsTheRuleSays` checks it), loaded as one
    /// rather than passed to `UUID(uuid:)` as 16 arguments.
    static func uuid(_ words: (UInt64, UInt64)) -> UUID {
        withUnsafeBytes(of: (words.0.littleEndian, words.1.littleEndian)) { $0.load(as: UUID.self) }
    }

    private static func word(_ text: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: text.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    private static func half(_ text: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        UInt64(UInt32(littleEndian: text.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    /// Eight hex digits as four bytes, unchecked: a digit is its low nibble; 'a'-'f' and
    /// 'A'-'F' (bit 0x40 set) have low nibbles 1-6, nine short of their value.
    @inline(__always)
    private static func joined(_ text: UInt64) -> UInt32 {
        let nibbles = (text & 0x0F0F_0F0F_0F0F_0F0F) &+ ((text >> 6) & 0x0101_0101_0101_0101) &* 9
        // Pairs of nibbles to bytes (in bytes 0, 2, 4, 6), then the four bytes side by side.
        var value = (nibbles << 4 | nibbles >> 8) & 0x00FF_00FF_00FF_00FF
        value = (value | value >> 8) & 0x0000_FFFF_0000_FFFF
        return UInt32(truncatingIfNeeded: value | value >> 16)
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
        return joined(text)
    }
}
