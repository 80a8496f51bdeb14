// Cross-check of the golden vectors against Apple's Foundation (not against meshconform's codecs).
// For every valid vector of a JSON format: decode the bytes with Foundation's JSONDecoder into structs
// mirroring the apps' Codable types (UpwanSingh/BLEMesh RouteMessages.swift, MessageEnvelope.swift,
// Message.swift; adrior11/SwiftMeshRelay FrameHeader.swift, Beacon.swift; designdream/robot-heart-ios
// BLEMeshManager.swift BLEMessage, CampNetworkManager.swift CampProtocolMessage), re-encode with
// JSONEncoder(.sortedKeys), and require the vector's exact bytes when it is canonical.
// Also lists the invalid/acceptable vectors Foundation itself accepts (expected: dialect rules such as
// TTL ranges go beyond what the app's types check).
//   swiftc -O Vectors/generators/foundation_check.swift -o /tmp/foundation_check
//   /tmp/foundation_check Vectors/*.json        (exit status 1 on any mismatch)
import Foundation
struct FrameHeader: Codable { var origin: UUID; var dest: UUID; var ttl: UInt8; var seq: UInt64 }
struct Beacon: Codable { var origin: UUID; var seqNo: UInt32; var ttl: UInt8; var hop: UInt8 }
struct MessageChunk: Codable { let messageID: UUID; let chunkIndex: Int; let totalChunks: Int; let flags: UInt8; let payload: Data }
struct MessageEnvelope: Codable { let id: UUID; let originID: UUID; let originName: String; let destinationID: UUID?; let conversationID: UUID?; let timestamp: Date; let sequenceNumber: UInt64; var ttl: Int; var hopPath: [UUID]; let isControlMessage: Bool; let isEncrypted: Bool; let isGroupMessage: Bool; let payload: Data; let signature: Data? }
// RouteMessages.swift:4-11, 152-154@dcd2103c: the type is an enum of the six raw values.
enum ControlMessageType: String, Codable { case routeRequest = "RREQ", routeReply = "RREP", routeError = "RERR", peerAnnounce = "ANNOUNCE", ack = "ACK", readReceipt = "READ" }
struct ControlMessage: Codable { let type: ControlMessageType; let payload: Data }
struct RouteRequest: Codable { let requestID: UUID; let originID: UUID; let destinationID: UUID; let originName: String; var hopCount: Int; var hopPath: [UUID]; let timestamp: Date; let ttl: Int }
struct RouteReply: Codable { let requestID: UUID; let originID: UUID; let destinationID: UUID; let destinationName: String; var hopCount: Int; var hopPath: [UUID]; let timestamp: Date }
struct RouteError: Codable { let errorID: UUID; let unreachableID: UUID; let reporterID: UUID; let affectedDestinations: [UUID]; let timestamp: Date }
struct PeerAnnounce: Codable { let deviceID: UUID; let deviceName: String; let timestamp: Date; var hopCount: Int }
struct DeliveryAck: Codable { let messageID: UUID; let receiverID: UUID; let timestamp: Date }
// camp: the app's plain JSONEncoder, so Date is a Double since 2001 and Data is base64; ids are Strings.
struct BLEMessage: Codable {
  enum MessageType: String, Codable { case text, location, deliveryConfirmation, campAnnouncement, emergency }
  let id: String; let senderID: String; let senderName: String; let recipientID: String; let messageType: MessageType
  let content: String; let timestamp: Date; let locationLat: Double?; let locationLon: Double?
}
struct CampProtocolMessage: Codable {
  enum MessageType: String, Codable { case ping, announce, chat, resource, event, emergency }
  // CampNetworkManager.swift:402-408@09bc23c4: version is a UInt8.
  let version: UInt8; let type: MessageType; let campID: String; let senderID: String; let timestamp: Date; let payload: Data?
}
struct ReadReceipt: Codable { let messageID: UUID; let readerID: UUID; let originalSenderID: UUID; let timestamp: Date }

func hexd(_ s: String) -> Data { var d = Data(); var i = s.startIndex; while i < s.endIndex { let j = s.index(i, offsetBy: 2); d.append(UInt8(s[i..<j], radix: 16)!); i = j }; return d }
func rt<T: Codable>(_ t: T.Type, _ d: Data, iso: Bool = false) -> Data? {
  let dec = JSONDecoder(); let enc = JSONEncoder(); enc.outputFormatting = [.sortedKeys]
  if iso { dec.dateDecodingStrategy = .iso8601; enc.dateEncodingStrategy = .iso8601 }
  guard let v = try? dec.decode(t, from: d) else { return nil }
  return try? enc.encode(v)
}
// nil: not checked here; .some(nil): Foundation refuses; .some(bytes): re-encoded bytes.
func check(_ d: Data, _ format: String) -> Data?? {
  switch format {
  case "relay.frame-header": return rt(FrameHeader.self, d)
  case "relay.packet":
    // type u8 | headerLen u16 BE | header | body: check the JSON header of frames and beacons.
    guard d.count >= 3 else { return .some(nil) }
    let b = [UInt8](d), n = Int(b[1]) << 8 | Int(b[2])
    guard b[0] == 0x46 || b[0] == 0x42 else { return nil }  // acks: no JSON
    guard d.count >= 3 + n else { return .some(nil) }
    let h = Data(b[3..<3 + n])
    guard let out = b[0] == 0x46 ? rt(FrameHeader.self, h) : rt(Beacon.self, h) else { return .some(nil) }
    return Data(b[0..<3]) + out + Data(b[(3 + n)...])
  case "relay.beacon": return rt(Beacon.self, d)
  case "blemesh.chunk": return rt(MessageChunk.self, d)
  case "blemesh.envelope": return rt(MessageEnvelope.self, d, iso: true)
  case "blemesh.control": return rt(ControlMessage.self, d)
  case "blemesh.rreq": return rt(RouteRequest.self, d)
  case "blemesh.rrep": return rt(RouteReply.self, d)
  case "blemesh.rerr": return rt(RouteError.self, d)
  case "blemesh.announce": return rt(PeerAnnounce.self, d)
  case "blemesh.ack": return rt(DeliveryAck.self, d)
  case "blemesh.read": return rt(ReadReceipt.self, d)
  case "camp.message", "camp.delivery-confirmation": return rt(BLEMessage.self, d)
  case "camp.protocol": return rt(CampProtocolMessage.self, d)
  default: return nil  // not a JSON format: not checked here
  }
}
var bad = 0, ok = 0
for path in CommandLine.arguments.dropFirst() {
  guard let doc = try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any],
        let format = doc["format"] as? String, let tests = doc["tests"] as? [[String: Any]]
  else { continue }  // not a vector file (vectors.schema.json)
  for t in tests {
    let id = t["tcId"] as! Int, res = t["result"] as! String
    let data = hexd(t["hex"] as! String)
    guard let r = check(data, format) else { continue }  // format not checked here
    let canon = t["canonical"] as? Bool ?? false
    switch (res, r) {
    case ("valid", let out?):
      if canon && out != data { bad += 1; print("\(format) \(id): canonical mismatch\n  want \(String(decoding: data, as: UTF8.self))\n  got  \(String(decoding: out, as: UTF8.self))") } else { ok += 1 }
    case ("valid", nil): bad += 1; print("\(format) \(id): Foundation refuses a valid vector: \(t["comment"]!)")
    case ("invalid", _?): print("\(format) \(id): Foundation ACCEPTS invalid (\(t["error"]!)): \(t["comment"]!)")
    case ("acceptable", let o): print("\(format) \(id): acceptable, Foundation \(o == nil ? "refuses" : "accepts")")
    default: ok += 1
    }
  }
}
print("ok \(ok) bad \(bad)")
exit(bad == 0 ? 0 : 1)
