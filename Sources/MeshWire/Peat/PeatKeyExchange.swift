import Crypto

/// A per-peer key announcement (peat-btle `KeyExchangeMessage` behind its marker and a
/// reserved byte): `0xB0 | 0x00 | sender u32 LE | flags (bit 0 ephemeral) | X25519 public
/// key[32]`, 39 bytes exactly (peat_mesh.rs:1489-1492, 1589-1594@1793e40f).
public struct PeatKeyExchange: WireFormat, NeutralForm {
    public static let formatID: FormatID = "peat.key-exchange"
    public static let size = 39

    public var sender: UInt32
    public var ephemeral: Bool
    public var publicKey: [UInt8]

    public init(sender: UInt32, ephemeral: Bool, publicKey: [UInt8]) {
        self.sender = sender
        self.ephemeral = ephemeral
        self.publicKey = publicKey
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        var r = ByteReader(bytes)
        try PeatWire.marker(&r, PeatWire.keyExchangeMarker, "key exchange")
        try PeatWire.reserved(try r.readU8(), "key exchange")
        sender = try PeatWire.nonZeroNode(try r.readU32LE(), "key exchange sender")
        ephemeral = try PeatWire.flags(try r.readU8(), defined: 0x01, "key exchange flags") == 0x01
        publicKey = Array(try r.readBytes(32))
        try r.expectEnd()
        try Self.checkPoint(publicKey)
    }

    /// A low-order point gives an all-zero shared secret that anyone can compute (RFC 7748
    /// section 6.1); peat-btle does not check, a conforming node refuses the key (PEAT-W7).
    static func checkPoint(_ key: [UInt8]) throws(WireError) {
        guard key.count == 32 else { throw WireError(.badKey, "X25519 public key is \(key.count) bytes, must be 32") }
        guard let probe = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: probeScalar),
              let point = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: key),
              let secret = try? probe.sharedSecretFromKeyAgreement(with: point),
              secret.withUnsafeBytes({ $0.contains { $0 != 0 } })
        else { throw WireError(.badKey, "X25519 public key is a low-order point") }
    }

    /// Any fixed scalar: a point is low-order exactly when every (clamped) scalar sends it to zero.
    private static let probeScalar = [UInt8](repeating: 0x5A, count: 32)

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Self.size)
        w.writeU8(PeatWire.keyExchangeMarker)
        w.writeU8(0)
        w.writeU32LE(sender)
        w.writeU8(ephemeral ? 1 : 0)
        w.write(publicKey)
        return w.bytes
    }

    public init(neutral: JSONValue) throws(WireError) {
        let f = try JSONFields(neutral, context: "KeyExchange")
        self.init(sender: try f.peatNode("sender"), ephemeral: try f.bool("ephemeral"), publicKey: try f.hex("publicKey"))
        _ = try PeatKeyExchange(decoding: encoded())
    }

    public var neutral: JSONValue {
        .object([("sender", .integer(sender)), ("ephemeral", .bool(ephemeral)), ("publicKey", .hex(publicKey))])
    }
}
