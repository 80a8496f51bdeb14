import Foundation

/// ACK: a directed user message reached `receiverID`. The app sends it one hop only, back to
/// the peer the message came from, so a multi-hop sender never sees it.
public struct DeliveryAck: ControlContent {
    public static let formatID: FormatID = "blemesh.ack"
    public static let controlType = ControlMessage.Kind.deliveryAck

    /// The acknowledged envelope's `id`.
    public var messageID: UUID
    public var receiverID: UUID
    /// Seconds since 2001-01-01.
    public var timestamp: Double

    public init(messageID: UUID, receiverID: UUID, timestamp: Double) {
        self.messageID = messageID
        self.receiverID = receiverID
        self.timestamp = timestamp
    }

    public init(fields f: JSONFields) throws(WireError) {
        messageID = try f.uuid("messageID")
        receiverID = try f.uuid("receiverID")
        timestamp = try f.double("timestamp")
    }

    public var neutral: JSONValue {
        .object([("messageID", .uuid(messageID)), ("receiverID", .uuid(receiverID)), ("timestamp", .double(timestamp))])
    }
}
