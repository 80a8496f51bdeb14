@testable import Conformance
import Foundation
import MeshFuzz
import MeshNode
import MeshWire
import Testing

/// Structure-aware inputs over the air (docs/fuzzing.md, "Inner messages, layers rebuilt"):
/// the inner message is mutated, every layer around it is valid, so the mutant reaches the
/// code behind them.
@Suite("over-the-air inputs: inner messages mutated, layers rebuilt")
struct LayeredInputsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func vectors(of dialect: DialectName) -> [FormatID: [[UInt8]]] {
        var all: [FormatID: [[UInt8]]] = [:]
        for codec in FormatCatalog.all where codec.dialect == dialect.rawValue {
            let url = root.appendingPathComponent("Vectors/\(codec.id).json")
            guard let data = try? Data(contentsOf: url), case .object(let file)? = try? JSONParser.parse(Array(data)[...]),
                  case .array(let tests)? = file["tests"] else { continue }
            all[codec.id] = tests.compactMap { test -> [UInt8]? in
                guard case .object(let t) = test, t["result"] == .string("valid"), case .string(let hex)? = t["hex"] else { return nil }
                return Hex.decode(hex)
            }
        }
        return all
    }

    static func seeds(_ dialect: DialectName) throws -> [LayeredSeed] {
        let probe = try #require(dialect.makeProbe())
        _ = try probe.setup(capabilities: .referenceNode(dialect), seed: 1)
        let messages = FuzzSeeds.messages(probe: probe, defaultTTL: DialectParameters.of(dialect).defaultTTL)
        return LayeredInputs.seeds(messages: messages, vectors: vectors(of: dialect))
    }

    /// Every mutant of every seed: the inner bytes after mutation, and the units written.
    static func mutants(_ dialect: DialectName, perSeed: Int = 30) throws -> [(seed: LayeredSeed, inner: [UInt8], units: [[UInt8]])] {
        var rng = FuzzRandom(seed: 11)
        var out: [(LayeredSeed, [UInt8], [[UInt8]])] = []
        for seed in try seeds(dialect) {
            var mutator = FuzzRegistry.target(seed.format).map { Mutator(target: $0, maxLength: OTAInputs.maxInner) } ?? Mutator()
            for i in 0..<perSeed {
                let fresh = seed.refresh(seed.inner, UInt64(i + 1))
                let inner = i % 2 == 0 ? FieldMutation.mutate(fresh, format: seed.format, maxLength: seed.maxInner, rng: &rng) ?? fresh
                    : Array(mutator.mutate(fresh, other: fresh, rng: &rng).bytes.prefix(seed.maxInner))
                out.append((seed, inner, seed.wrap(inner, &rng)))
            }
        }
        return out
    }

    @Test("every dialect with a probe has layered seeds of its inner formats")
    func seedsPerDialect() throws {
        let expected: [DialectName: Set<FormatID>] = [
            .blemesh: ["blemesh.envelope", "blemesh.control"], .bitchat: ["bitchat.packet", "bitchat.fragment"],
            .relay: ["relay.frame-header"], .peat: ["peat.document"], .camp: ["camp.message"], .simple: ["simple.message"],
        ]
        for (dialect, formats) in expected {
            let seeds = try Self.seeds(dialect)
            #expect(Set(seeds.map(\.format)) == formats, "\(dialect): \(Set(seeds.map(\.format)))")
        }
    }

    @Test("blemesh: the mutated envelope or control message arrives in valid chunks that reassemble to it")
    func blemeshChunks() throws {
        var longHopPaths = 0
        for (seed, inner, units) in try Self.mutants(.blemesh, perSeed: 10) {
            let chunks = try units.map { try MessageChunk(decoding: $0[...]) }   // every chunk valid
            #expect(Set(chunks.map(\.messageID)).count == 1 && chunks.map(\.chunkIndex) == Array(0..<chunks.count))
            #expect(chunks.allSatisfy { $0.totalChunks == chunks.count })
            let data = chunks.flatMap(\.payload)
            if seed.format == MessageEnvelope.formatID {
                #expect(data == inner)
                if case .object(let o)? = try? JSONParser.parse(data[...]), case .array(let path)? = o["hopPath"], path.count > 16 { longHopPaths += 1 }
            } else {
                // A control message: in a valid control envelope whose payload is the mutant.
                let envelope = try MessageEnvelope(decoding: data[...])
                #expect(envelope.isControlMessage && envelope.payload == inner)
            }
        }
        #expect(longHopPaths > 0, "no envelope with a hopPath over 16 ids")
    }

    @Test("bitchat: fragments are valid packets around valid fragment headers, or one mutated fragment among valid siblings")
    func bitchatFragments() throws {
        var fragmentedPackets = 0, maximalTotals = 0
        for (seed, inner, units) in try Self.mutants(.bitchat) {
            if seed.format == BitchatFragment.formatID {
                let packets = try units.map { try BitchatPacket(decoding: $0[...]) }   // every packet valid
                #expect(packets.allSatisfy { $0.type == BitchatMessageType.fragment.rawValue })
                // The siblings are valid fragments; the mutant is the one payload that is the inner one.
                let valid = packets.filter { (try? BitchatFragment(decoding: $0.payload[...])) != nil }
                #expect(valid.count >= packets.count - 1)
                #expect(packets.contains { Array($0.payload.dropFirst(8)) == Array(inner.dropFirst(8)) })
                if inner.count >= 12, (inner[10], inner[11]) == (0x27, 0x10) || (inner[10], inner[11]) == (0xFF, 0xFF) { maximalTotals += 1 }
            } else if units != [inner] {
                // Fragmented (over one value, or by chance).
                fragmentedPackets += 1
                let fragments = try units.map { try BitchatFragment(decoding: try BitchatPacket(decoding: $0[...]).payload[...]) }
                #expect(fragments.map(\.index) == Array(0..<fragments.count) && Set(fragments.map(\.fragmentID)).count == 1)
                #expect(fragments.flatMap(\.data) == inner)
            }
        }
        #expect(fragmentedPackets > 0 && maximalTotals > 0, "fragmented \(fragmentedPackets), maximal totals \(maximalTotals)")
    }

    @Test("relay: the mutated header over the valid sealed body, headerLen its length")
    func relayHeaders() throws {
        var pastInt64 = 0
        for (_, inner, units) in try Self.mutants(.relay) {
            let unit = try #require(units.first)
            #expect(units.count == 1 && unit[0] == 0x46)
            let length = Int(unit[1]) << 8 | Int(unit[2])
            #expect(length == inner.count && Array(unit[3..<(3 + length)]) == inner)
            // The body is a sealed body the probe made: nonce, ciphertext, tag.
            #expect(unit.count - 3 - length >= SealedBody.minimumSize)
            if case .object(let o)? = try? JSONParser.parse(inner[...]), case .number(let t)? = o["ttl"] ?? o["seq"], t.count >= 19, !t.hasPrefix("-") { pastInt64 += 1 }
        }
        #expect(pastInt64 > 0)
    }

    @Test("peat: the mutated document in a valid relay envelope")
    func peatEnvelopes() throws {
        var manyEntries = 0
        for (_, inner, units) in try Self.mutants(.peat) {
            let envelope = try PeatRelayEnvelope(decoding: try #require(units.first)[...])   // valid
            #expect(envelope.payload == inner)
            if inner.count >= 12, Int(inner[8]) | Int(inner[9]) << 8 > 8 { manyEntries += 1 }
        }
        #expect(manyEntries > 0)
    }

    @Test("stateful: some mutants' units come reordered, repeated, dropped or interleaved")
    func orderings() throws {
        let seeds = try Self.seeds(.blemesh)
        var inputs = OTAInputs(units: [], layered: seeds, unitFormat: nil, maxUnit: 512, vectors: [:])
        var rng = FuzzRandom(seed: 3)
        var perturbed = 0
        for _ in 0..<400 {
            let units = inputs.next(rng: &rng)
            let chunks = units.compactMap { try? MessageChunk(decoding: $0[...]) }
            let ids = chunks.map(\.messageID)
            let inOrder = chunks.count == units.count && Set(ids).count == 1 && chunks.map(\.chunkIndex) == Array(0..<chunks.count)
            if !inOrder { perturbed += 1 }
        }
        #expect(perturbed > 20 && perturbed < 300, "\(perturbed) of 400")
        let reversed = UnitOrderings.perturb([[1], [2], [3]], with: [], rng: &rng)
        #expect(Set(reversed) .isSubset(of: [[1], [2], [3]]))
    }
}
