import Foundation

/// Robot Heart's `BLEMessage`: one JSON object per GATT write, written by a plain `JSONEncoder`
/// (dates as Double seconds since 2001-01-01, optionals absent when nil, no chunking, no TTL).
/// A `campAnnouncement` carries a whole `camp.protocol` JSON text as its `content` string.
public struct CampMessage: WireFormat, NeutralForm {
    public static let formatID: FormatID = "camp.message"
    /// One ATT value: the app never splits a message (CAMP-G2).
    public static let maxSize = 512
    public static let broadcast = "broadcast"

    public enum Kind: String, Sendable, CaseIterable {
        case text, location, deliveryConfirmation, campAnnouncement, emergency
    }

    /// Kept as text: the app's type is `String` (it writes `UUID().uuidString`), and it is the
    /// de-duplication and confirmation key, compared byte for byte (CAMP-R2).
    public var id: String
    public var senderID: String
    public var senderName: String
    /// `"broadcast"` or a user id.
    public var recipientID: String
    public var kind: Kind
    public var content: String
    /// Seconds since 2001-01-01.
    public var timestamp: Double
    public var locationLat: Double?
    public var locationLon: Double?

    public init(id: String, senderID: String, senderName: String, recipientID: String, kind: Kind, content: String,
                timestamp: Double, locationLat: Double? = nil, locationLon: Double? = nil) {
        self.id = id
        self.senderID = senderID
        self.senderName = senderName
        self.recipientID = recipientID
        self.kind = kind
        self.content = content
        self.timestamp = timestamp
        self.locationLat = locationLat
        self.locationLon = locationLon
    }

    public var isBroadcast: Bool { recipientID == Self.broadcast }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try self.init(decoding: bytes, anyID: false)
    }

    /// `anyID`: as the app reads it, whose `id` is any string (camp.md section 6, row 6); every
    /// other rule holds. For a tester that must recognise such a message when a DUT relays it.
    public init(decoding bytes: ArraySlice<UInt8>, anyID: Bool) throws(WireError) {
        try Self.checkSize(bytes.count)
        try self.init(fields: JSONFields(parsing: bytes, context: "BLEMessage"), anyID: anyID)
    }

    init(fields f: JSONFields, anyID: Bool = false) throws(WireError) {
        id = try f.string("id")
        if !anyID { _ = try JSONFields.uuid(id, field: "BLEMessage.id") }
        senderID = try f.string("senderID")
        senderName = try f.string("senderName")
        recipientID = try f.string("recipientID")
        let type = try f.string("messageType")
        guard let kind = Kind(rawValue: type) else { throw WireError(.unknownType, "BLEMessage.messageType \"\(type.prefix(64))\"") }
        self.kind = kind
        content = try f.string("content")
        timestamp = try f.double("timestamp")
        locationLat = try f.optional("locationLat") == nil ? nil : f.double("locationLat")
        locationLon = try f.optional("locationLon") == nil ? nil : f.double("locationLon")
        try validate()
    }

    /// The rules beyond the app's Codable types (docs/dialects/camp.md CAMP-W2, CAMP-W3).
    func validate() throws(WireError) {
        guard !senderID.isEmpty else { throw WireError(.valueOutOfRange, "BLEMessage.senderID is empty") }
        guard !recipientID.isEmpty else { throw WireError(.valueOutOfRange, "BLEMessage.recipientID is empty") }
        switch (locationLat, locationLon) {
        case (nil, nil): break
        case (let lat?, let lon?):
            guard (-90...90).contains(lat) else { throw WireError(.valueOutOfRange, "BLEMessage.locationLat \(lat)") }
            guard (-180...180).contains(lon) else { throw WireError(.valueOutOfRange, "BLEMessage.locationLon \(lon)") }
        case (nil, _): throw WireError(.missingField, "BLEMessage.locationLat is missing while locationLon is present")
        case (_, nil): throw WireError(.missingField, "BLEMessage.locationLon is missing while locationLat is present")
        }
        switch kind {
        case .deliveryConfirmation:
            // CAMP-W3: the content names the confirmed message, and a confirmation has one addressee.
            _ = try JSONFields.uuid(content, field: "BLEMessage.content (confirmed id)")
            guard !isBroadcast else { throw WireError(.valueOutOfRange, "a deliveryConfirmation is addressed to \"broadcast\"") }
        case .campAnnouncement:
            // The JSON-in-a-JSON-string carriage: the inner message keeps its own error code.
            _ = try CampProtocolMessage(decoding: Array(content.utf8)[...])
        default: break
        }
    }

    static func checkSize(_ count: Int) throws(WireError) {
        guard count <= maxSize else { throw WireError(.tooLarge, "BLEMessage is \(count) bytes, above \(maxSize)") }
    }

    public func encoded() -> [UInt8] { JSONWriter.write(neutral) }

    public init(neutral: JSONValue) throws(WireError) {
        try self.init(fields: JSONFields(neutral, context: "BLEMessage"))
        try Self.checkSize(encoded().count)
    }

    public var neutral: JSONValue {
        var m: [(String, JSONValue)] = [("id", .string(id)), ("senderID", .string(senderID)), ("senderName", .string(senderName)),
                                        ("recipientID", .string(recipientID)), ("messageType", .string(kind.rawValue)),
                                        ("content", .string(content)), ("timestamp", .double(timestamp))]
        if let locationLat { m.append(("locationLat", .double(locationLat))) }
        if let locationLon { m.append(("locationLon", .double(locationLon))) }
        return .object(m)
    }
}

/// A delivery confirmation: a `BLEMessage` of type `deliveryConfirmation` whose `content` is the
/// confirmed message's `id`, addressed to its sender (CAMP-R5). Its own format id so vectors and
/// checks can require the type.
public struct CampDeliveryConfirmation: WireFormat, NeutralForm {
    public static let formatID: FormatID = "camp.delivery-confirmation"

    public var message: CampMessage
    public var confirmedID: String { message.content }

    public init(message: CampMessage) { self.message = message }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try self.init(checking: CampMessage(decoding: bytes))
    }

    private init(checking message: CampMessage) throws(WireError) {
        guard message.kind == .deliveryConfirmation else {
            throw WireError(.unknownType, "messageType \"\(message.kind.rawValue)\" is not deliveryConfirmation")
        }
        self.message = message
    }

    public func encoded() -> [UInt8] { message.encoded() }
    public init(neutral: JSONValue) throws(WireError) { try self.init(checking: CampMessage(neutral: neutral)) }
    public var neutral: JSONValue { message.neutral }
}
