import Foundation

/// Robot Heart's multi-camp `CampProtocolMessage`: `{version: 1, type, campID, senderID,
/// timestamp (seconds since 2001), payload?: base64 of an inner JSON}`. It travels as the
/// `content` string of a `campAnnouncement` `BLEMessage`, never alone on the air.
public struct CampProtocolMessage: WireFormat, NeutralForm {
    public static let formatID: FormatID = "camp.protocol"
    public static let version: UInt8 = 1
    public static let maxSize = CampMessage.maxSize

    public enum Kind: String, Sendable, CaseIterable {
        case ping, announce, chat, resource, event, emergency
    }

    public var kind: Kind
    public var campID: String
    public var senderID: String
    public var timestamp: Double
    /// The inner message's JSON bytes (`Data` on the wire, base64).
    public var payload: [UInt8]?

    public init(kind: Kind, campID: String, senderID: String, timestamp: Double, payload: [UInt8]? = nil) {
        self.kind = kind
        self.campID = campID
        self.senderID = senderID
        self.timestamp = timestamp
        self.payload = payload
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        guard bytes.count <= Self.maxSize else { throw WireError(.tooLarge, "CampProtocolMessage is \(bytes.count) bytes, above \(Self.maxSize)") }
        try self.init(fields: JSONFields(parsing: bytes, context: "CampProtocolMessage"), notation: .wire)
    }

    init(fields f: JSONFields, notation: JSONNotation) throws(WireError) {
        let version: UInt8 = try f.integer("version")
        guard version == Self.version else { throw WireError(.valueOutOfRange, "CampProtocolMessage.version \(version), only 1 is defined") }
        let type = try f.string("type")
        guard let kind = Kind(rawValue: type) else { throw WireError(.unknownType, "CampProtocolMessage.type \"\(type.prefix(64))\"") }
        self.kind = kind
        campID = try f.string("campID")
        _ = try JSONFields.uuid(campID, field: "CampProtocolMessage.campID")
        senderID = try f.string("senderID")
        timestamp = try f.double("timestamp")
        payload = try f.optionalBytes("payload", notation)
        _ = try inner()
    }

    /// The payload's own message, for the types that define one (CAMP-W5); its errors keep their code.
    public func inner() throws(WireError) -> JSONValue? {
        guard let payload else {
            guard kind == .ping else { throw WireError(.missingField, "CampProtocolMessage.payload is missing for type \(kind.rawValue)") }
            return nil
        }
        switch kind {
        case .ping: throw WireError(.trailingBytes, "a ping carries no payload")
        case .announce: return try CampInner.announcement(payload)
        case .resource: return try CampInner.resourceRequest(payload)
        case .event: return try CampInner.eventBroadcast(payload)
        case .chat, .emergency: return nil   // free text in the app: carried as bytes
        }
    }

    public func encoded() -> [UInt8] { JSONWriter.write(fields(.wire)) }

    private func fields(_ notation: JSONNotation) -> JSONValue {
        var m: [(String, JSONValue)] = [("version", .integer(Self.version)), ("type", .string(kind.rawValue)), ("campID", .string(campID)),
                                        ("senderID", .string(senderID)), ("timestamp", .double(timestamp))]
        if let payload { m.append(("payload", .bytes(payload, notation))) }
        return .object(m)
    }

    public init(neutral: JSONValue) throws(WireError) {
        try self.init(fields: JSONFields(neutral, context: "CampProtocolMessage"), notation: .neutral)
        guard encoded().count <= Self.maxSize else { throw WireError(.tooLarge, "CampProtocolMessage above \(Self.maxSize) bytes") }
    }

    /// Payload as hex; `message` is the inner message read from it (informative: `encode` uses
    /// the payload bytes, which are what the sender wrote).
    public var neutral: JSONValue {
        guard case .object(var o) = fields(.neutral) else { return fields(.neutral) }
        if let inner = try? inner() { o.members.append(JSONObject.Member(key: "message", value: inner)) }
        return .object(o)
    }
}

/// The inner payload messages of `CampProtocolMessage` (CampNetworkManager.swift), read with the
/// app's Codable rules: dates as Double seconds since 2001, optionals absent when nil.
enum CampInner {
    static func announcement(_ bytes: [UInt8]) throws(WireError) -> JSONValue {
        let f = try JSONFields(parsing: bytes[...], context: "CampAnnouncement")
        var m: [(String, JSONValue)] = [("campID", .string(try f.string("campID"))), ("name", .string(try f.string("name"))),
                                        ("location", .string(try f.string("location"))),
                                        ("memberCount", .integer(try f.integer("memberCount", as: Int.self)))]
        if let d = try f.optionalString("description") { m.append(("description", .string(d))) }
        return .object(m)
    }

    static func resourceRequest(_ bytes: [UInt8]) throws(WireError) -> JSONValue {
        let f = try JSONFields(parsing: bytes[...], context: "ResourceRequest")
        return .object([("id", .string(try f.string("id"))), ("campID", .string(try f.string("campID"))),
                        ("campName", .string(try f.string("campName"))), ("resourceType", .string(try f.string("resourceType"))),
                        ("description", .string(try f.string("description"))), ("timestamp", .double(try f.double("timestamp")))])
    }

    static func eventBroadcast(_ bytes: [UInt8]) throws(WireError) -> JSONValue {
        let f = try JSONFields(parsing: bytes[...], context: "EventBroadcast")
        return .object([("id", .string(try f.string("id"))), ("campID", .string(try f.string("campID"))),
                        ("campName", .string(try f.string("campName"))), ("title", .string(try f.string("title"))),
                        ("description", .string(try f.string("description"))), ("time", .double(try f.double("time"))),
                        ("location", .string(try f.string("location")))])
    }
}
