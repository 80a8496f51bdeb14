import MeshNode
import MeshVectors
import MeshWire
import Testing

/// A bounded mutation campaign over every decoder, seeded from its vectors: no input may trap,
/// and anything that decodes must survive the round-trip oracle
/// decode(encode(decode(x))) == decode(x) (or be refused by encode as `tooLarge`).
@Suite("mutation smoke")
struct MutationSmokeTests {
    static let inputsPerFormat = 200_000

    @Test("200k mutated inputs, no trap, round trip holds", arguments: FormatCatalog.ids)
    func smoke(_ format: FormatID) throws {
        let codec = try #require(FormatCatalog.codec(format))
        let vectors = Repository.files.first { $0.format == format }?.tests ?? []
        let seeds = vectors.map(\.bytes)
        try #require(!seeds.isEmpty)
        var mutator = Mutator(seeds: seeds, seed: 0x5EED)
        var decoded = 0, roundTripFailures: [String] = []
        for i in 0..<Self.inputsPerFormat {
            let (input, seedIndex) = mutator.next()
            let context = vectors[seedIndex].context
            guard let value = try? codec.decode(input, context) else { continue }
            decoded += 1
            let again: [UInt8]
            do { again = try codec.encode(value, context) } catch {
                // Escaping can make the canonical form longer than a size limit the input
                // respected (Foundation writes `/` as `\/`): encode may refuse that, nothing else.
                if error.code != .tooLarge, roundTripFailures.count < 3 { roundTripFailures.append("input #\(i) does not encode: \(error)") }
                continue
            }
            guard let back = try? codec.decode(again, context), back.isEquivalent(to: value) else {
                if roundTripFailures.count < 3 { roundTripFailures.append("input #\(i): \(Hex.encode(input))") }
                continue
            }
        }
        #expect(roundTripFailures.isEmpty, "round trip broken: \(roundTripFailures)")
        // The campaign must reach past the first byte: some mutants still decode.
        #expect(decoded > 0)
    }
}

/// Generic and JSON-aware byte mutations (the real fuzzer will live in MeshFuzz).
struct Mutator {
    let seeds: [[UInt8]]
    var rng: SeededRandom
    static let interesting: [UInt8] = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x22, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x2d, 0x30, 0x39, 0x5c, 0x2e, 0x65]
    static let tokens: [[UInt8]] = ["0", "-1", "255", "256", "1.5", "8.0", "1e999", "18446744073709551616", "null", "true", "\"\"",
                                    "[]", "{}", "\"A\"", "\\u0000", "\"QQ==\"", "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\""].map { Array($0.utf8) }

    init(seeds: [[UInt8]], seed: UInt64) {
        self.seeds = seeds
        rng = SeededRandom(seed: seed)
    }

    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(rng.next() % UInt64(n)) }

    mutating func next() -> ([UInt8], Int) {
        let seedIndex = below(seeds.count)
        var b = seeds[seedIndex]
        for _ in 0...below(4) {
            switch below(10) {
            case 0 where !b.isEmpty: b[below(b.count)] ^= 1 << UInt8(below(8))
            case 1 where !b.isEmpty: b[below(b.count)] = Self.interesting[below(Self.interesting.count)]
            case 2: b.insert(Self.interesting[below(Self.interesting.count)], at: below(b.count + 1))
            case 3 where !b.isEmpty:
                let start = below(b.count)
                b.removeSubrange(start..<min(b.count, start + 1 + below(8)))
            case 4 where !b.isEmpty:
                let start = below(b.count)
                let slice = b[start..<min(b.count, start + 1 + below(16))]
                b.insert(contentsOf: slice, at: below(b.count + 1))
            case 5: b = Array(b.prefix(below(b.count + 1)))
            case 6:
                let other = seeds[below(seeds.count)]
                b = Array(b.prefix(below(b.count + 1))) + other.suffix(below(other.count + 1))
            case 7 where !b.isEmpty:
                // Replace a run of digits (a JSON number, a length, an index) with a token.
                let at = below(b.count)
                var end = at
                while end < b.count, (0x30...0x39).contains(b[end]) || b[end] == 0x2d { end += 1 }
                b.replaceSubrange(at..<max(end, at + 1), with: Self.tokens[below(Self.tokens.count)])
            case 8 where b.count >= 3:
                // Length fields sit near the start of the binary formats.
                b[1 + below(2)] = UInt8(truncatingIfNeeded: rng.next())
            default:
                b.insert(contentsOf: Self.tokens[below(Self.tokens.count)], at: below(b.count + 1))
            }
        }
        return (b, seedIndex)
    }
}
