import CZlib
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
/// zlib itself does the inflating (called directly; compress-nio only compresses, for tests and
/// the reference node): this type only decides how much output may be produced and whether the
/// stream ended exactly where the payload does.
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
        // One output buffer of exactly the declared size, filled by whichever form inflates.
        var format: BitchatCompressionFormat?
        let payload = [UInt8](unsafeUninitializedCapacity: originalSize) { output, count in
            compressed.withUnsafeBufferPointer { input in
                if inflateExactly(input, into: output, windowBits: -15) {
                    format = .deflate
                } else if inflateExactly(input, into: output, windowBits: 15) {
                    format = .zlib
                }
            }
            count = format == nil ? 0 : originalSize
        }
        guard let format else {
            throw WireError(.badCompression, "not one raw DEFLATE or zlib stream inflating to exactly \(originalSize) byte(s)")
        }
        return (payload, format)
    }

    /// True when `input` is exactly one stream (raw DEFLATE for window bits -15, zlib for 15)
    /// that fills `output` exactly: zlib reports the stream's end with every input byte used
    /// and every output byte written. A stream cut short, one with bytes after its end, and
    /// one that would give more or fewer bytes all fail.
    private static func inflateExactly(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>, windowBits: Int32) -> Bool {
        // zlib keeps a pointer back to its z_stream, so the stream must not move: a temporary
        // allocation (on the stack) rather than a Swift variable passed inout.
        withUnsafeTemporaryAllocation(of: z_stream.self, capacity: 1) { buffer in
            let stream = buffer.baseAddress!
            stream.initialize(to: z_stream())
            guard CZlib_inflateInit2(stream, windowBits) == Z_OK else { return false }
            defer { inflateEnd(stream) }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = UInt32(input.count)
            stream.pointee.next_out = output.baseAddress
            stream.pointee.avail_out = UInt32(output.count)
            let result = CZlib.inflate(stream, Z_FINISH)
            return result == Z_STREAM_END && stream.pointee.avail_in == 0 && stream.pointee.total_out == output.count
        }
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
