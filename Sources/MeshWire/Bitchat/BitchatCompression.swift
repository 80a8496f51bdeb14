import CZlib

/// How a bitchat payload was compressed. The app writes raw DEFLATE (Apple's
/// `COMPRESSION_ZLIB` has no header); other implementations write zlib-wrapped streams,
/// and receivers accept both (docs/dialects/bitchat.md, BITCHAT-W6).
public enum BitchatCompressionFormat: String, Hashable, Sendable, CaseIterable {
    case deflate, zlib
}

/// Inflating an untrusted bitchat payload with bounded work and memory.
///
/// zlib itself does the inflating: this type only decides how much output may be produced and
/// whether the stream ended exactly where the payload does.
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
        for format in BitchatCompressionFormat.allCases {
            if let payload = inflateExactly(compressed, originalSize: originalSize, format: format) { return (payload, format) }
        }
        throw WireError(.badCompression, "not one raw DEFLATE or zlib stream inflating to exactly \(originalSize) byte(s)")
    }

    /// windowBits for zlib: negative is raw DEFLATE.
    private static func windowBits(_ format: BitchatCompressionFormat) -> Int32 { format == .deflate ? -15 : 15 }

    /// nil unless `compressed` is exactly one stream of `format` giving `originalSize` bytes.
    private static func inflateExactly(_ compressed: ArraySlice<UInt8>, originalSize: Int, format: BitchatCompressionFormat) -> [UInt8]? {
        var input = Array(compressed)
        // One byte of room beyond the declared size, so a stream that inflates to more is
        // seen as more, not as a full buffer. zlib never writes past avail_out.
        var output = [UInt8](repeating: 0, count: originalSize + 1)
        var stream = z_stream()
        guard mc_inflate_init(&stream, windowBits(format)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        // All input and all room at once: one call ends the stream or says why not.
        let status = finish(&stream, &input, &output, CZlib.inflate)
        // Complete (Z_STREAM_END), nothing after it (all input used), exactly the declared size.
        guard status == Z_STREAM_END, stream.avail_in == 0, Int(stream.total_out) == originalSize else { return nil }
        return Array(output.prefix(originalSize))
    }

    /// One `inflate` or `deflate` call with Z_FINISH over all of `input` into all of `output`.
    private static func finish(_ stream: inout z_stream, _ input: inout [UInt8], _ output: inout [UInt8],
                               _ call: (UnsafeMutablePointer<z_stream>?, Int32) -> Int32) -> Int32 {
        input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { sink in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = sink.baseAddress
                stream.avail_out = uInt(sink.count)
                return call(&stream, Z_FINISH)
            }
        }
    }

    /// Compresses the way the app does (raw DEFLATE, zlib's default level); for building
    /// packets in tests and in the reference node, never used by decoders.
    public static func deflate(_ bytes: [UInt8], format: BitchatCompressionFormat = .deflate) -> [UInt8] {
        var stream = z_stream()
        guard mc_deflate_init(&stream, windowBits(format)) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let status = finish(&stream, &input, &output, CZlib.deflate)   // deflateBound leaves room for all of it
        guard status == Z_STREAM_END else { return [] }
        return Array(output.prefix(Int(stream.total_out)))
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
