import Foundation
import MeshWire

/// Reads a command-line operand, or standard input when it is `-`.
func operand(_ text: String) -> String {
    guard text == "-" else { return text }
    return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
}

func codec(named id: String) throws(UsageError) -> FormatCodec {
    guard let codec = FormatCatalog.codec(id) else {
        throw UsageError("unknown format \"\(id)\". Known formats:\n  " + FormatCatalog.ids.joined(separator: "\n  "))
    }
    return codec
}

func parseContext(_ text: String?) throws(UsageError) -> JSONValue? {
    guard let text else { return nil }
    do { return try JSONParser.parse(text) } catch { throw UsageError("--context is not JSON (\(error)); example: --context '{\"privateKey\":\"<hex>\",\"peerPublicKey\":\"<hex>\"}'") }
}
