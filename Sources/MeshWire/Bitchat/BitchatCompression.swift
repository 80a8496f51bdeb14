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
        try compressed.span.withUnsafeBytes { input throws(WireError) in try inflate(input, originalSize: originalSize) }
    }

    /// `inflate(_:originalSize:)` over borrowed bytes (a packet's layout reads them in place).
    static func inflate(
        _ compressed: UnsafeRawBufferPointer, originalSize: Int
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
            let input = compressed.assumingMemoryBound(to: UInt8.self)
            // Raw DEFLATE first, then zlib (named, not `allCases`, which builds an array per call).
            format = inflateExactly(input, into: output, format: .deflate) ? .deflate
                : inflateExactly(input, into: output, format: .zlib) ? .zlib : nil
            count = format == nil ? 0 : originalSize
        }
        guard let format else {
            throw WireError(.badCompression, "not one raw DEFLATE or zlib stream inflating to exactly \(originalSize) byte(s)")
        }
        return (payload, format)
    }

    /// windowBits for zlib: negative is raw DEFLATE.
    private static func windowBits(_ format: BitchatCompressionFormat) -> Int32 { format == .deflate ? -15 : 15 }

    /// True when `input` is exactly one stream of `format` that fills `output` exactly: one
    /// `inflate(Z_FINISH)` over all of it, straight from the input into the payload (no copies),
    /// must end the stream (Z_STREAM_END) with every input byte used and every output byte
    /// written. A stream cut short, one with bytes after its end, one that would give more or
    /// fewer bytes all fail.
    private static func inflateExactly(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>,
                                       format: BitchatCompressionFormat) -> Bool {
        // zlib keeps a pointer back to its z_stream, so the stream must not move: a temporary
        // allocation (on the stack) rather than a Swift variable passed inout.
        withUnsafeTemporaryAllocation(of: z_stream.self, capacity: 1) { buffer in
            let stream = buffer.baseAddress!
            stream.initialize(to: z_stream())
            guard mc_inflate_init(stream, windowBits(format)) == Z_OK else { return false }
            defer { inflateEnd(stream) }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            stream.pointee.next_out = output.baseAddress
            stream.pointee.avail_out = uInt(output.count)
            let status = CZlib.inflate(stream, Z_FINISH)
            return status == Z_STREAM_END && stream.pointee.avail_in == 0 && Int(stream.pointee.total_out) == output.count
        }
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
