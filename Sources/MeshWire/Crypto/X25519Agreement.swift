import Crypto

/// X25519 between two raw 32-byte keys, refusing what every dialect must refuse: keys of the
/// wrong size, and a low-order peer key, whose all-zero shared secret anyone can compute
/// (RFC 7748 section 6.1; swift-crypto does not refuse it).
enum X25519Agreement {
    static func sharedSecret(privateKey: [UInt8], peerPublicKey: [UInt8]) throws(WireError) -> SharedSecret {
        let secret: SharedSecret
        do {
            let mine = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKey)
            let theirs = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: peerPublicKey)
            secret = try mine.sharedSecretFromKeyAgreement(with: theirs)
        } catch {
            throw WireError(.badKey, "X25519 keys must be 32 bytes")
        }
        guard secret.withUnsafeBytes({ $0.contains { $0 != 0 } }) else {
            throw WireError(.badKey, "peer public key is a low-order point (all-zero shared secret)")
        }
        return secret
    }
}
