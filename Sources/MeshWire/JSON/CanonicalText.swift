/// Pieces for reading and writing a JSON header in its canonical encoding (`JSONWriter`'s
/// layout: keys sorted, no whitespace, integers in decimal without leading zeros) straight from
/// and into bytes, for the headers a node reads and writes on most receptions (relay beacons and
/// frame headers). Anything not canonical is left to `JSONParser`, which reads the canonical
/// form to the same value: a reader built from these only says "this is exactly the canonical
/// text of X" or declines.
enum CanonicalText {
    /// Eight bytes of a literal from `offset` as a little-endian word; past its end, its
    /// terminating zero (so a 7-byte literal matches a word whose last byte is masked off).
    @inline(__always)
    static func literal(_ text: StaticString, from offset: Int = 0) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(text.utf8Start).loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Whether the bytes at `at` are `text` (any length).
    @inline(__always)
    static func matches(_ base: UnsafePointer<UInt8>, at: Int, _ text: StaticString) -> Bool {
        UnsafeRawBufferPointer(start: base + at, count: text.utf8CodeUnitCount)
            .elementsEqual(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// At most `digits` decimal digits from `at`, before `end`, no leading zero, at most `max`;
    /// `at` is left after them. Twenty digits (a UInt64) are checked for overflow; fewer cannot
    /// overflow.
    @inline(__always)
    static func decimal(_ base: UnsafePointer<UInt8>, _ at: inout Int, end: Int, digits: Int, max: UInt64) -> UInt64? {
        let start = at, limit = Swift.min(end, at + digits)
        var value: UInt64 = 0
        while at < limit, case let digit = base[at] &- UInt8(ascii: "0"), digit < 10 {
            if digits < 20 {
                value = value &* 10 &+ UInt64(digit)
            } else {
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times10.addingReportingOverflow(UInt64(digit))
                guard !overflow, !carry else { return nil }
                value = sum
            }
            at += 1
        }
        guard at > start, at - start == 1 || base[start] != UInt8(ascii: "0"), value <= max else { return nil }
        return value
    }

    /// `value` in decimal, no leading zeros (as `String(value)` writes it); returns the length.
    /// Generic so that a 32-bit field divides in 32 bits.
    @inline(__always)
    static func writeDecimal<T: FixedWidthInteger & UnsignedInteger>(_ value: T, to out: UnsafeMutableRawPointer) -> Int {
        var length = 1, rest = value / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        rest = value
        for at in (0..<length).reversed() {
            out.storeBytes(of: UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10), toByteOffset: at, as: UInt8.self)
            rest /= 10
        }
        return length
    }

    /// `text` copied to `out + at`; `at` is left after it.
    @inline(__always)
    static func put(_ text: StaticString, to out: UnsafeMutableRawPointer, _ at: inout Int) {
        (out + at).copyMemory(from: text.utf8Start, byteCount: text.utf8CodeUnitCount)
        at += text.utf8CodeUnitCount
    }
}
