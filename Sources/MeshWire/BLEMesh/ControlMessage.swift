/// The payload of a control envelope: `{"payload":"<base64 of the inner JSON>","type":"RREQ"}`.
///
/// The inner message is JSON inside base64 inside JSON (and the envelope is base64 again
/// inside a chunk), so its bytes are decoded here and handed to the inner type: an error in
/// them keeps the inner type's own code. The older app version's "GKD" (group key
/// distribution) was removed from the app and is `unknownType` here.
public enum ControlMessage: WireFormat, NeutralForm {
    public static let formatID: FormatID = "blemesh.control"

    public static let maxSize = 65536

    /// The `type` string on the wire.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case routeRequest = "RREQ"
        case routeReply = "RREP"
        case routeError = "RERR"
        case peerAnnounce = "ANNOUNCE"
        case deliveryAck = "ACK"
        case readReceipt = "READ"
    }

    case routeRequest(RouteRequest)
    case routeReply(RouteReply)
    case routeError(RouteError)
    case peerAnnounce(PeerAnnounce)
    case deliveryAck(DeliveryAck)
    case readReceipt(ReadReceipt)

    public var kind: Kind {
        switch self {
        case .routeRequest: .routeRequest
        case .routeReply: .routeReply
        case .routeError: .routeError
        case .peerAnnounce: .peerAnnounce
        case .deliveryAck: .deliveryAck
        case .readReceipt: .readReceipt
        }
    }

    /// The inner message, for code that treats all six alike.
    public var content: any ControlContent {
        switch self {
        case .routeRequest(let m): m
        case .routeReply(let m): m
        case .routeError(let m): m
        case .peerAnnounce(let m): m
        case .deliveryAck(let m): m
        case .readReceipt(let m): m
        }
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try BLEMeshJSON.checkSize(bytes.count, max: Self.maxSize, "ControlMessage")
        let f = try JSONFields(parsing: bytes, context: "ControlMessage")
        let kind = try Self.kind(f)
        let inner = try f.base64("payload")
        self = try Self(kind, decoding: inner[...])
    }

    private init(_ kind: Kind, decoding inner: ArraySlice<UInt8>) throws(WireError) {
        switch kind {
        case .routeRequest: self = .routeRequest(try RouteRequest(decoding: inner))
        case .routeReply: self = .routeReply(try RouteReply(decoding: inner))
        case .routeError: self = .routeError(try RouteError(decoding: inner))
        case .peerAnnounce: self = .peerAnnounce(try PeerAnnounce(decoding: inner))
        case .deliveryAck: self = .deliveryAck(try DeliveryAck(decoding: inner))
        case .readReceipt: self = .readReceipt(try ReadReceipt(decoding: inner))
        }
    }

    private static func kind(_ f: JSONFields) throws(WireError) -> Kind {
        let type = try f.string("type")
        guard let kind = Kind(rawValue: type) else {
            throw WireError(.unknownType, "ControlMessage.type \"\(type.prefix(64))\"")
        }
        return kind
    }

    public func encoded() -> [UInt8] {
        JSONWriter.write(.object([("type", .string(kind.rawValue)), ("payload", .base64(content.encoded()))]))
    }

    public init(neutral: JSONValue) throws(WireError) {
        let f = try JSONFields(neutral, context: "ControlMessage")
        let kind = try Self.kind(f)
        let message = try f.required("message")
        switch kind {
        case .routeRequest: self = .routeRequest(try RouteRequest(neutral: message))
        case .routeReply: self = .routeReply(try RouteReply(neutral: message))
        case .routeError: self = .routeError(try RouteError(neutral: message))
        case .peerAnnounce: self = .peerAnnounce(try PeerAnnounce(neutral: message))
        case .deliveryAck: self = .deliveryAck(try DeliveryAck(neutral: message))
        case .readReceipt: self = .readReceipt(try ReadReceipt(neutral: message))
        }
        try BLEMeshJSON.checkSize(encoded().count, max: Self.maxSize, "ControlMessage")
    }

    public var neutral: JSONValue {
        .object([("type", .string(kind.rawValue)), ("message", content.neutral)])
    }
}
