/// Every parser BLEHost runs on bytes from an untrusted controller or peer, by format id
/// (DESIGN.md section 2): the fuzz smoke in `swift test`, `meshconform fuzz` and the libFuzzer
/// targets iterate over this list.
public struct HostParser: Sendable {
    public let id: String
    /// Decodes; throws `HostWireError` on refusal.
    public let decode: @Sendable ([UInt8]) throws(HostWireError) -> Void
    /// Decodes and re-encodes; nil when the input is refused. The round-trip oracle is
    /// `roundTrip(roundTrip(x)!) == roundTrip(x)` for every accepted x.
    public let roundTrip: @Sendable ([UInt8]) -> [UInt8]?
    /// Decodes and re-encodes in one pass, throwing the refusal: what a fuzzer needs (the
    /// error for its feedback, the re-encoding for its round-trip oracle) at the cost of one decode.
    public let reencode: @Sendable ([UInt8]) throws(HostWireError) -> [UInt8]
}

public enum HostParsers {
    public static let all: [HostParser] = [
        parser("hci.event") { b throws(HostWireError) in try HCIEvent(decoding: b).encoded() },
        parser("hci.acl") { b throws(HostWireError) in try HCIACLPacket(decoding: b).encoded() },
        parser("l2cap.frame") { b throws(HostWireError) in try L2CAPFrame(decoding: b).encoded() },
        parser("att.pdu") { b throws(HostWireError) in try ATTPDU(decoding: b).encoded() },
        parser("adv.data") { b throws(HostWireError) in try AdvertisingData(decoding: b).encoded() },
        // Beyond the five named in DESIGN.md: the other decoders that read untrusted bytes.
        parser("hci.command") { b throws(HostWireError) in try HCICommand(decoding: b).encoded() },
        parser("h4.packet") { b throws(HostWireError) in try H4Packet(decoding: b).encoded() },
        parser("l2cap.le-signal") { b throws(HostWireError) in try LESignal(decoding: b).encoded() },
    ]

    public static func parser(id: String) -> HostParser? { all.first { $0.id == id } }

    private static func parser(_ id: String, _ f: @escaping @Sendable ([UInt8]) throws(HostWireError) -> [UInt8]) -> HostParser {
        HostParser(id: id, decode: { b throws(HostWireError) in _ = try f(b) }, roundTrip: { b in try? f(b) }, reencode: f)
    }
}
