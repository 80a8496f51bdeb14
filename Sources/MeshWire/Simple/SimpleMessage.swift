/// The mesh chat story's message (seed 000), as Foundation's default `JSONEncoder` writes the
/// struct: `{"id","sender","content","timestamp","ttl","relayCount","isRelayed","originalSender","lastRelay"?}`.
/// One message is one GATT value; docs/dialects/simple.md (SIMPLE-W1...W5) is the spec.
public struct SimpleMessage: WireFormat, NeutralForm {
    public static let formatID: FormatID = "simple.message"
    /// The ATT maximum attribute value length: the dialect has no chunking, so a message
    /// must fit one write.
    public static let maxSize = 512

    public var id: String
    public var sender: String
    public var content: String
    /// Seconds since 2001-01-01 (Foundation's default `Date` encoding).
    public var timestamp: Double
    /// Hops remaining.
    public var ttl: UInt8
    public var relayCount: Int
    public var isRelayed: Bool
    /// Always the first sender, whoever relayed.
    public var originalSender: String
    /// Who relayed it to us; absent on the original transmission.
    public var lastRelay: String?

    public init(
        id: String, sender: String, content: String, timestamp: Double, ttl: UInt8, relayCount: Int = 0,
        isRelayed: Bool = false, originalSender: String, lastRelay: String? = nil
    ) {
        self.id = id
        self.sender = sender
        self.content = content
        self.timestamp = timestamp
        self.ttl = ttl
        self.relayCount = relayCount
        self.isRelayed = isRelayed
        self.originalSender = originalSender
        self.lastRelay = lastRelay
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        guard bytes.count <= Self.maxSize else {
            throw WireError(.tooLarge, "SimpleMessage is \(bytes.count) bytes, above the \(Self.maxSize)-byte maximum")
        }
        try self.init(fields: JSONFields(parsing: bytes, context: "SimpleMessage"))
    }

    public init(neutral: JSONValue) throws(WireError) {
        try self.init(fields: JSONFields(neutral, context: "SimpleMessage"))
        let size = encoded().count
        guard size <= Self.maxSize else {
            throw WireError(.tooLarge, "SimpleMessage encodes to \(size) bytes, above the \(Self.maxSize)-byte maximum")
        }
    }

    /// The wire and the neutral form are the same JSON: the message has no bytes or UInt64.
    private init(fields f: JSONFields) throws(WireError) {
        id = try f.string("id")
        sender = try f.string("sender")
        content = try f.string("content")
        timestamp = try f.double("timestamp")
        ttl = try f.integer("ttl", rangeCode: .ttlOutOfRange)
        relayCount = try f.integer("relayCount")
        // Declared `Int` by the app, but a count of relays below zero is corrupt or hostile.
        guard relayCount >= 0 else {
            throw WireError(.valueOutOfRange, "SimpleMessage.relayCount \(relayCount) is negative")
        }
        isRelayed = try f.bool("isRelayed")
        originalSender = try f.string("originalSender")
        lastRelay = try f.optionalString("lastRelay")
    }

    public func encoded() -> [UInt8] { JSONWriter.write(neutral) }

    public var neutral: JSONValue {
        var m: [(String, JSONValue)] = [
            ("id", .string(id)), ("sender", .string(sender)), ("content", .string(content)),
            ("timestamp", .double(timestamp)), ("ttl", .integer(ttl)), ("relayCount", .integer(relayCount)),
            ("isRelayed", .bool(isRelayed)), ("originalSender", .string(originalSender)),
        ]
        if let lastRelay { m.append(("lastRelay", .string(lastRelay))) }
        return .object(m)
    }

    /// The seed's de-duplication identity: "message ABC123 from Worker A".
    public var dedupKey: String { "\(originalSender)\u{1F}\(id)" }
}
