import Foundation

/// A key `DedupCache` can hold: where in its table the key goes. By default the key's
/// `hashValue`, which runs SipHash (a hasher seeded, fed and finished for every key). The keys
/// a relay node looks up on every reception (a beacon's origin and seqNo, a frame's origin
/// and seq) are bytes already random, so they take `TableHash.mix` instead, a tenth of the
/// work, seeded per process like `Hasher` so that a peer cannot choose keys that collide.
protocol DedupKey: Hashable {
    func tableHash(_ seeds: TableHash.Seeds) -> Int
}

extension DedupKey {
    func tableHash(_ seeds: TableHash.Seeds) -> Int { hashValue }
}

/// A keyed mix of two 64-bit words (wyhash's multiply-and-fold), for `DedupKey.tableHash`. The
/// key, `process`, is drawn once per process; each cache keeps a copy beside its table's mask,
/// as a lazy global is reached through a call (`swift_once`) on every use: 2 % of a large
/// simulation's instructions.
enum TableHash {
    struct Seeds {
        var a: UInt64
        var b: UInt64
    }

    static let process = Seeds(a: UInt64.random(in: .min ... .max) | 1, b: UInt64.random(in: .min ... .max) | 1)

    static func mix(_ a: UInt64, _ b: UInt64, _ seeds: Seeds) -> Int {
        let product = (a ^ seeds.a).multipliedFullWidth(by: b ^ seeds.b)
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
    func tableHash(_ seeds: TableHash.Seeds) -> Int {
        let (a, b) = TableHash.words(self)
        return TableHash.mix(a, b, seeds)
    }
}

extension UInt64: DedupKey {
    func tableHash(_ seeds: TableHash.Seeds) -> Int { TableHash.mix(self, 0, seeds) }
}

extension Int: DedupKey {}
extension String: DedupKey {}
extension Array: DedupKey where Element == UInt8 {}
