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
            return "our decoder accepted JSON that Foundation refuses (\(error.localizedDescription))"
        }
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
