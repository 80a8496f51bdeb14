import ArgumentParser
import Foundation
import MeshFuzz

@main
struct MeshConform: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meshconform",
        abstract: "Conformance suite and protocol fuzzer for BLE mesh messaging apps.",
        subcommands: [RunCommand.self, ListCommand.self, VectorsCommand.self, DecodeCommand.self, EncodeCommand.self, SimCommand.self,
                      FuzzCommand.self, NodeCommand.self, StdioDUTCommand.self, AdaptersCommand.self],
        defaultSubcommand: RunCommand.self)

    /// Exit status contract (DESIGN.md section 5): 0 all passed, 1 a check failed,
    /// 2 usage or environment error, with a message that says how to fix it.
    static func main() {
        // The supervised worker of `fuzz` (internal, not part of the CLI contract).
        if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "fuzz-worker" {
            FuzzWorker.main(arguments: Array(CommandLine.arguments.dropFirst(2)), targets: FuzzRegistry.all)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("meshconform: \(error.message)\n".utf8))
            Foundation.exit(2)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            if code == .failure, (error as? ExitCode) != nil {
                Foundation.exit(1)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }
}

/// Bad use of the tool: exit 2 with a message that says how to fix it.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
