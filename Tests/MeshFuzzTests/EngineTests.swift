import Foundation
import MeshFuzz
import MeshWire
import Testing

@Suite("MeshFuzz engine parts")
struct EngineTests {
    @Test("the same seed makes the same inputs; another seed others")
    func deterministic() {
        func run(_ seed: UInt64) -> [[UInt8]] {
            var mutator = Mutator()
            var rng = FuzzRandom(seed: seed)
            return (0..<200).map { _ in mutator.mutate(Array("{\"ttl\":8,\"type\":\"x\"}".utf8), other: [1, 2, 3], rng: &rng).bytes }
        }
        #expect(run(7) == run(7))
        #expect(run(7) != run(8))
    }

    /// A 10-minute coverage cell (relay.packet, seed 3) had a worker trap in `JSONText.replaceValue`:
    /// `n &+ 1 + k` on a value next to Int.max overflowed on `+ k`. The last input that worker
    /// ran is among these; every kind is applied many times to each, and none may trap.
    @Test("mutations of values at the integer edges wrap, never trap")
    func edgeValuesDoNotTrap() {
        let found = Hex.decode("4600817b2264657374223a2244344437414631462d393837342d323036372d314144452d434142313642464345423646222c226f726967696e223a2232314343333345412d413442302d354139332d383535302d334341424139423935393830222c22736571223a341434353131323035383239303830363738342c2274746c223a387de379")!
        let inputs = [found] + ["9223372036854775807", "9223372036854775806", "-9223372036854775808", "-9223372036854775807"].map {
            Array(#"{"seq":\#($0),"ttl":\#($0),"hop":\#($0),"type":\#($0),"version":\#($0),"chunkIndex":\#($0),"total":\#($0)}"#.utf8)
        }
        let mutator = Mutator(format: "relay.packet")
        var rng = FuzzRandom(seed: 3)
        var changed = 0
        for input in inputs {
            for kind in MutationKind.allCases {
                for _ in 0..<200 {
                    var b = input
                    if mutator.apply(kind, to: &b, other: input, rng: &rng), b != input { changed += 1 }
                }
            }
        }
        #expect(changed > 0)
    }

    /// The engine's own code runs on inputs it made itself, broken in every way: no mutator may
    /// trap on any of them (a trap kills the worker and, over the air, meshconform itself).
    /// Every format's seeds, mutated by every kind in chains of up to eight.
    @Test("mutation chains over every format's seeds never trap")
    func chainsDoNotTrap() throws {
        var rng = FuzzRandom(seed: 11)
        var made = 0
        for format in try FileManager.default.contentsOfDirectory(atPath: Paths.corpus).sorted() where format.contains(".") && !format.hasSuffix(".md") {
            let folder = "\(Paths.corpus)/\(format)"
            let mutator = Mutator(format: format)
            let seeds = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().prefix(8).compactMap {
                FileManager.default.contents(atPath: "\(folder)/\($0)").map { Array($0) }
            }
            for seed in seeds {
                for kind in MutationKind.allCases {
                    var b = seed
                    for _ in 0..<(1 + rng.below(8)) {
                        if mutator.apply(kind, to: &b, other: seeds[rng.below(seeds.count)], rng: &rng) { made += 1 }
                    }
                }
            }
        }
        #expect(made > 1000)
    }

    @Test("format-aware mutations reach their fields", arguments: [
        (MutationKind.ttlHop, "{\"ttl\":8,\"x\":1}"),
        (.chunkIndex, "{\"chunkIndex\":7,\"totalChunks\":3}"),
        (.uuidText, "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\""),
        (.base64Payload, "{\"payload\":\"aGVsbG8gd29ybGQh\"}"),
    ])
    func formatAware(kind: MutationKind, input: String) {
        let mutator = Mutator()
        var rng = FuzzRandom(seed: 3)
        var changed = 0
        for _ in 0..<50 {
            var bytes = Array(input.utf8)
            #expect(mutator.apply(kind, to: &bytes, other: [], rng: &rng))
            if bytes != Array(input.utf8) { changed += 1 }
        }
        // Every application changed the input (and applies only where its field is).
        #expect(changed == 50)
        var binary: [UInt8] = [0x46, 0x00, 0x01, 0x7F]
        #expect(!mutator.apply(kind, to: &binary, other: [], rng: &rng))
    }

    @Test("a length field in the layout is set to edge values")
    func binaryLength() {
        let mutator = Mutator(layout: [BinaryField(offset: 1, width: 2, role: .length)])
        var rng = FuzzRandom(seed: 1)
        var seen = Set<Int>()
        for _ in 0..<200 {
            var bytes: [UInt8] = [0x46, 0x00, 0x04, 1, 2, 3, 4]
            _ = mutator.apply(.lengthField, to: &bytes, other: [], rng: &rng)
            #expect(bytes[0] == 0x46 && bytes[3...] == [1, 2, 3, 4])
            seen.insert(Int(bytes[1]) << 8 | Int(bytes[2]))
        }
        #expect(seen.contains(0) && seen.contains(0xFFFF) && seen.contains(5) && seen.contains(3))
    }

    @Test("the schedule draws kinds that find more often")
    func adaptive() {
        var schedule = MutationSchedule()
        for _ in 0..<2000 {
            schedule.credit([.uuidText], found: true)
            schedule.credit([.bitFlip], found: false)
        }
        schedule.recompute()
        var rng = FuzzRandom(seed: 5)
        var counts: [MutationKind: Int] = [:]
        for _ in 0..<10_000 { counts[schedule.draw(&rng), default: 0] += 1 }
        #expect(counts[.uuidText, default: 0] > 5000)
        #expect(counts[.bitFlip, default: 0] > 0)
    }

    @Test("ddmin finds the two bytes that matter")
    func minimiser() {
        let input = Array(0..<UInt8(200))
        var minimiser = Minimiser<UInt8>(budget: 2000)
        let result = minimiser.minimise(input) { $0.contains(17) && $0.contains(150) }
        #expect(result == [17, 150])
    }

    @Test("the corpus store names inputs by SHA-256 and writes whole files")
    func corpusStore() throws {
        let dir = Paths.temporaryDirectory()
        let store = try CorpusStore(directory: dir + "/relay.packet")
        let name = try store.add(Array("abc".utf8))
        #expect(name == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try store.add(Array("abc".utf8)) == name)
        try store.add([])
        #expect(store.names().count == 2)
        #expect(store.read(name) == Array("abc".utf8))
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory).allSatisfy { !$0.hasPrefix(".") })
    }

    @Test("the engine grows a corpus of distinct behaviours from a seed")
    func engineGrows() {
        let target = FuzzRegistry.target("relay.packet")!
        var engine = FuzzEngine(target: target, seed: 1)
        engine.admit([Array("F\u{0}\u{2}{}".utf8)])
        engine.fuzz(20_000, events: FuzzEngine.Events())
        #expect(engine.executions == 20_001)
        #expect(engine.features.count > 20)
        // Each input kept showed at least one new feature (one input may show several: a
        // field-value mutant that decodes adds a feature per new node of its value).
        #expect(engine.corpus.count > 20 && engine.corpus.count <= engine.features.count)
    }

    /// planted.checksum-seek without the trap: 'K', 1, u8 length, payload, FNV-1a of the payload
    /// (LE). Behind the hash, command 2 with an offset past the payload is the "past" outcome.
    /// The decoder logs its hash comparison by hand, as a trace-cmp build's hook does.
    static let checksummed = FuzzTarget(id: "test.checksummed", summary: "hash-guarded seek", decode: { bytes throws(WireError) in
        let bad = WireError(.valueOutOfRange, "bad frame")
        guard bytes.count >= 5, bytes[0] == UInt8(ascii: "K"), bytes[1] == 1 else { throw bad }
        let length = Int(bytes[2])
        guard length >= 2, bytes.count == 3 + length + 4 else { throw bad }
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes[3..<(3 + length)] { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let stored = bytes[(3 + length)...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        ComparisonLog.record(UInt64(hash), UInt64(stored), width: 4)
        guard hash == stored, bytes[3] == 2 else { throw bad }
        return .object([(5 + Int(bytes[4]) >= 3 + length ? "past" : "seek", .integer(0))])
    }, encode: nil)

    @Test("comparison feedback: input-to-state replacement passes a hash check that blind mutation does not")
    func comparisonFeedback() {
        let seed: [UInt8] = [0x4B, 0x01, 0x04, 0x02, 0x00, 0x41, 0x42, 0x28, 0x2B, 0x8A, 0x04]
        func pastFound(comparisons: Bool) -> (Bool, FuzzEngine) {
            var engine = FuzzEngine(target: Self.checksummed, seed: 3, comparisonFeedback: comparisons)
            engine.admit([seed])
            engine.fuzz(30_000, events: FuzzEngine.Events())
            let found = engine.corpus.contains {
                if case .decoded(let value) = engine.execute($0).outcome { return "\(value)".contains("past") }
                return false
            }
            return (found, engine)
        }
        // The seed itself passes the check and seeks inside its payload.
        #expect(String(describing: FuzzEngine(target: Self.checksummed, seed: 0).execute(seed).outcome).contains("seek"))
        let (with, engine) = pastFound(comparisons: true)
        #expect(with, "30,000 executions with comparison feedback did not pass the hash with an offset past the payload")
        #expect(engine.comparisonInputs > 0 && engine.keptFromComparisons > 0)
        let (without, blind) = pastFound(comparisons: false)
        #expect(!without, "blind mutation passed a 32-bit hash: the test no longer shows what comparisons add")
        #expect(blind.comparisonInputs == 0)
    }

    @Test("input-to-state candidates replace an operand where it stands, in its byte order")
    func inputToStateCandidates() {
        var rng = FuzzRandom(seed: 1)
        let input: [UInt8] = [0xAA, 0x78, 0x56, 0x34, 0x12, 0x00, 0x12, 0x34]
        let pairs = [ComparisonLog.Pair(a: 0x1234_5678, b: 0xCAFE_F00D, width: 4), ComparisonLog.Pair(a: 0x1234, b: 0xBEEF, width: 2)]
        let candidates = InputToState.candidates(input, pairs: pairs, limit: 10, rng: &rng)
        #expect(candidates.contains([0xAA, 0x0D, 0xF0, 0xFE, 0xCA, 0x00, 0x12, 0x34]))   // the 4-byte value, little-endian
        #expect(candidates.contains([0xAA, 0x78, 0x56, 0x34, 0x12, 0x00, 0xBE, 0xEF]))   // the 2-byte value, big-endian
        #expect(candidates.contains([0xAA, 0x78, 0x56, 0xEF, 0xBE, 0x00, 0x12, 0x34]))   // and little-endian
        #expect(candidates.count == 3)
        #expect(InputToState.candidates(input, pairs: pairs, limit: 1, rng: &rng).count == 1)
        #expect(InputToState.candidates([1, 2, 3], pairs: pairs, limit: 10, rng: &rng).isEmpty)
    }

    @Test("stack signatures keep the trap and the program's frames, not addresses or runtime frames")
    func stackSignature() {
        let stderr = """
            Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range

            *** Program crashed: Illegal instruction at 0x00007f7a9616df7f ***
            Thread 0 "c" crashed:

              0      0x00007f7a9616df7f closure #1 in _assertionFailure(_:_:file:line:flags:) + 623 in libswiftCore.so
              2 [ra] 0x00007f7a9679df65 specialized Array.subscript.getter + 84 in libswiftSwiftOnoneSupport.so
              3 [ra] 0x000055f2d25aefb0 deep(_:_:) + 47 in c at /tmp/c.swift:1:58
              4 [ra] 0x000055f2d25aef35 mid(_:) + 68 in c at /tmp/c.swift:2:46
            """
        let s = StackSignature.parse(kind: .crash, stderr: stderr, signal: 4)
        #expect(s.message == "Index out of range")
        #expect(s.frames == ["deep(_:_:)", "mid(_:)"])
    }
}
