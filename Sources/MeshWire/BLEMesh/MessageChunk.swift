import Foundation

/// One GATT write or notification of BLEMesh: a slice of an encoded `MessageEnvelope`,
/// `{"chunkIndex":<Int>,"flags":<UInt8>,"messageID":"<UUID>","payload":"<base64>","totalChunks":<Int>}`.
///
/// The app calls its 20-byte "chunk header" a size budget only; the real chunk is this JSON,
/// about 322 bytes for a full 162-byte slice.
public struct MessageChunk: WireFormat, NeutralForm {
    public static let formatID: FormatID = "blemesh.chunk"

    /// The ATT maximum attribute value length: no single write or notification can be larger.
    /// It bounds the bytes received, not the canonical form: a chunk written without `\/`
    /// escapes can decode at 512 bytes and re-encode above it (`init(neutral:)` then refuses it).
    public static let maxSize = 512
    /// Caps the reassembly state one message may claim (1024 x 162 bytes, far above the
    /// largest envelope); the app has no cap at all.
    public static let maxTotalChunks = 1024

    /// The envelope id: every chunk of one message carries it.
    public var messageID: UUID
    public var chunkIndex: Int
    public var totalChunks: Int
    public var flags: ChunkFlags
    public var payload: [UInt8]

    public init(messageID: UUID, chunkIndex: Int, totalChunks: Int, flags: ChunkFlags, payload: [UInt8]) {
        self.messageID = messageID
        self.chunkIndex = chunkIndex
        self.totalChunks = totalChunks
        self.flags = flags
        self.payload = payload
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try BLEMeshJSON.checkSize(bytes.count, max: Self.maxSize, "MessageChunk")
        try self.init(fields: JSONFields(parsing: bytes, context: "MessageChunk"), .wire)
    }

    public init(neutral: JSONValue) throws(WireError) {
        try self.init(fields: JSONFields(neutral, context: "MessageChunk"), .neutral)
        try BLEMeshJSON.checkSize(encoded().count, max: Self.maxSize, "MessageChunk")
    }

    private init(fields f: JSONFields, _ notation: JSONNotation) throws(WireError) {
        messageID = try f.uuid("messageID")
        chunkIndex = try f.integer("chunkIndex")
        totalChunks = try f.integer("totalChunks")
        flags = ChunkFlags(rawValue: try f.integer("flags"))
        payload = try f.bytes("payload", notation)
        if let problem = Self.indexProblem(index: chunkIndex, total: totalChunks, maxTotal: Self.maxTotalChunks) {
            throw WireError(.chunkIndexOutOfRange, "MessageChunk: \(problem)")
        }
    }

    /// Why `index` of `total` cannot be a chunk, or nil when it can. The assembler asks again
    /// because values built in code never went through the decoder.
    static func indexProblem(index: Int, total: Int, maxTotal: Int) -> String? {
        if total < 1 || total > maxTotal { return "totalChunks \(total) is outside 1...\(maxTotal)" }
        if index < 0 || index >= total { return "chunkIndex \(index) is outside 0..<\(total)" }
        return nil
    }

    public func encoded() -> [UInt8] { JSONWriter.write(json(.wire)) }

    public var neutral: JSONValue { json(.neutral) }

    private func json(_ notation: JSONNotation) -> JSONValue {
        .object([
            ("messageID", .uuid(messageID)),
            ("chunkIndex", .integer(chunkIndex)),
            ("totalChunks", .integer(totalChunks)),
            ("flags", .integer(flags.rawValue)),
            ("payload", .bytes(payload, notation)),
        ])
    }
}
