import Foundation

/// READ: the user at `readerID` opened the message.
public struct ReadReceipt: ControlContent {
    public static let formatID: FormatID = "blemesh.read"
    public static let controlType = ControlMessage.Kind.readReceipt

    /// The envelope `id` of the message that was read.
    public var messageID: UUID
    public var readerID: UUID
    /// Who sent the original message: where the receipt is going.
    public var originalSenderID: UUID
    /// Seconds since 2001-01-01.
    public var timestamp: Double

    public init(messageID: UUID, readerID: UUID, originalSenderID: UUID, timestamp: Double) {
        self.messageID = messageID
        self.readerID = readerID
        self.originalSenderID = originalSenderID
        self.timestamp = timestamp
    }

    public init(fields f: JSONFields) throws(WireError) {
        messageID = try f.uuid("messageID")
        readerID = try f.uuid("readerID")
        originalSenderID = try f.uuid("originalSenderID")
        timestamp = try f.double("timestamp")
    }

    public var neutral: JSONValue {
        .object([
            ("messageID", .uuid(messageID)),
            ("readerID", .uuid(readerID)),
            ("originalSenderID", .uuid(originalSenderID)),
            ("timestamp", .double(timestamp)),
        ])
    }
}
