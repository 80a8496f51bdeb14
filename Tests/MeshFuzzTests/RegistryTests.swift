import Foundation
import MeshFuzz
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
}
