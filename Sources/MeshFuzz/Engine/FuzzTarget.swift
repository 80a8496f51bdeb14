import MeshWire

/// One decoder under fuzz, seen the way every engine needs it: bytes in, a neutral value or a
/// typed error out, plus what the oracles and the format-aware mutators need to know about it.
public struct FuzzTarget: Sendable {
    public typealias Decode = @Sendable ([UInt8]) throws(WireError) -> JSONValue
    public typealias Encode = @Sendable (JSONValue) throws(WireError) -> [UInt8]
    /// A second opinion on bytes the target decoded to `value`: nil when it agrees, otherwise
    /// why not.
    public typealias Differential = @Sendable (_ input: [UInt8], _ value: JSONValue) -> String?

    public let id: String
    public let summary: String
    public let decode: Decode
    /// The mirror encoder, for the round-trip oracle; nil for parsers that have none.
    public let encode: Encode?
    public let differentials: [(name: String, check: Differential)]
    /// Where fixed binary fields sit (type byte, length, TTL ...), for the format-aware
    /// mutators. JSON formats need none: their fields are found by key.
    public let layout: [BinaryField]
    /// Tokens worth inserting for this format, on top of the shared dictionary.
    public let dictionary: [[UInt8]]

    public init(id: String, summary: String, decode: @escaping Decode, encode: Encode?,
                differentials: [(name: String, check: Differential)] = [], layout: [BinaryField] = [], dictionary: [[UInt8]] = []) {
        self.id = id
        self.summary = summary
        self.decode = decode
        self.encode = encode
        self.differentials = differentials
        self.layout = layout
        self.dictionary = dictionary
    }

    /// A catalog codec, decoded and encoded under one fixed context (relay.sealed's keys).
    public init(codec: FormatCodec, context: JSONValue? = nil, differentials: [(name: String, check: Differential)] = [],
                layout: [BinaryField] = [], dictionary: [[UInt8]] = []) {
        let decode = codec.decode, encode = codec.encode
        self.init(id: codec.id, summary: codec.summary,
                  decode: { bytes throws(WireError) in try decode(bytes, context) },
                  encode: { value throws(WireError) in try encode(value, context) },
                  differentials: differentials, layout: layout, dictionary: dictionary)
    }
}

/// A fixed-position binary field: what a format-aware mutation should aim at.
public struct BinaryField: Sendable, Hashable {
    public enum Role: Sendable, Hashable {
        /// A byte count of what follows (or of the whole unit).
        case length
        /// A TTL or hop count.
        case ttl
        /// A type, version or marker byte.
        case type
        /// Chunk / fragment index or total.
        case index
        /// Flag bits (padding, compression, signed ...).
        case flags
    }

    public var offset: Int
    public var width: Int
    public var bigEndian: Bool
    public var role: Role

    public init(offset: Int, width: Int, bigEndian: Bool = true, role: Role) {
        self.offset = offset
        self.width = width
        self.bigEndian = bigEndian
        self.role = role
    }
}
