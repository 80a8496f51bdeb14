import Crypto

extension BitchatPacket {
    /// bitchat's de-duplication key (BITCHAT-R3):
    /// `<sender hex>-<timestamp>-<type>-<first 4 bytes of SHA-256(payload), hex>`, over the
    /// payload as decoded (decompressed). TTL, flags and padding are not in it, so a relayed
    /// copy (TTL - 1) and a re-padded copy are the same message.
    public var dedupKey: String {
        let digest = SHA256.hash(data: payloadBytes).prefix(4)
        return "\(Hex.encode(senderIDBytes))-\(timestamp)-\(type)-\(Hex.encode(digest))"
    }
}
