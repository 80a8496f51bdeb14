/// bitchat's `MessageType` byte. Packets of other types decode (the type stays a number);
/// nodes relay or ignore them by the rules in docs/dialects/bitchat.md.
public enum BitchatMessageType: UInt8, Sendable, CaseIterable {
    case announce = 0x01
    case message = 0x02
    case leave = 0x03
    case courierEnvelope = 0x04
    case noiseHandshake = 0x10
    case noiseEncrypted = 0x11
    case fragment = 0x20
    case requestSync = 0x21
    case fileTransfer = 0x22
    case boardPost = 0x23
    case prekeyBundle = 0x24
    case groupMessage = 0x25
    case ping = 0x26
    case pong = 0x27
    case nostrCarrier = 0x28
    case voiceFrame = 0x29
    case announceV2 = 0x2C
}
