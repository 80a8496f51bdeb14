/// The inner message of a `ControlMessage` (route request, reply, error, announce, ack, read).
///
/// All six share one shape: a flat JSON object from a plain `JSONEncoder`, dates as Double
/// seconds since 2001-01-01 (Foundation's default, unlike the ISO-8601 envelope), and nothing
/// that needs another notation, so the neutral form is the wire JSON itself. The shared
/// reading, writing and size policy live here; each type states only its fields.
public protocol ControlContent: WireFormat, NeutralForm {
    /// The `type` string that announces this content in a `ControlMessage`.
    static var controlType: ControlMessage.Kind { get }
    /// Reads the fields, in declaration order so the first bad one is the one reported.
    init(fields: JSONFields) throws(WireError)
}

extension ControlContent {
    /// Control payloads are small; the cap keeps a decoder's work proportionate.
    public static var maxSize: Int { 65536 }

    static var context: String { "\(Self.self)" }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try BLEMeshJSON.checkSize(bytes.count, max: Self.maxSize, Self.context)
        try self.init(fields: JSONFields(parsing: bytes, context: Self.context))
    }

    public init(neutral: JSONValue) throws(WireError) {
        try self.init(fields: JSONFields(neutral, context: Self.context))
        try BLEMeshJSON.checkSize(encoded().count, max: Self.maxSize, Self.context)
    }

    public func encoded() -> [UInt8] { JSONWriter.write(neutral) }
}
