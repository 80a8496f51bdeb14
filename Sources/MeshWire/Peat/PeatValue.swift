/// One GATT value of the peat dialect, read the way a receiver must read it: by its first byte
/// (PEAT-W1). The node and the tester both dispatch through here, so they can never disagree
/// about what a value is.
public enum PeatValue: Hashable, Sendable {
    case document(PeatDocument)
    case encrypted(PeatEncrypted)
    case peerE2EE(PeatPeerE2EE)
    case keyExchange(PeatKeyExchange)
    case relayEnvelope(PeatRelayEnvelope)
    /// `0xB2`: a delta document, which meshconform does not define yet; a node drops it unread.
    case deltaDocument

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        switch bytes.first {
        case PeatWire.encryptedMarker: self = .encrypted(try PeatEncrypted(decoding: bytes))
        case PeatWire.peerE2EEMarker: self = .peerE2EE(try PeatPeerE2EE(decoding: bytes))
        case PeatWire.keyExchangeMarker: self = .keyExchange(try PeatKeyExchange(decoding: bytes))
        case PeatWire.relayEnvelopeMarker: self = .relayEnvelope(try PeatRelayEnvelope(decoding: bytes))
        case PeatWire.deltaDocumentMarker:
            try PeatWire.checkSize(bytes.count, "delta document")
            self = .deltaDocument
        default: self = .document(try PeatDocument(decoding: bytes))
        }
    }

    public init(decoding bytes: [UInt8]) throws(WireError) { try self.init(decoding: bytes[...]) }
}
