import Foundation
import MeshWire

/// Second decoders for the differential oracle.
enum Differentials {
    /// The apps parse with Foundation: JSON that our strict parser accepts must be JSON to
    /// Foundation too, or a DUT built on it would refuse what meshconform calls valid.
    static let foundationJSON: FuzzTarget.Differential = { input, _ in
        guard input.first == UInt8(ascii: "{") || input.first == UInt8(ascii: "[") else { return nil }
        do {
            _ = try JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])
            return nil
        } catch {
            // Known and left to the dialect owners (docs/fuzzing.md): the vectors treat a number
            // beyond Double's range as JSON (`valueOutOfRange` in a known field), Foundation
            // refuses the whole message. Any other disagreement is a finding.
            if hasNumberBeyondDouble(input) { return nil }
            return "our decoder accepted JSON that Foundation refuses (\(error.localizedDescription))"
        }
    }

    static func hasNumberBeyondDouble(_ input: [UInt8]) -> Bool {
        var i = 0
        while i < input.count {
            guard input[i] == UInt8(ascii: "-") || (0x30...0x39).contains(input[i]) else { i += 1; continue }
            var j = i + 1
            while j < input.count, (0x30...0x39).contains(input[j]) || [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-")].contains(input[j]) { j += 1 }
            if let d = Double(String(decoding: input[i..<j], as: UTF8.self)), d.isInfinite { return true }
            i = j
        }
        return false
    }

    /// A relay packet's header, decoded on its own by the header's format, must read as the
    /// packet decoder read it: the framing must not change what the header means.
    static let relayEmbeddedHeader: FuzzTarget.Differential = { input, value in
        guard input.count >= 3, case .object(let packet) = value, case .string(let type)? = packet["type"], let header = packet["header"] else {
            return "decoded packet without type and header"
        }
        let length = Int(input[1]) << 8 | Int(input[2])
        let id: FormatID = switch type { case "frame": "relay.frame-header"; case "beacon": "relay.beacon"; default: "relay.ack" }
        guard let codec = FormatCatalog.codec(id), 3 + length <= input.count else { return "header outside the packet" }
        do {
            let alone = try codec.decode(Array(input[3..<(3 + length)]), nil)
            return alone.isEquivalent(to: header) ? nil : "\(id) alone decodes the header differently"
        } catch {
            return "\(id) alone refuses the header the packet decoder accepted: \(error)"
        }
    }
}
