import Foundation
import MeshVectors

/// The repository's Vectors/ folder, found from this file so tests run from any directory.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let vectors = root.appendingPathComponent("Vectors").path

    static let files: [VectorFile] = {
        do { return try VectorFile.loadAll(in: vectors) } catch { fatalError("cannot load \(vectors): \(error)") }
    }()

    static var allVectors: [Vector] { files.flatMap(\.tests) }
}

/// A tiny seeded generator so every randomised test is reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
