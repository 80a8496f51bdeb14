import Foundation
import MeshWire
import Testing
@testable import MeshNode

/// The relay node's loads ahead (`RelayEngine.prefetch(for:)`) place a beacon's key in its
/// caches from the packet's text, before the packet is decoded. Their hash must be the one the
/// caches compute from the decoded key: otherwise every load ahead is wasted, and nothing else
/// would notice (the counts stay the same, only slower).
@Suite struct RelayLoadsAheadTests {
    @Test func aBeaconsHintHashesAsItsKeys() throws {
        var rng = SeededRandom(seed: 11)
        for i in 0..<500 {
            let origin = UUID(uuid: withUnsafeBytes(of: (rng.next(), rng.next())) { $0.load(as: uuid_t.self) })
            let beacon = Beacon(origin: origin, seqNo: UInt32(truncatingIfNeeded: rng.next()), ttl: UInt8(i % 9), hop: UInt8(i % 256))
            let packet = RelayPacket.beacon(beacon).encoded()
            let hint = try #require(packet.withUnsafeBufferPointer(RelayPacket.beaconKeyHint))
            let seen = RelayEngine.SeenKey.beacon(origin: origin, seqNo: beacon.seqNo)
            let seeds = TableHash.process
            #expect(RelayEngine.SeenKey.beaconHash(origin: hint.origin, seqNo: hint.seqNo, seeds) == seen.tableHash(seeds))
            #expect(TableHash.mix(hint.origin.0, hint.origin.1, seeds) == origin.tableHash(seeds))
        }
    }
}
