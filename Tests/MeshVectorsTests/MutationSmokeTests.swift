import MeshFuzz
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
        // MeshFuzz's mutator, with the format's layout and dictionary from the fuzz registry.
        var mutator = FuzzRegistry.target(format).map { Mutator(target: $0) } ?? Mutator()
        var rng = FuzzRandom(seed: 0x5EED)
        var decoded = 0, roundTripFailures: [String] = []
        for i in 0..<Self.inputsPerFormat {
            let seedIndex = rng.below(seeds.count)
            let input = mutator.mutate(seeds[seedIndex], other: seeds[rng.below(seeds.count)], rng: &rng).bytes
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
