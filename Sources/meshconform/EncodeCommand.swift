import ArgumentParser
import Foundation
import MeshWire

struct EncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Encode the neutral JSON form of a wire format and print the bytes in hex.",
        discussion: "The JSON is what `meshconform decode` prints. Example: meshconform encode relay.ack '{\"seq\":\"42\"}'")

    @Argument(help: "Format id, e.g. relay.packet.")
    var format: String

    @Argument(help: "The neutral JSON, or - to read it from standard input.")
    var json: String

    @Option(help: "JSON with inputs the format needs besides the value (keys for relay.sealed).")
    var context: String?

    func run() throws {
        let codec = try codec(named: format)
        let value: JSONValue
        do { value = try JSONParser.parse(operand(json)) } catch { throw UsageError("the value is not JSON: \(error)") }
        let context = try parseContext(context)
        do throws(WireError) {
            print(Hex.encode(try codec.encode(value, context)))
        } catch {
            print(error.code.rawValue)
            printError(error.detail)
            throw ExitCode(1)
        }
    }
}

enum FileHandleOutput {
    static func stderr(_ s: String) { FileHandle.standardError.write(Data(s.utf8)) }
}
