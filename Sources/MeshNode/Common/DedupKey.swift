import Foundation

/// A key `DedupCache` can hold: where in its table the key goes. By default the key's
/// `hashValue`, which runs SipHash (a hasher seeded, fed and finished for every key). The keys
/// a relay node looks up on every reception (a beacon's origin and seqNo, a frame's origin
/// and seq) are bytes already random, so they take `TableHash.mix` instead, a tenth of the
/// work, seeded per process like `Hasher` so that a peer cannot choose keys that collide.
protocol DedupKey: Hashable {
    var tableHash: Int { get }
}

extension DedupKey {
    var tableHash: Int { hashValue }
}

/// A keyed mix of two 64-bit words (wyhash's multiply-and-fold), for `DedupKey.tableHash`.
enum TableHash {
    private static let seeds = (UInt64.random(in: .min ... .max) | 1, UInt64.random(in: .min ... .max) | 1)

    static func mix(_ a: UInt64, _ b: UInt64) -> Int {
        let product = (a ^ seeds.0).multipliedFullWidth(by: b ^ seeds.1)
        return Int(truncatingIfNeeded: product.high ^ product.low)
    }

    /// A UUID's 16 bytes as two words, each read little-endian (as `UUIDText.words` reads them
    /// from text, so that a key's hash can be had from a packet's text before it is decoded).
    static func words(_ uuid: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: uuid.uuid) {
            (UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)), UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }
}

extension UUID: DedupKey {
    var tableHash: Int {
        let (a, b) = TableHash.words(self)
        return TableHash.mix(a, b)
    }
}

extension UInt64: DedupKey {
    var tableHash: Int { TableHash.mix(self, 0) }
}

extension Int: DedupKey {}
extension String: DedupKey {}
extension Array: DedupKey where Element == UInt8 {}
