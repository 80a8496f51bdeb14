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
        FormatCodec(PeatDocument.self, "peat-btle document: version, node, G-Counter, then 0xAB / 0xAC / 0xAD sections (LE)"),
        FormatCodec(PeatPeripheral.self, "peat-btle peripheral section: id, parent, type, callsign, health, event, location"),
        FormatCodec(PeatEmergency.self, "peat-btle emergency section: source, timestamp, ack map"),
        FormatCodec(PeatRelayEnvelope.self, "peat-btle relay envelope 0xB1: flags, message id, hop / max_hops, origin, payload"),
        FormatCodec(
            id: PeatEncrypted.formatID, summary: "peat-btle encrypted document 0xAE: nonce | ChaCha20-Poly1305 ciphertext | tag (mesh key)",
            decode: { bytes, context throws(WireError) in try PeatEncrypted.neutral(decoding: bytes, context: context) },
            encode: { json, context throws(WireError) in try PeatEncrypted.encoded(neutral: json, context: context) }),
        FormatCodec(PeatKeyExchange.self, "peat-btle key exchange 0xB0: reserved byte, sender, flags, X25519 public key"),
        FormatCodec(
            id: PeatPeerE2EE.formatID, summary: "peat-btle peer E2EE 0xAF: flags, recipient, sender, counter, nonce, ciphertext | tag",
            decode: { bytes, context throws(WireError) in try PeatPeerE2EE.neutral(decoding: bytes, context: context) },
            encode: { json, context throws(WireError) in try PeatPeerE2EE.encoded(neutral: json, context: context) }),
        FormatCodec(PeatDeviceName.self, "peat-btle advertised name PEAT_<mesh>-<%08X>"),
        FormatCodec(CampMessage.self, "Robot Heart BLEMessage (JSON, dates: seconds since 2001), one GATT write"),
        FormatCodec(CampProtocolMessage.self, "Robot Heart CampProtocolMessage (JSON carried as a BLEMessage content string)"),
        FormatCodec(CampDeliveryConfirmation.self, "Robot Heart delivery confirmation: BLEMessage deliveryConfirmation, content = confirmed id"),
        FormatCodec(BitchatPacket.self, "bitchat packet v1/v2: header, ids, route, compressed payload, signature, PKCS#7 padding"),
        FormatCodec(BitchatFragment.self, "bitchat fragment payload: fragmentID 8 | index u16 | total u16 | originalType u8 | data"),
        FormatCodec(SimpleMessage.self, "mesh chat story SimpleMessage (JSON, dates: seconds since 2001)"),
    ]

    public static func codec(_ id: FormatID) -> FormatCodec? { all.first { $0.id == id } }

    public static var ids: [FormatID] { all.map(\.id) }
}
