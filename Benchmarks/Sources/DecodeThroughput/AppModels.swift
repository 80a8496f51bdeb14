import Foundation

// The Codable types the apps themselves decode with Foundation's JSONDecoder: the baseline
// meshconform's decoders are measured against. Field lists from SwiftMeshRelay
// (Frame/FrameHeader.swift, Model/Beacon.swift) and BLEMesh (Models/Message.swift,
// Models/Routing/MessageEnvelope.swift, RouteMessages.swift).

struct AppFrameHeader: Codable { var origin: UUID; var dest: UUID; var ttl: UInt8; var seq: UInt64 }
struct AppBeacon: Codable { var origin: UUID; var seqNo: UInt32; var ttl: UInt8; var hop: UInt8 }

struct AppMessageChunk: Codable { var messageID: UUID; var chunkIndex: Int; var totalChunks: Int; var flags: UInt8; var payload: Data }

struct AppMessageEnvelope: Codable {
    var id: UUID; var originID: UUID; var originName: String; var destinationID: UUID?; var conversationID: UUID?
    var timestamp: Date; var sequenceNumber: UInt64; var ttl: Int; var hopPath: [UUID]
    var isControlMessage: Bool; var isEncrypted: Bool; var isGroupMessage: Bool; var payload: Data; var signature: Data?
}

struct AppControlMessage: Codable {
    enum Kind: String, Codable { case RREQ, RREP, RERR, ANNOUNCE, ACK, READ }
    var type: Kind
    var payload: Data
}

struct AppRouteRequest: Codable {
    var requestID: UUID; var originID: UUID; var destinationID: UUID; var originName: String
    var hopCount: Int; var hopPath: [UUID]; var timestamp: Date; var ttl: Int
}
struct AppRouteReply: Codable {
    var requestID: UUID; var originID: UUID; var destinationID: UUID; var destinationName: String
    var hopCount: Int; var hopPath: [UUID]; var timestamp: Date
}
struct AppRouteError: Codable { var errorID: UUID; var unreachableID: UUID; var reporterID: UUID; var affectedDestinations: [UUID]; var timestamp: Date }
struct AppPeerAnnounce: Codable { var deviceID: UUID; var deviceName: String; var timestamp: Date; var hopCount: Int }
struct AppDeliveryAck: Codable { var messageID: UUID; var receiverID: UUID; var timestamp: Date }
struct AppReadReceipt: Codable { var messageID: UUID; var readerID: UUID; var originalSenderID: UUID; var timestamp: Date }

extension AppControlMessage {
    /// What the app does on receipt: decode the wrapper, then the inner message by type.
    static func decodeFully(_ data: Data, _ decoder: JSONDecoder) throws {
        let m = try decoder.decode(AppControlMessage.self, from: data)
        switch m.type {
        case .RREQ: _ = try decoder.decode(AppRouteRequest.self, from: m.payload)
        case .RREP: _ = try decoder.decode(AppRouteReply.self, from: m.payload)
        case .RERR: _ = try decoder.decode(AppRouteError.self, from: m.payload)
        case .ANNOUNCE: _ = try decoder.decode(AppPeerAnnounce.self, from: m.payload)
        case .ACK: _ = try decoder.decode(AppDeliveryAck.self, from: m.payload)
        case .READ: _ = try decoder.decode(AppReadReceipt.self, from: m.payload)
        }
    }
}

// Robot Heart (RobotHeart/Services/BLEMeshManager.swift, CampNetworkManager.swift).
struct AppCampBLEMessage: Codable {
    enum Kind: String, Codable { case text, location, deliveryConfirmation, campAnnouncement, emergency }
    let id: String; let senderID: String; let senderName: String; let recipientID: String; let messageType: Kind
    let content: String; let timestamp: Date; var locationLat: Double?; var locationLon: Double?
}
struct AppCampProtocolMessage: Codable {
    enum Kind: String, Codable { case ping, announce, chat, resource, event, emergency }
    let version: UInt8; let type: Kind; let campID: String; let senderID: String; let timestamp: Date; let payload: Data?
}
/// Seed 000's SimpleMessage (default JSONEncoder: Date as seconds since 2001).
struct AppSimpleMessage: Codable {
    let id: String
    let sender: String
    let content: String
    let timestamp: Date
    let ttl: UInt8
    let relayCount: Int
    let isRelayed: Bool
    let originalSender: String
    let lastRelay: String?
}
