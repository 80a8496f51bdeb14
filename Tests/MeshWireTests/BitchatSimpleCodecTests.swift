import MeshWire
import Testing

/// bitchat.md section 2 and simple.md section 2, beyond what the golden vectors hold.
@Suite struct BitchatSimpleCodecTests {
    static func code(_ body: () throws(WireError) -> Void) -> WireError.Code? {
        do { try body(); return nil } catch { return error.code }
    }

    @Test func bucketRuleMatchesBitchatsPublishedBoundaries() {
        // BITCHAT-W7: 240 -> 16 bytes to 256, 241 -> none, 496 -> 16, 497 -> none, 2032 -> 16, 2033 -> none.
        #expect([240, 241, 496, 497, 1008, 1009, 2032, 2033, 54, 262, 250].map(BitchatPadding.bucketPadLength(frameLength:))
                == [16, 0, 16, 0, 16, 0, 16, 0, 202, 250, 0])
    }

    @Test func compressedPacketsRoundTripThroughOurDeflater() throws {
        // BITCHAT-W6: what our deflater writes (zlib via compress-nio), raw and wrapped, decodes back.
        let text = Array(String(repeating: "bitchat mesh ", count: 40).utf8)
        #expect(BitchatCompression.appWouldCompress(text))
        #expect(!BitchatCompression.appWouldCompress(Array(0...255)))
        for format in BitchatCompressionFormat.allCases {
            let data = BitchatCompression.deflate(text, format: format)
            #expect(data.count < text.count)
            for version: UInt8 in [1, 2] {
                let p = BitchatPacket(version: version, type: 2, ttl: 7, timestamp: 1, senderID: Array(repeating: 1, count: 8), payload: text,
                                      compression: .init(format: format, originalSize: text.count, data: data))
                let back = try BitchatPacket(decoding: p.encoded())
                #expect(back == p && back.compression?.format == format)
            }
        }
    }

    @Test func ratioAndSizeCapsRefuseBeforeInflating() {
        // BITCHAT-W5: a 2-byte stream may claim at most 100 000 bytes; the absolute cap holds
        // whatever the ratio.
        #expect(Self.code { () throws(WireError) in _ = try BitchatCompression.inflate([0x03, 0x00], originalSize: 100_001) } == .ratioTooHigh)
        #expect(Self.code { () throws(WireError) in _ = try BitchatCompression.inflate([0x03, 0x00], originalSize: 100_000) } == .badCompression)
        let big = [UInt8](repeating: 0, count: 100)
        #expect(Self.code { () throws(WireError) in _ = try BitchatCompression.inflate(big[...], originalSize: BitchatCompression.maxOriginalSize + 1) } == .tooLarge)
        // A real 1 MB bomb (zeros compress about 1000:1) inflates exactly, within the caps.
        let zeros = [UInt8](repeating: 0, count: 1_000_000)
        let bomb = BitchatCompression.deflate(zeros)
        #expect((try? BitchatCompression.inflate(bomb[...], originalSize: zeros.count))?.payload.count == zeros.count)
        #expect(Self.code { () throws(WireError) in _ = try BitchatCompression.inflate(bomb[...], originalSize: zeros.count - 1) } == .badCompression)
    }

    @Test func neutralFormRefusesInconsistentFlags() {
        let json = try! JSONParser.parse(#"{"version":1,"type":2,"ttl":7,"timestamp":"1","flags":1,"senderID":"0101010101010101","payload":""}"#)
        #expect(Self.code { () throws(WireError) in _ = try BitchatPacket(neutral: json) } == .valueOutOfRange)
        let route = try! JSONParser.parse(#"{"version":1,"type":2,"ttl":7,"timestamp":"1","flags":8,"senderID":"0101010101010101","payload":"","route":["0202020202020202"]}"#)
        #expect(Self.code { () throws(WireError) in _ = try BitchatPacket(neutral: route) } == .valueOutOfRange)
    }

    @Test func fragmentsSplitAndRejoin() throws {
        let frame = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        let parts = try #require(BitchatFragment.split(frame, fragmentID: Array(repeating: 7, count: 8), originalType: 2, chunkSize: 469))
        #expect(parts.map(\.data.count) == [469, 469, 62] && parts.allSatisfy { $0.total == 3 })
        #expect(try parts.map { try BitchatFragment(decoding: $0.encoded()) } == parts)
        #expect(parts.flatMap(\.data) == frame)
        // More than 10 000 fragments: refused (BITCHAT-R7).
        #expect(BitchatFragment.split([UInt8](repeating: 0, count: 10_001), fragmentID: Array(repeating: 7, count: 8), originalType: 2, chunkSize: 1) == nil)
        #expect(BitchatFragment.split([UInt8](repeating: 0, count: 10_000), fragmentID: Array(repeating: 7, count: 8), originalType: 2, chunkSize: 1)?.count == 10_000)
    }

    @Test func simpleMessageRoundTripsAndRefusesOversize() throws {
        let m = SimpleMessage(id: "EMRG-001", sender: "Worker A", content: "a/b", timestamp: 767_923_200.5, ttl: 5, originalSender: "Worker A")
        #expect(String(decoding: m.encoded(), as: UTF8.self).contains(#""content":"a\/b""#))
        #expect(try SimpleMessage(decoding: m.encoded()) == m)
        var big = m
        big.content = String(repeating: "x", count: 600)
        #expect(Self.code { () throws(WireError) in _ = try SimpleMessage(neutral: big.neutral) } == .tooLarge)
    }
}
