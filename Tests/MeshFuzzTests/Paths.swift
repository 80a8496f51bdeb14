import Foundation

/// The repository and the build products, found from this file and the test binary so tests
/// run from any directory.
enum Paths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let corpus = root.appendingPathComponent("Corpus").path

    /// A product of this build (planted-bugs, meshconform): next to the test bundle.
    static func product(_ name: String) -> String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/\(name)").path
    }

    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "meshfuzz-test-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
