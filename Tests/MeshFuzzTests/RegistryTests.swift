import BLEHost
import Foundation
import MeshFuzz
import MeshVectors
import MeshWire
import Testing

@Suite("fuzz registry, libFuzzer targets and regressions")
struct RegistryTests {
    @Test("every catalog format is a fuzz target")
    func catalogCovered() {
        #expect(Set(FormatCatalog.ids).isSubset(of: Set(FuzzRegistry.ids)))
    }

    @Test("Sources/FuzzTargets has one generated executable per registry target (ci/gen-fuzz-targets)")
    func targetsInSync() throws {
        let dir = Paths.root.appendingPathComponent("Sources/FuzzTargets").path
        let folders = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("fuzz-") }
        #expect(Set(folders) == Set(FuzzRegistry.ids.map { "fuzz-" + $0.replacingOccurrences(of: ".", with: "-") }))
        for id in FuzzRegistry.ids {
            let main = try String(contentsOfFile: "\(dir)/fuzz-\(id.replacingOccurrences(of: ".", with: "-"))/main.swift", encoding: .utf8)
            #expect(main.contains("FuzzEntry.testOneInput(format: \"\(id)\""))
        }
    }

    /// Every input that ever broke a decoder, replayed through its oracles (a trap here
    /// crashes the test run: that is the failure).
    @Test("Corpus/regressions replays clean")
    func regressions() throws {
        let root = Paths.corpus + "/regressions"
        let formats = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        var replayed = 0
        for format in formats where !format.hasSuffix(".md") {
            let target = try #require(FuzzRegistry.target(format), "Corpus/regressions/\(format) names no fuzz target")
            let engine = FuzzEngine(target: target, seed: 0)
            for (name, bytes) in try CorpusStore(directory: "\(root)/\(format)").loadAll() {
                let (_, failure) = engine.execute(bytes)
                #expect(failure == nil, "\(format)/\(name): \(failure.map { "\($0.kind.rawValue): \($0.detail)" } ?? "")")
                replayed += 1
            }
        }
        #expect(replayed >= 1)
    }

    @Test("the seed corpus replays clean through every oracle")
    func seedCorpus() throws {
        for target in FuzzRegistry.all {
            let engine = FuzzEngine(target: target, seed: 0)
            for (name, bytes) in try CorpusStore(directory: "\(Paths.corpus)/\(target.id)").loadAll() {
                let (_, failure) = engine.execute(bytes)
                #expect(failure == nil, "\(target.id)/\(name): \(failure?.detail ?? "")")
            }
        }
    }

    @Test("every BLE host parser is a fuzz target; an accepted input's value is the host's own re-encoding", arguments: HostParsers.all.map(\.id))
    func hostParserTarget(_ id: String) throws {
        let target = try #require(FuzzRegistry.target(id))
        let parser = try #require(HostParsers.parser(id: id))
        let engine = FuzzEngine(target: target, seed: 0)
        // Corpus/<id> holds the host tests' inputs (all accepted) and libFuzzer's finds (some refused).
        var accepted = 0
        for (name, bytes) in try CorpusStore(directory: "\(Paths.corpus)/\(id)").loadAll() {
            let (outcome, failure) = engine.execute(bytes)
            #expect(failure == nil, "\(id)/\(name)")
            guard case .decoded(let value) = outcome else { continue }
            #expect(value == .object([("canonical", .string(Hex.encode(try #require(parser.roundTrip(bytes)))))]))
            accepted += 1
        }
        #expect(accepted >= 2, "Corpus/\(id) is seeded from the host's test data")
    }

    /// Host refusals arrive under the registry's codes, but the host's code leads the detail:
    /// a finding names it, and the engine's feedback (which hashes the detail) tells them apart.
    @Test("a host refusal keeps the host's own code", arguments: HostRefusal.cases)
    func hostRefusal(_ c: HostRefusal) throws {
        let target = try #require(FuzzRegistry.target(c.parser))
        let input = try #require(Hex.decode(c.hex))
        guard case .refused(let error) = FuzzEngine(target: target, seed: 0).execute(input).outcome else {
            Issue.record("\(c.parser) accepted \(c.hex)"); return
        }
        #expect(error.code == c.code)
        #expect(error.detail.hasPrefix("host \(c.hostCode.rawValue): "), "\(error)")
    }

    @Test("two host codes behind one registry code are two behaviours")
    func hostCodesAreDistinctFeatures() throws {
        let target = try #require(FuzzRegistry.target("hci.acl"))
        let engine = FuzzEngine(target: target, seed: 0)
        let cases = HostRefusal.cases.filter { $0.parser == "hci.acl" && $0.code == .valueOutOfRange }
        #expect(cases.count == 2)
        let features = Set(try cases.map { engine.execute(try #require(Hex.decode($0.hex))).outcome.feature })
        #expect(features.count == 2)
    }

    @Test("peat.encrypted and peat.peer-e2ee open every valid vector that has a plaintext", arguments: ["peat.encrypted", "peat.peer-e2ee"])
    func peatKeyContext(_ id: String) throws {
        let target = try #require(FuzzRegistry.target(id))
        let file = try VectorFile(contentsOf: Paths.root.appendingPathComponent("Vectors/\(id).json").path)
        var opened = 0
        for vector in file.tests where vector.result == .valid {
            guard let decoded = vector.decoded, case .object(let expected) = decoded, expected["plaintext"] != nil else { continue }
            #expect(try target.decode(vector.bytes).isEquivalent(to: decoded), "\(vector)")
            opened += 1
        }
        #expect(opened >= 4)
    }
}

/// A host input refused for a known reason, and the registry code it maps to.
struct HostRefusal: Sendable, CustomTestStringConvertible {
    var parser: String
    var hex: String
    var hostCode: HostWireError.Code
    var code: WireError.Code
    var testDescription: String { "\(parser) \(hostCode.rawValue)" }

    static let cases: [HostRefusal] = [
        HostRefusal(parser: "h4.packet", hex: "09 00", hostCode: .unknownPacketType, code: .unknownType),
        HostRefusal(parser: "hci.event", hex: "0e", hostCode: .truncated, code: .truncated),
        HostRefusal(parser: "hci.acl", hex: "ff 1f 00 00", hostCode: .badHandle, code: .valueOutOfRange),
        HostRefusal(parser: "hci.acl", hex: "01 c0 00 00", hostCode: .reservedBits, code: .valueOutOfRange),
        HostRefusal(parser: "l2cap.frame", hex: "01 00 04 00 0a 0b", hostCode: .lengthMismatch, code: .lengthMismatch),
    ]
}
