import Crypto
import Foundation

/// A message only its recipient can open (peat-btle per-peer E2EE):
/// `0xAF | flags | recipient u32 LE | sender u32 LE | counter u64 LE | nonce[12] | ciphertext | tag[16]`.
/// Flags: bit 0 key_exchange, bit 1 forward_secrecy. At least 46 bytes, which is how a receiver
/// tells it from the 22-byte canned message another peat crate sends under the same 0xAF (PEAT-W1).
public struct PeatPeerE2EE: WireFormat {
    public static let formatID: FormatID = "peat.peer-e2ee"
    public static let minimumSize = 1 + 1 + 4 + 4 + 8 + 12 + 16

    public var keyExchange: Bool
    public var forwardSecrecy: Bool
    public var recipient: UInt32
    public var sender: UInt32
    /// Replay counter: a receiver accepts each (sender, counter) once (PEAT-R8).
    public var counter: UInt64
    public var nonce: [UInt8]
    public var sealed: [UInt8]

    public init(keyExchange: Bool = false, forwardSecrecy: Bool = false, recipient: UInt32, sender: UInt32,
                counter: UInt64, nonce: [UInt8], sealed: [UInt8]) {
        self.keyExchange = keyExchange
        self.forwardSecrecy = forwardSecrecy
        self.recipient = recipient
        self.sender = sender
        self.counter = counter
        self.nonce = nonce
        self.sealed = sealed
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try PeatWire.checkSize(bytes.count, "peer E2EE message")
        var r = ByteReader(bytes)
        try PeatWire.marker(&r, PeatWire.peerE2EEMarker, "peer E2EE message")
        guard bytes.count >= Self.minimumSize else {
            throw WireError(.truncated, "peer E2EE message is \(bytes.count) byte(s), at least \(Self.minimumSize) needed")
        }
        let flags = try PeatWire.flags(try r.readU8(), defined: 0x03, "peer E2EE flags")
        keyExchange = flags & 0x01 != 0
        forwardSecrecy = flags & 0x02 != 0
        recipient = try PeatWire.nonZeroNode(try r.readU32LE(), "peer E2EE recipient")
        sender = try PeatWire.nonZeroNode(try r.readU32LE(), "peer E2EE sender")
        guard sender != recipient else { throw WireError(.valueOutOfRange, "peer E2EE sender and recipient are both \(sender)") }
        counter = try r.readU64LE()
        nonce = Array(try r.readBytes(12))
        sealed = Array(r.readRest())
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: Self.minimumSize + sealed.count)
        w.writeU8(PeatWire.peerE2EEMarker)
        w.writeU8((keyExchange ? 0x01 : 0) | (forwardSecrecy ? 0x02 : 0))
        w.writeU32LE(recipient)
        w.writeU32LE(sender)
        w.writeU64LE(counter)
        w.write(nonce)
        w.write(sealed)
        return w.bytes
    }

    public func open(privateKey: [UInt8], peerPublicKey: [UInt8]) throws(WireError) -> [UInt8] {
        let key = try PeatPeerKey(privateKey: privateKey, peerPublicKey: peerPublicKey, nodes: (sender, recipient))
        return try PeatAEAD.open(nonce: nonce, sealed: sealed, key: key.bytes)
    }

    // MARK: neutral form; context {"privateKey": hex, "peerPublicKey": hex} of either end

    public static func neutral(decoding bytes: [UInt8], context: JSONValue?) throws(WireError) -> JSONValue {
        let v = try PeatPeerE2EE(decoding: bytes)
        var m: [(String, JSONValue)] = [("keyExchange", .bool(v.keyExchange)), ("forwardSecrecy", .bool(v.forwardSecrecy)),
                                        ("recipient", .integer(v.recipient)), ("sender", .integer(v.sender)),
                                        ("counter", .uint64Text(v.counter)), ("nonce", .hex(v.nonce)), ("ciphertext", .hex(v.sealed))]
        if let (priv, pub) = try keys(context) { m.append(("plaintext", .hex(try v.open(privateKey: priv, peerPublicKey: pub)))) }
        return .object(m)
    }

    public static func encoded(neutral: JSONValue, context: JSONValue?) throws(WireError) -> [UInt8] {
        let f = try JSONFields(neutral, context: "PeerE2EE")
        var v = PeatPeerE2EE(keyExchange: try f.bool("keyExchange"), forwardSecrecy: try f.bool("forwardSecrecy"),
                             recipient: try f.peatNode("recipient"), sender: try f.peatNode("sender"),
                             counter: try f.uint64Text("counter"), nonce: try f.hex("nonce"), sealed: [])
        if let (priv, pub) = try keys(context), let plaintext = try f.optionalHex("plaintext") {
            let key = try PeatPeerKey(privateKey: priv, peerPublicKey: pub, nodes: (v.sender, v.recipient))
            v.sealed = try PeatAEAD.seal(plaintext, key: key.bytes, nonce: v.nonce)
        } else {
            v.sealed = try f.hex("ciphertext")
        }
        guard v.nonce.count == 12 else { throw WireError(.lengthMismatch, "PeerE2EE.nonce is \(v.nonce.count) bytes, must be 12") }
        let bytes = v.encoded()
        _ = try PeatPeerE2EE(decoding: bytes)
        return bytes
    }

    private static func keys(_ context: JSONValue?) throws(WireError) -> ([UInt8], [UInt8])? {
        guard let context else { return nil }
        let f = try JSONFields(context, context: "context")
        return (try f.hex("privateKey"), try f.hex("peerPublicKey"))
    }
}

/// The key two peers share: HKDF-SHA256(IKM = X25519(own private, peer public), salt = the two
/// node ids as u32 LE, smaller first, info = "PEAT-peer-e2ee-v1", L = 32). Sorting the ids makes
/// the key the same in both directions.
public struct PeatPeerKey: Sendable {
    public static let info = Array("PEAT-peer-e2ee-v1".utf8)
    public let bytes: [UInt8]

    public init(privateKey: [UInt8], peerPublicKey: [UInt8], nodes: (UInt32, UInt32)) throws(WireError) {
        let secret = try X25519Agreement.sharedSecret(privateKey: privateKey, peerPublicKey: peerPublicKey)
        var salt = ByteWriter(capacity: 8)
        salt.writeU32LE(min(nodes.0, nodes.1))
        salt.writeU32LE(max(nodes.0, nodes.1))
        let key = secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt.bytes, sharedInfo: Self.info, outputByteCount: 32)
        bytes = key.withUnsafeBytes { Array($0) }
    }
}
