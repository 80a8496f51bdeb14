/// One wire format seen from outside: bytes <-> neutral JSON. What the CLI, the vector
/// checker and the fuzzer use, so none of them needs to know the Swift types.
public struct FormatCodec: Sendable {
    public typealias Decode = @Sendable ([UInt8], _ context: JSONValue?) throws(WireError) -> JSONValue
    public typealias Encode = @Sendable (JSONValue, _ context: JSONValue?) throws(WireError) -> [UInt8]

    public let id: FormatID
    public let summary: String
    public let decode: Decode
    public let encode: Encode

    public var dialect: String { String(id.prefix { $0 != "." }) }

    public init(id: FormatID, summary: String, decode: @escaping Decode, encode: @escaping Encode) {
        self.id = id
        self.summary = summary
        self.decode = decode
        self.encode = encode
    }

    /// The codec of a format type that needs nothing besides its bytes.
    public init<T: WireFormat & NeutralForm>(_ type: T.Type, _ summary: String) {
        self.init(
            id: T.formatID, summary: summary,
            decode: { bytes, _ throws(WireError) in try T(decoding: bytes[...]).neutral },
            encode: { json, _ throws(WireError) in try T(neutral: json).encoded() })
    }
}
