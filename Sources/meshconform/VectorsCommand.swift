import ArgumentParser
import Foundation
import MeshVectors
import MeshWire

struct VectorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vectors",
        abstract: "Check a decoder against the golden vectors.",
        discussion: """
            Without --exec, checks meshconform's own codecs (decode, canonical re-encoding, round trip). \
            With --exec CMD, checks another implementation speaking the JSON Lines protocol of docs/vectors.md.
            """)

    @Option(help: "Folder of vector files.")
    var dir = "Vectors"

    @Option(help: "Check only this format id.")
    var format: String?

    @Option(help: "Check only this dialect's formats (relay, blemesh, bitchat, simple, ...).")
    var dialect: String?

    @Option(help: "Command of an external decoder (run with /bin/sh -c).")
    var exec: String?

    @Flag(help: "With --exec: check accept / refuse only, not the error code.")
    var ignoreErrorCodes = false

    @Flag(name: .shortAndLong, help: "Print every vector, not only failures.")
    var verbose = false

    func run() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("no vector folder at \(dir); run from the meshconform checkout or pass --dir PATH/Vectors")
        }
        var files: [VectorFile]
        do { files = try VectorFile.loadAll(in: dir) } catch { throw UsageError(error.description) }
        if let format {
            files = files.filter { $0.format == format }
            guard !files.isEmpty else {
                throw UsageError("no vector file for format \"\(format)\" in \(dir); formats: \(try VectorFile.loadAll(in: dir).map(\.format).joined(separator: ", "))")
            }
        }
        if let dialect {
            let name = try parseDialect(dialect).rawValue
            files = files.filter { $0.dialect == name }
            guard !files.isEmpty else {
                throw UsageError("no vector file for dialect \"\(name)\"\(format.map { " and format \"\($0)\"" } ?? "") in \(dir)")
            }
        }
        var builtin = BuiltinDecoder()
        let external = exec.map { ExternalDecoder(command: $0) }
        let judge = VectorCheck(ignoreErrorCodes: ignoreErrorCodes)
        var passed = 0, failed = 0, skipped = 0
        for file in files {
            var filePassed = 0, fileFailed = 0, fileSkipped = 0
            for vector in file.tests {
                let outcome = external.map { judge.judge(vector, $0.answer(vector)) } ?? builtin.check(vector)
                switch outcome {
                case .passed:
                    filePassed += 1
                    if verbose { print("  ok    \(vector)") }
                case .skipped(let why):
                    fileSkipped += 1
                    if verbose { print("  skip  \(vector): \(why)") }
                case .failed(let why):
                    fileFailed += 1
                    print("  FAIL  \(vector)\n        \(why.replacingOccurrences(of: "\n", with: "\n        "))")
                }
            }
            let skippedNote = fileSkipped > 0 ? ", \(fileSkipped) skipped" : ""
            print("\(file.format.padding(toLength: 22, withPad: " ", startingAt: 0)) \(filePassed) passed, \(fileFailed) failed\(skippedNote)")
            passed += filePassed
            failed += fileFailed
            skipped += fileSkipped
        }
        print("vectors: \(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : ""))
        if failed > 0 { throw ExitCode(1) }
    }
}
