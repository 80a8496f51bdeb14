import ArgumentParser
import MeshWire

struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode bytes of a wire format and print its neutral JSON form.",
        discussion: """
            Prints the decoded JSON and exits 0, or prints the stable error code (see docs/vectors.md) \
            and exits 1. Example: meshconform decode relay.packet 610008000000000000002a
            """)

    @Argument(help: "Format id, e.g. relay.packet (see `meshconform decode --help` for the list).")
    var format: String

    @Argument(help: "The bytes in hex, or - to read hex from standard input.")
    var hex: String

    @Option(help: "JSON with inputs the format needs besides the bytes (keys for relay.sealed).")
    var context: String?

    func run() throws {
        let codec = try codec(named: format)
        guard let bytes = Hex.decode(operand(hex)) else {
            throw UsageError("the bytes must be hex (pairs of 0-9a-f; spaces allowed)")
        }
        let context = try parseContext(context)
        do throws(WireError) {
            print(JSONWriter.string(try codec.decode(bytes, context), options: .human))
        } catch {
            print(error.code.rawValue)
            printError(error.detail)
            throw ExitCode(1)
        }
    }
}

func printError(_ text: String) {
    var stderr = StandardError()
    print(text, to: &stderr)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandleOutput.stderr(string)
    }
}
