/// Every wire format meshconform knows, by id.
public enum FormatCatalog {
    public static let all: [FormatCodec] = [
        FormatCodec(RelayPacket.self, "SwiftMeshRelay packet: type u8 | headerLen u16 BE | header | body"),
        FormatCodec(FrameHeader.self, "SwiftMeshRelay frame header (JSON)"),
        FormatCodec(Beacon.self, "SwiftMeshRelay beacon header (JSON)"),
        FormatCodec(RelayAck.self, "SwiftMeshRelay ack header: acknowledged seq, u64 BE"),
        FormatCodec(
            id: SealedBody.formatID, summary: "SwiftMeshRelay sealed body: ChaCha20-Poly1305 nonce | ciphertext | tag",
            decode: { bytes, context throws(WireError) in try SealedBody.neutral(decoding: bytes, context: context) },
            encode: { json, context throws(WireError) in try SealedBody.encoded(neutral: json, context: context) }),
        FormatCodec(MessageChunk.self, "BLEMesh chunk (JSON, one GATT value): messageID, chunkIndex, totalChunks, flags, payload"),
        FormatCodec(MessageEnvelope.self, "BLEMesh envelope (JSON, ISO-8601 dates), carried in chunks"),
        FormatCodec(ControlMessage.self, "BLEMesh control message: {type, payload: base64 of the inner JSON}"),
        FormatCodec(RouteRequest.self, "BLEMesh RREQ inner message (dates: seconds since 2001)"),
        FormatCodec(RouteReply.self, "BLEMesh RREP inner message"),
        FormatCodec(RouteError.self, "BLEMesh RERR inner message"),
        FormatCodec(PeerAnnounce.self, "BLEMesh ANNOUNCE inner message"),
        FormatCodec(DeliveryAck.self, "BLEMesh ACK inner message"),
        FormatCodec(ReadReceipt.self, "BLEMesh READ inner message"),
        FormatCodec(BitchatPacket.self, "bitchat packet v1/v2: header, ids, route, compressed payload, signature, PKCS#7 padding"),
        FormatCodec(BitchatFragment.self, "bitchat fragment payload: fragmentID 8 | index u16 | total u16 | originalType u8 | data"),
        FormatCodec(SimpleMessage.self, "mesh chat story SimpleMessage (JSON, dates: seconds since 2001)"),
    ]

    public static func codec(_ id: FormatID) -> FormatCodec? { all.first { $0.id == id } }

    public static var ids: [FormatID] { all.map(\.id) }
}
