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
