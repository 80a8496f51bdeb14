import Crypto
import Foundation
import MeshVectors
import MeshWire

// Decode throughput of every format: meshconform's decoder and, side by side in the same
// run, the baseline the apps use (Foundation's JSONDecoder on their Codable types; for the
// binary parts, the apps' own byte handling; for the sealed body, swift-crypto alone).
//
//   swift run -c release --package-path Benchmarks DecodeThroughput [--seconds S] [--vectors DIR]

struct Case {
    var format: FormatID
    var ours: ([UInt8]) -> Bool
    var baseline: ([UInt8]) -> Bool
    var baselineName: String
}

let arguments = CommandLine.arguments
func option(_ name: String) -> String? { arguments.firstIndex(of: name).map { arguments[$0 + 1] } }
let seconds = Double(option("--seconds") ?? "0.5")!
let vectorDir = option("--vectors") ?? "Vectors"

let plain = JSONDecoder()
let iso = JSONDecoder()
iso.dateDecodingStrategy = .iso8601

func foundation<T: Decodable>(_ type: T.Type, _ decoder: JSONDecoder = plain) -> ([UInt8]) -> Bool {
    { (try? decoder.decode(T.self, from: Data($0))) != nil }
}

func ours<T: WireFormat>(_ type: T.Type) -> ([UInt8]) -> Bool {
    { (try? T(decoding: $0[...])) != nil }
}

/// SwiftMeshRelay's receive path: type byte, u16 BE length, header JSON.
func appPacket(_ bytes: [UInt8]) -> Bool {
    guard bytes.count > 3 else { return false }
    let length = Int(bytes[1]) << 8 | Int(bytes[2])
    guard bytes.count >= 3 + length else { return false }
    let header = Data(bytes[3..<3 + length])
    switch bytes[0] {
    case 0x46: return (try? plain.decode(AppFrameHeader.self, from: header)) != nil
    case 0x42: return (try? plain.decode(AppBeacon.self, from: header)) != nil
    case 0x61: return length == 8
    default: return false
    }
}

/// bitchat's `decodeCore`: the same offset walk (v1/v2 length, ids, v2 route, original size,
/// payload, signature; trailing bytes ignored), inflating through the same zlib.
func appBitchatPacket(_ b: [UInt8]) -> Bool {
    guard b.count >= 22, b[0] == 1 || b[0] == 2 else { return false }
    let v2 = b[0] == 2
    let flags = b[11]
    var o = 12
    var length = 0
    for _ in 0..<(v2 ? 4 : 2) { length = length << 8 | Int(b[o]); o += 1 }
    o += 8
    if flags & 0x01 != 0 { o += 8 }
    if v2, flags & 0x08 != 0 {
        guard o < b.count else { return false }
        o += 1 + 8 * Int(b[o])
    }
    guard o + length <= b.count else { return false }
    if flags & 0x04 != 0 {
        let w = v2 ? 4 : 2
        guard length > w else { return false }
        var original = 0
        for i in 0..<w { original = original << 8 | Int(b[o + i]) }
        guard (try? BitchatCompression.inflate(b[(o + w)..<(o + length)], originalSize: original)) != nil else { return false }
    }
    o += length
    if flags & 0x02 != 0 { o += 64 }
    return o <= b.count
}

/// The app's fragment handling: 13 header bytes, index < total <= 10 000.
func appBitchatFragment(_ b: [UInt8]) -> Bool {
    guard b.count >= 13 else { return false }
    let index = Int(b[8]) << 8 | Int(b[9]), total = Int(b[10]) << 8 | Int(b[11])
    return total > 0 && total <= 10_000 && index < total
}

let sealedKey: SessionKey? = {
    guard let file = try? VectorFile(contentsOf: "\(vectorDir)/relay.sealed.json"),
          let context = file.tests.first(where: { $0.context != nil && $0.result == .valid })?.context,
          case .object(let o) = context, case .string(let priv)? = o["privateKey"], case .string(let pub)? = o["peerPublicKey"]
    else { return nil }
    return try? SessionKey(privateKey: Hex.decode(priv)!, peerPublicKey: Hex.decode(pub)!)
}()

let cases: [Case] = [
    Case(format: "relay.packet", ours: ours(RelayPacket.self), baseline: appPacket, baselineName: "app parse + JSONDecoder"),
    Case(format: "relay.frame-header", ours: ours(FrameHeader.self), baseline: foundation(AppFrameHeader.self), baselineName: "JSONDecoder"),
    Case(format: "relay.beacon", ours: ours(Beacon.self), baseline: foundation(AppBeacon.self), baselineName: "JSONDecoder"),
    Case(format: "relay.ack", ours: ours(RelayAck.self),
         baseline: { $0.count == 8 && $0.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } != 1 }, baselineName: "app length check + load"),
    Case(format: "relay.sealed",
         ours: { bytes in sealedKey.map { (try? SealedBody(decoding: bytes[...]).open(key: $0)) != nil } ?? false },
         baseline: { bytes in
             guard let key = sealedKey, let box = try? ChaChaPoly.SealedBox(combined: bytes) else { return false }
             return (try? ChaChaPoly.open(box, using: SymmetricKey(data: key.bytes))) != nil
         }, baselineName: "swift-crypto open"),
    Case(format: "blemesh.chunk", ours: ours(MessageChunk.self), baseline: foundation(AppMessageChunk.self), baselineName: "JSONDecoder"),
    Case(format: "blemesh.envelope", ours: ours(MessageEnvelope.self), baseline: foundation(AppMessageEnvelope.self, iso), baselineName: "JSONDecoder (.iso8601)"),
    Case(format: "blemesh.control", ours: ours(ControlMessage.self),
         baseline: { (try? AppControlMessage.decodeFully(Data($0), plain)) != nil }, baselineName: "JSONDecoder x2"),
    Case(format: "blemesh.rreq", ours: ours(RouteRequest.self), baseline: foundation(AppRouteRequest.self), baselineName: "JSONDecoder"),
    Case(format: "blemesh.rrep", ours: ours(RouteReply.self), baseline: foundation(AppRouteReply.self), baselineName: "JSONDecoder"),
    Case(format: "blemesh.rerr", ours: ours(RouteError.self), baseline: foundation(AppRouteError.self), baselineName: "JSONDecoder"),
    Case(format: "blemesh.announce", ours: ours(PeerAnnounce.self), baseline: foundation(AppPeerAnnounce.self), baselineName: "JSONDecoder"),
    Case(format: "blemesh.ack", ours: ours(DeliveryAck.self), baseline: foundation(AppDeliveryAck.self), baselineName: "JSONDecoder"),
    Case(format: "blemesh.read", ours: ours(ReadReceipt.self), baseline: foundation(AppReadReceipt.self), baselineName: "JSONDecoder"),
    // peat-btle is Rust: its decoders cannot run here. The baseline is what they check before
    // they read fields (minimum lengths and length fields, no value checks), written out.
    Case(format: "peat.document", ours: ours(PeatDocument.self), baseline: { b in
        b.count >= 12 && { n in n <= 256 && b.count >= 12 + n * 12 }(Int(b[8]) | Int(b[9]) << 8 | Int(b[10]) << 16 | Int(b[11]) << 24)
    }, baselineName: "peat-btle length checks"),
    Case(format: "peat.peripheral", ours: ours(PeatPeripheral.self), baseline: { $0.count >= 34 }, baselineName: "peat-btle length checks"),
    Case(format: "peat.emergency", ours: ours(PeatEmergency.self), baseline: { b in
        b.count >= 16 && { n in n <= 256 && b.count >= 16 + n * 5 }(Int(b[12]) | Int(b[13]) << 8 | Int(b[14]) << 16 | Int(b[15]) << 24)
    }, baselineName: "peat-btle length checks"),
    Case(format: "peat.relay-envelope", ours: ours(PeatRelayEnvelope.self), baseline: { b in
        b.count >= 28 && b[0] == 0xB1 && b.count - 28 >= Int(b[24]) | Int(b[25]) << 8 | Int(b[26]) << 16 | Int(b[27]) << 24
    }, baselineName: "peat-btle length checks"),
    Case(format: "peat.encrypted", ours: ours(PeatEncrypted.self), baseline: { $0.count >= 30 && $0[0] == 0xAE }, baselineName: "peat-btle length checks (no key)"),
    Case(format: "peat.key-exchange", ours: ours(PeatKeyExchange.self), baseline: { $0.count >= 38 && $0[0] == 0xB0 }, baselineName: "peat-btle length checks"),
    Case(format: "peat.peer-e2ee", ours: ours(PeatPeerE2EE.self), baseline: { $0.count >= 46 && $0[0] == 0xAF }, baselineName: "peat-btle length checks (no key)"),
    Case(format: "peat.device-name", ours: ours(PeatDeviceName.self), baseline: { b in
        guard let name = String(bytes: b, encoding: .utf8), name.hasPrefix("PEAT_") else { return false }
        return name.dropFirst(5).split(separator: "-").count >= 1
    }, baselineName: "app prefix + split"),
    Case(format: "camp.message", ours: ours(CampMessage.self), baseline: foundation(AppCampBLEMessage.self), baselineName: "JSONDecoder"),
    Case(format: "camp.protocol", ours: ours(CampProtocolMessage.self), baseline: foundation(AppCampProtocolMessage.self), baselineName: "JSONDecoder"),
    Case(format: "camp.delivery-confirmation", ours: ours(CampDeliveryConfirmation.self), baseline: foundation(AppCampBLEMessage.self), baselineName: "JSONDecoder"),
    Case(format: "bitchat.packet", ours: ours(BitchatPacket.self), baseline: appBitchatPacket, baselineName: "app layout walk + inflate"),
    Case(format: "bitchat.fragment", ours: ours(BitchatFragment.self), baseline: appBitchatFragment, baselineName: "app header read"),
    Case(format: "simple.message", ours: ours(SimpleMessage.self), baseline: foundation(AppSimpleMessage.self), baselineName: "JSONDecoder"),
]

/// Decodes per second over `inputs`, best of three rounds of `seconds / 3`.
func rate(_ decode: ([UInt8]) -> Bool, _ inputs: [[UInt8]]) -> Double {
    var best = 0.0
    for _ in 0..<3 {
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        var accepted = 0
        while clock.now - start < .milliseconds(Int(seconds * 1000 / 3)) {
            for input in inputs where decode(input) { accepted += 1 }
            count += inputs.count
        }
        let elapsed = clock.now - start
        let s = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        precondition(accepted > 0, "no input decoded: benchmark would measure nothing")
        best = max(best, Double(count) / s)
    }
    return best
}

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }

print("| format | valid inputs | mean bytes | meshconform decodes/s | baseline | baseline decodes/s | ratio |")
print("|---|---:|---:|---:|---|---:|---:|")
for c in cases {
    guard let file = try? VectorFile(contentsOf: "\(vectorDir)/\(c.format).json") else {
        print("| \(c.format) | no vector file in \(vectorDir) |")
        continue
    }
    // Valid inputs only, both decoders must accept every one (the sealed ones need the key).
    let inputs = file.tests.filter { $0.result == .valid && (c.format != "relay.sealed" || $0.context != nil) }
        .map(\.bytes).filter { c.ours($0) && c.baseline($0) }
    guard !inputs.isEmpty else { print("| \(c.format) | no input both decoders accept |"); continue }
    let mean = inputs.map(\.count).reduce(0, +) / inputs.count
    let r1 = rate(c.ours, inputs)
    let r0 = rate(c.baseline, inputs)
    print("| \(c.format) | \(inputs.count) | \(mean) | \(lpad(String(Int(r1)), 10)) | \(c.baselineName) | \(lpad(String(Int(r0)), 10)) | \(String(format: "%.2f", r1 / r0)) |")
}
