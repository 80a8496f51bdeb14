import Crypto
import Foundation

/// A mesh-wide encrypted document: `0xAE | 0x00 | nonce[12] | ciphertext | tag[16]`, sealed with
/// ChaCha20-Poly1305 under the mesh key (PEAT-W6), no associated data. The plaintext is a
/// `peat.document`.
public struct PeatEncrypted: WireFormat {
    public static let formatID: FormatID = "peat.encrypted"
    public static let minimumSize = 2 + 12 + 16

    public var nonce: [UInt8]
    /// Ciphertext followed by the 16-byte tag, as peat-btle keeps them.
    public var sealed: [UInt8]

    public init(nonce: [UInt8], sealed: [UInt8]) {
        self.nonce = nonce
        self.sealed = sealed
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        try PeatWire.checkSize(bytes.count, "encrypted document")
        var r = ByteReader(bytes)
        try PeatWire.marker(&r, PeatWire.encryptedMarker, "encrypted document")
        try PeatWire.reserved(try r.readU8(), "encrypted document")
        guard r.remaining >= 28 else {
            throw WireError(.truncated, "encrypted document has \(r.remaining) byte(s) after its marker, at least 28 (nonce + tag) needed")
        }
        nonce = Array(try r.readBytes(12))
        sealed = Array(r.readRest())
    }

    public func encoded() -> [UInt8] { [PeatWire.encryptedMarker, 0] + nonce + sealed }

    public static func seal(_ plaintext: [UInt8], key: PeatMeshKey, nonce: [UInt8]) throws(WireError) -> PeatEncrypted {
        PeatEncrypted(nonce: nonce, sealed: try PeatAEAD.seal(plaintext, key: key.bytes, nonce: nonce))
    }

    public func open(key: PeatMeshKey) throws(WireError) -> [UInt8] {
        try PeatAEAD.open(nonce: nonce, sealed: sealed, key: key.bytes)
    }

    // MARK: neutral form, with the key from the vector's or the CLI's context

    public static func neutral(decoding bytes: [UInt8], context: JSONValue?) throws(WireError) -> JSONValue {
        let value = try PeatEncrypted(decoding: bytes)
        var m: [(String, JSONValue)] = [("nonce", .hex(value.nonce)), ("ciphertext", .hex(value.sealed))]
        if let key = try PeatMeshKey(context: context) { m.append(("plaintext", .hex(try value.open(key: key)))) }
        return .object(m)
    }

    public static func encoded(neutral: JSONValue, context: JSONValue?) throws(WireError) -> [UInt8] {
        let f = try JSONFields(neutral, context: "Encrypted")
        let nonce = try f.hex("nonce")
        let value: PeatEncrypted
        if let key = try PeatMeshKey(context: context), let plaintext = try f.optionalHex("plaintext") {
            value = try seal(plaintext, key: key, nonce: nonce)
        } else {
            value = PeatEncrypted(nonce: nonce, sealed: try f.hex("ciphertext"))
        }
        let bytes = value.encoded()
        _ = try PeatEncrypted(decoding: bytes)
        return bytes
    }
}

/// The key every member of a mesh shares: HKDF-SHA256(IKM = the 32-byte formation secret,
/// salt = the mesh id's UTF-8 bytes, info = "PEAT-BTLE-mesh-encryption-v1", L = 32).
public struct PeatMeshKey: Sendable {
    public static let info = Array("PEAT-BTLE-mesh-encryption-v1".utf8)
    public let bytes: [UInt8]

    public init(meshID: String, secret: [UInt8]) throws(WireError) {
        guard secret.count == 32 else { throw WireError(.badKey, "mesh secret is \(secret.count) bytes, must be 32") }
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: Array(meshID.utf8),
                                         info: Self.info, outputByteCount: 32)
        bytes = key.withUnsafeBytes { Array($0) }
    }

    /// `{"meshId": "DEMO", "secret": "<64 hex>"}`, or nil without a context.
    init?(context: JSONValue?) throws(WireError) {
        guard let context else { return nil }
        let f = try JSONFields(context, context: "context")
        try self.init(meshID: try f.string("meshId"), secret: try f.hex("secret"))
    }
}

/// ChaCha20-Poly1305 as peat-btle uses it: 12-byte nonce, ciphertext with the tag appended, no AAD.
enum PeatAEAD {
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) throws(WireError) -> [UInt8] {
        do {
            let box = try ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), nonce: ChaChaPoly.Nonce(data: nonce))
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw WireError(.lengthMismatch, "nonce must be 12 bytes, got \(nonce.count)")
        }
    }

    static func open(nonce: [UInt8], sealed: [UInt8], key: [UInt8]) throws(WireError) -> [UInt8] {
        do {
            let box = try ChaChaPoly.SealedBox(combined: nonce + sealed)
            return Array(try ChaChaPoly.open(box, using: SymmetricKey(data: key)))
        } catch {
            throw WireError(.authenticationFailed, "ChaCha20-Poly1305 tag does not verify")
        }
    }
}
