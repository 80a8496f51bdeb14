import CompressNIO
import NIOCore

/// How a bitchat payload was compressed. The app writes raw DEFLATE (Apple's
/// `COMPRESSION_ZLIB` has no header); other implementations write zlib-wrapped streams,
/// and receivers accept both (docs/dialects/bitchat.md, BITCHAT-W6).
public enum BitchatCompressionFormat: String, Hashable, Sendable, CaseIterable {
    case deflate, zlib
}

/// Inflating an untrusted bitchat payload with bounded work and memory.
///
/// zlib itself does the inflating (through compress-nio): this type only decides how much
/// output may be produced and whether the stream ended exactly where the payload does.
public enum BitchatCompression {
    /// bitchat's zip-bomb guard: declared original size over compressed size.
    public static let maxRatio = 50_000
    /// The app's `FileTransferLimits.maxFramedFileBytes`: 1 MiB of file, two 65 535-byte
    /// TLV strings, 18 bytes of TLV tags and a v2 header with both ids and a signature.
    public static let maxOriginalSize = 1_048_576 + 18 + 2 * 65_535 + 16 + 8 + 8 + 64

    /// Inflates `compressed`, which must be one complete stream (raw DEFLATE tried first, then
    /// zlib) that inflates to exactly `originalSize` bytes.
    public static func inflate(
        _ compressed: ArraySlice<UInt8>, originalSize: Int
    ) throws(WireError) -> (payload: [UInt8], format: BitchatCompressionFormat) {
        guard originalSize <= maxOriginalSize else {
            throw WireError(.tooLarge, "original size \(originalSize) is above \(maxOriginalSize)")
        }
        guard !compressed.isEmpty else { throw WireError(.lengthMismatch, "compressed payload is empty") }
        guard originalSize <= maxRatio * compressed.count else {
            throw WireError(.ratioTooHigh, "original size \(originalSize) from \(compressed.count) compressed byte(s) is above 50 000:1")
        }
        guard originalSize > 0 else { throw WireError(.badCompression, "original size 0") }
        if let payload = inflateExactly(compressed, originalSize: originalSize, algorithm: .deflate) {
            return (payload, .deflate)
        }
        if let payload = inflateExactly(compressed, originalSize: originalSize, algorithm: .zlib) {
            return (payload, .zlib)
        }
        throw WireError(.badCompression, "not one raw DEFLATE or zlib stream inflating to exactly \(originalSize) byte(s)")
    }

    /// nil unless `compressed` is exactly one stream of `algorithm` giving `originalSize` bytes.
    private static func inflateExactly(_ compressed: ArraySlice<UInt8>, originalSize: Int, algorithm: ZlibAlgorithm) -> [UInt8]? {
        guard let inflater = try? ZlibDecompressor(algorithm: algorithm) else { return nil }
        // One sentinel byte after the stream: zlib stops at the end of a complete stream and
        // leaves it unread, while a stream cut short swallows it (or fails). So exactly one
        // unread byte afterwards means "complete, and nothing after it".
        var input = ByteBufferAllocator().buffer(capacity: compressed.count + 1)
        input.writeBytes(compressed)
        input.writeInteger(UInt8(0))
        // One byte of room beyond the declared size, so a stream that inflates to more is
        // seen as more, not as a full buffer.
        var output = ByteBufferAllocator().buffer(capacity: originalSize + 1)
        do {
            try inflater.inflate(from: &input, to: &output)
        } catch {
            return nil
        }
        guard input.readableBytes == 1, output.readableBytes == originalSize else { return nil }
        return output.readBytes(length: originalSize)
    }

    /// Compresses the way the app does (raw DEFLATE, zlib's default level); for building
    /// packets in tests and in the reference node, never used by decoders.
    public static func deflate(_ bytes: [UInt8], format: BitchatCompressionFormat = .deflate) -> [UInt8] {
        var input = ByteBufferAllocator().buffer(capacity: bytes.count)
        input.writeBytes(bytes)
        let algorithm: CompressionAlgorithm = format == .deflate ? .deflate() : .zlib()
        guard var out = try? input.compress(with: algorithm) else { return [] }
        return out.readBytes(length: out.readableBytes) ?? []
    }

    /// The app's `shouldCompress`: at least 100 bytes and under 90 % distinct byte values
    /// among min(count, 256), so already-compressed or encrypted data is left alone.
    public static func appWouldCompress(_ payload: [UInt8]) -> Bool {
        guard payload.count >= 100 else { return false }
        var seen = [Bool](repeating: false, count: 256)
        var distinct = 0
        for b in payload where !seen[Int(b)] {
            seen[Int(b)] = true
            distinct += 1
        }
        return Double(distinct) / Double(min(payload.count, 256)) < 0.9
    }
}
