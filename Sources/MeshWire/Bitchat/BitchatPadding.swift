/// bitchat's PKCS#7-style frame padding: every pad byte holds the pad length (1...255).
public enum BitchatPadding {
    public static let buckets = [256, 512, 1024, 2048]
    /// The app reserves room for a 16-byte AEAD tag when choosing a bucket.
    public static let headroom = 16

    /// The pad the app adds to a frame of `frameLength` bytes: up to the first bucket that
    /// holds frame + 16, and only when that takes 1...255 bytes; otherwise none.
    public static func bucketPadLength(frameLength: Int) -> Int {
        guard let bucket = buckets.first(where: { frameLength + headroom <= $0 }) else { return 0 }
        let pad = bucket - frameLength
        return (1...255).contains(pad) ? pad : 0
    }

    /// What follows a complete frame: nothing, or exactly one PKCS#7 pad. The frame is read
    /// first and only its remainder is looked at (BITCHAT-W7: raw bytes first), so a payload
    /// or signature that happens to end in pad-like bytes is never cut.
    static func padLength(of rest: Range<Int>, in r: BorrowedByteReader) throws(WireError) -> Int {
        guard let lastIndex = rest.last else { return 0 }
        let last = r[lastIndex]
        guard Int(last) == rest.count, r.allBytes(in: rest, equal: last) else {
            throw WireError(.trailingBytes, "\(rest.count) byte(s) after the frame at offset \(rest.lowerBound) are not a PKCS#7 pad")
        }
        return rest.count
    }
}
