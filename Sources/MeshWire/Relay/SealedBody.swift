import Crypto
import Foundation

/// A sealed frame body: ChaCha20-Poly1305 `combined` form, `nonce(12) | ciphertext | tag(16)`.
///
/// No associated data: SwiftMeshRelay does not bind the header to the body, so a relay can
/// rewrite TTL (and anyone can rewrite origin or dest) without breaking the seal.
public struct SealedBody: WireFormat {
    public static let formatID: FormatID = "relay.sealed"
    public static let nonceSize = 12
    public static let tagSize = 16
    public static let minimumSize = nonceSize + tagSize

    public var nonce: [UInt8]
    public var ciphertext: [UInt8]
    public var tag: [UInt8]

    public init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) {
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.tag = tag
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        guard bytes.count >= Self.minimumSize else {
            throw WireError(.truncated, "sealed body is \(bytes.count) byte(s), at least \(Self.minimumSize) needed")
        }
        var r = ByteReader(bytes)
        nonce = Array(try r.readBytes(Self.nonceSize))
        ciphertext = Array(try r.readBytes(r.remaining - Self.tagSize))
        tag = Array(r.readRest())
    }

    public func encoded() -> [UInt8] { nonce + ciphertext + tag }

    /// Seals with a caller-chosen nonce: the caller owns randomness (a node draws it from its
    /// seeded generator, a vector fixes it), so this stays deterministic.
    public static func seal(_ plaintext: [UInt8], key: SessionKey, nonce: [UInt8]) throws(WireError) -> SealedBody {
        do {
            let box = try ChaChaPoly.seal(plaintext, using: key.key, nonce: ChaChaPoly.Nonce(data: nonce))
            return SealedBody(nonce: nonce, ciphertext: Array(box.ciphertext), tag: Array(box.tag))
        } catch {
            throw WireError(.lengthMismatch, "nonce must be \(nonceSize) bytes, got \(nonce.count)")
        }
    }

    public func open(key: SessionKey) throws(WireError) -> [UInt8] {
        do {
            let box = try ChaChaPoly.SealedBox(combined: encoded())
            return Array(try ChaChaPoly.open(box, using: key.key))
        } catch {
            throw WireError(.authenticationFailed, "ChaCha20-Poly1305 tag does not verify")
        }
    }
}

/// The symmetric key two relay nodes share: HKDF-SHA256 over their X25519 shared secret,
/// empty salt, empty info, 32 bytes. The same key seals both directions.
public struct SessionKey: Sendable {
    /// The raw 32 key bytes (kept as bytes: `SymmetricKey` is not Sendable).
    public let bytes: [UInt8]
    var key: SymmetricKey { SymmetricKey(data: bytes) }

    public init(privateKey: [UInt8], peerPublicKey: [UInt8]) throws(WireError) {
        let secret = try X25519Agreement.sharedSecret(privateKey: privateKey, peerPublicKey: peerPublicKey)
        let key = secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: Data(), sharedInfo: Data(), outputByteCount: 32)
        bytes = key.withUnsafeBytes { Array($0) }
    }
}

/// A relay node's identity: an X25519 key pair whose public key names the node.
public struct RelayIdentity: Sendable {
    public let privateKey: [UInt8]
    public let publicKey: [UInt8]

    public init(privateKey: [UInt8]) throws(WireError) {
        guard let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKey) else {
            throw WireError(.badKey, "X25519 private key must be 32 bytes")
        }
        self.privateKey = privateKey
        self.publicKey = Array(key.publicKey.rawRepresentation)
    }

    public var nodeID: UUID { Self.nodeID(publicKey: publicKey) }

    /// The first 16 bytes of SHA-256(public key), used as a UUID as is (no RFC 4122 version bits).
    public static func nodeID(publicKey: [UInt8]) -> UUID {
        let d = Array(SHA256.hash(data: publicKey))
        return UUID(uuid: (d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7],
                           d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15]))
    }
}

extension SealedBody {
    /// Decodes with optional keys (the vector `context`): with them the body is opened too.
    public static func neutral(decoding bytes: [UInt8], context: JSONValue?) throws(WireError) -> JSONValue {
        let body = try SealedBody(decoding: bytes)
        var members: [(String, JSONValue)] = [("nonce", .hex(body.nonce)), ("ciphertext", .hex(body.ciphertext)), ("tag", .hex(body.tag))]
        if let key = try sessionKey(context) {
            members.append(("plaintext", .hex(try body.open(key: key))))
        }
        return .object(members)
    }

    /// Encodes a neutral form; with keys and a plaintext it seals (and so recomputes the
    /// ciphertext and tag), without keys it joins the given parts.
    public static func encoded(neutral: JSONValue, context: JSONValue?) throws(WireError) -> [UInt8] {
        let f = try JSONFields(neutral, context: "SealedBody")
        let nonce = try f.hex("nonce")
        if let key = try sessionKey(context), let plaintext = try f.optionalHex("plaintext") {
            return try seal(plaintext, key: key, nonce: nonce).encoded()
        }
        return SealedBody(nonce: nonce, ciphertext: try f.hex("ciphertext"), tag: try f.hex("tag")).encoded()
    }

    private static func sessionKey(_ context: JSONValue?) throws(WireError) -> SessionKey? {
        guard let context else { return nil }
        let f = try JSONFields(context, context: "context")
        return try SessionKey(privateKey: f.hex("privateKey"), peerPublicKey: f.hex("peerPublicKey"))
    }
}
