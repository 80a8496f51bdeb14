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
