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

extension RelayLoadsAheadTests {
    /// The timer id a packet's load ahead names is the one the relay of a new beacon then
    /// sets (the simulator loads its record of that timer on this word alone).
    @Test func aNewBeaconsRelayTakesTheTimerItsLoadAheadNamed() throws {
        var node = Node(dialect: .relay, config: NodeConfig(address: NodeAddress(UUID())), seed: 3)
        for link in 0..<3 { _ = node.handle(.linkUp(LinkID(link), peer: NodeAddress(UUID())), at: .zero) }
        for seqNo in UInt32(1)...5 {
            let packet = RelayPacket.beacon(Beacon(origin: UUID(), seqNo: seqNo, ttl: 8, hop: 1)).encoded()
            let named = try #require(packet.withUnsafeBufferPointer { node.prefetch(for: .packet($0)) })
            let actions = node.handle(.received(packet, on: LinkID(0)), at: Instant(nanoseconds: Int64(seqNo) * 1_000_000))
            let set = actions.compactMap { action -> TimerID? in if case .setTimer(let id, _) = action { id } else { nil } }
            #expect(set == [named])
        }
    }
}
