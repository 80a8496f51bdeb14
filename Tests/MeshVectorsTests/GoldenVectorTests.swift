import MeshVectors
import MeshWire
import Testing

@Suite("golden vectors")
struct GoldenVectorTests {
    @Test("built-in codecs agree with the vector", arguments: Repository.allVectors)
    func vector(_ vector: Vector) {
        var decoder = BuiltinDecoder()
        if case .failed(let why) = decoder.check(vector) { Issue.record("\(vector): \(why)") }
    }

    @Test("every format has a vector file with enough cases", arguments: FormatCatalog.ids)
    func coverage(_ format: FormatID) throws {
        let file = try #require(Repository.files.first { $0.format == format }, "no Vectors/\(format).json")
        #expect(file.tests.count >= 12)
        #expect(file.tests.filter { $0.result == .invalid }.count >= 5)
        #expect(file.tests.contains { $0.result == .valid && $0.canonical })
        #expect(Set(file.tests.map(\.tcId)).count == file.tests.count, "tcIds repeat")
        #expect(!file.source.isEmpty)
        for flag in Set(file.tests.flatMap(\.flags)) { #expect(file.notes[flag] != nil, "flag \(flag) not explained in notes") }
    }

    @Test func everyVectorFileNamesAKnownFormat() {
        for file in Repository.files { #expect(FormatCatalog.codec(file.format) != nil, "\(file.path)") }
    }
}
