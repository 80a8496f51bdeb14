import Foundation
import MeshWire
import Testing
@testable import MeshNode

/// Every mutant differs from the reference on a scenario touching its rule; same seed, same
/// actions; state stays bounded under a flood of distinct messages.
@Suite struct MutantAndBoundTests {
    /// Exercises relay, dedup, TTL, split horizon, acks and robustness for one dialect.
    static func scenario(_ dialect: DialectName, faults: Set<Fault> = [], seed: UInt64 = 1) -> [Harness.Output] {
        switch dialect {
        case .relay:
            var h = RelayNodeTests.node(faults: faults, seed: seed)
            let me = RelayNodeTests.me, o = RelayNodeTests.origin, other = RelayNodeTests.other
            h.feed(.received(RelayNodeTests.frame(from: o, to: other, ttl: 8, seq: 1), on: LinkID(1)))
            h.feed(.received(RelayNodeTests.frame(from: o, to: other, ttl: 8, seq: 1), on: LinkID(2)), after: .milliseconds(200))
            h.feed(.received(RelayNodeTests.frame(from: o, to: other, ttl: 1, seq: 2), on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(RelayNodeTests.frame(from: o, to: me, ttl: 8, seq: 3), on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(RelayNodeTests.frame(from: o, to: me, ttl: 8, seq: 3), on: LinkID(2)), after: .milliseconds(200))
            h.feed(.received([0x46, 0x00], on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(RelayNodeTests.frame(from: o, to: other, ttl: 8, seq: 4), on: LinkID(1)), after: .milliseconds(200))
            h.advance(.seconds(1))
            return h.outputs
        case .blemesh:
            typealias T = BLEMeshNodeTests
            var h = T.node(faults: faults, seed: seed)
            let broadcast = T.envelope(id: 1, from: T.x, to: nil, ttl: 3, hopPath: [T.x, T.b, T.a])
            _ = T.feed(&h, broadcast, on: 1)
            h.advance(.milliseconds(200))
            _ = T.feed(&h, broadcast, on: 2)
            _ = T.feed(&h, T.envelope(id: 2, from: T.x, to: nil, ttl: 1, hopPath: [T.x]), on: 1)
            let direct = T.envelope(id: 3, from: T.x, to: T.me, ttl: 3, hopPath: [T.x, T.a])
            _ = T.feed(&h, direct, on: 1)
            _ = T.feed(&h, direct, on: 2)
            h.advance(.milliseconds(200))
            h.feed(.received(Array("{\"messageID\"".utf8), on: LinkID(1)))
            _ = T.feed(&h, T.envelope(id: 4, from: T.x, to: nil, ttl: 3, hopPath: [T.x]), on: 1)
            h.advance(.seconds(1))
            return h.outputs
        case .bitchat:
            typealias T = BitchatNodeTests
            var h = T.node(faults: faults, seed: seed)
            let broadcast = T.packet(ttl: 7, text: "one").encoded()
            h.feed(.received(broadcast, on: LinkID(1)))
            h.feed(.received(broadcast, on: LinkID(2)), after: .milliseconds(200))
            h.feed(.received(T.packet(ttl: 1, text: "two").encoded(), on: LinkID(1)), after: .milliseconds(200))
            let direct = T.packet(to: T.me, text: "three").encoded()
            h.feed(.received(direct, on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(direct, on: LinkID(2)), after: .milliseconds(200))
            h.feed(.received(Array(broadcast.prefix(20)), on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(T.packet(ttl: 7, text: "four").encoded(), on: LinkID(1)), after: .milliseconds(200))
            h.advance(.seconds(1))
            return h.outputs
        case .simple:
            typealias T = SimpleNodeTests
            var h = T.node(faults: faults, seed: seed)
            let m = T.message(id: "one", ttl: 5)
            h.feed(.received(m, on: LinkID(1)))
            h.feed(.received(m, on: LinkID(2)), after: .milliseconds(200))
            h.feed(.received(T.message(id: "two", ttl: 1), on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(Array(m.prefix(20)), on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(T.message(id: "four", ttl: 5), on: LinkID(1)), after: .milliseconds(200))
            h.advance(.seconds(1))
            return h.outputs
        case .camp:
            typealias T = CampNodeTests
            var h = T.node(faults: faults, seed: seed)
            let broadcast = T.message(1).encoded()
            h.feed(.received(broadcast, on: LinkID(1)))
            h.feed(.received(broadcast, on: LinkID(2)), after: .milliseconds(200))
            let direct = T.message(3, to: T.myID).encoded()
            h.feed(.received(direct, on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(direct, on: LinkID(2)), after: .milliseconds(200))
            h.feed(.received(Array(broadcast.prefix(20)), on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(T.message(4).encoded(), on: LinkID(1)), after: .milliseconds(200))
            h.advance(.seconds(1))
            return h.outputs
        case .peat:
            typealias T = PeatNodeTests
            var h = T.node(faults: faults, seed: seed)
            let e = T.envelope(id: 1, hop: 3).encoded()
            h.feed(.received(e, on: LinkID(1)))
            h.feed(.received(e, on: LinkID(2)), after: .milliseconds(200))
            h.feed(.received(T.envelope(id: 2, hop: 7).encoded(), on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(T.document(emergency: T.emergency([(T.origin, true)])), on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(Array(e.prefix(20)), on: LinkID(1)), after: .milliseconds(200))
            h.feed(.received(T.envelope(id: 4, hop: 0, maxHops: 12).encoded(), on: LinkID(1)), after: .milliseconds(200))
            h.advance(.seconds(1))
            return h.outputs
        }
    }

    /// The mutants this scenario exercises. Every mutant, these and the later ones, is shown
    /// to FAIL at least one conformance check of each dialect it applies to by
    /// ConformanceTests/MutantCoverageTests, which is the stronger proof.
    static let scenarioFaults: [Fault] = [.noDedup, .noTTLDecrement, .relayTTLOne, .relayToSender, .ignoreHopPath, .noAck,
                                          .ackBroadcast, .ackWrongID, .doubleDeliver, .noJitter, .crashOnTruncated]

    static let applicable: [(DialectName, Fault)] = DialectName.allCases.flatMap { d in
        scenarioFaults.filter { $0.dialects.contains(d) }.map { (d, $0) }
    }

    @Test(arguments: applicable)
    func mutantDiffersFromReference(_ dialect: DialectName, _ fault: Fault) {
        let reference = Self.scenario(dialect)
        let mutant = Self.scenario(dialect, faults: [fault])
        #expect(reference != mutant, "\(fault.rawValue) behaves like the reference on \(dialect)")
    }

    @Test(arguments: DialectName.allCases)
    func sameSeedSameActions(_ dialect: DialectName) {
        #expect(Self.scenario(dialect, seed: 7) == Self.scenario(dialect, seed: 7))
        #expect(Self.scenario(dialect, seed: 7) != Self.scenario(dialect, seed: 8))   // jitter draws differ
    }

    @Test func dedupCacheEvictsOldestAndExpires() {
        var cache = DedupCache<Int, Void>(capacity: 3, retention: .seconds(300))
        for k in 1...4 {
            let fresh = cache.insert(k, at: .zero)
            #expect(fresh)
        }
        #expect(!cache.contains(1, at: .zero) && cache.contains(4, at: .zero))
        let again = cache.insert(4, at: .seconds(10))
        #expect(!again)
        let later = cache.insert(4, at: .seconds(301))
        #expect(later)   // forgotten after the retention window
        #expect(cache.footprint <= 3)
    }

    /// The mutant `evict-arbitrary` (camp app row 2): still bounded, but past the capacity it
    /// forgets ids anywhere in the cache, recent ones included, where the reference forgets
    /// exactly the oldest.
    @Test func arbitraryEvictionForgetsRecentIdsTheReferenceKeeps() {
        var oldest = DedupCache<Int, Void>(capacity: 100, retention: .seconds(300))
        var arbitrary = DedupCache<Int, Void>(capacity: 100, retention: .seconds(300), eviction: .arbitrary)
        for k in 0..<150 {
            oldest.insert(k, at: .zero)
            arbitrary.insert(k, at: .zero)
        }
        #expect(oldest.count == 100 && arbitrary.count == 100 && arbitrary.footprint <= 100)
        #expect((50..<150).allSatisfy { oldest.contains($0, at: .zero) } && !oldest.contains(49, at: .zero))
        let forgottenRecent = (50..<150).filter { !arbitrary.contains($0, at: .zero) }
        #expect(!forgottenRecent.isEmpty && (0..<50).contains { arbitrary.contains($0, at: .zero) })
    }

    /// RELAY-R3 / BLEMESH-R4/R5 bounds: debug builds are slow, so 100,000 messages per dialect
    /// (release-mode speed is not available under swift test); the bound never moves.
    @Test func relayStateStaysBoundedUnderFlood() {
        var node = Node(dialect: .relay, config: NodeConfig(address: RelayNodeTests.me), seed: 1)
        for l in 1...3 { _ = node.handle(.linkUp(LinkID(l), peer: nil), at: .zero) }
        let origin = RelayNodeTests.origin.uuid!, dest = RelayNodeTests.other.uuid!
        let body = [UInt8](repeating: 0, count: 28)
        var peak = 0
        for i in 0..<100_000 {
            let packet = RelayPacket.frame(FrameHeader(origin: origin, dest: dest, ttl: 8, seq: UInt64(i)), body: body).encoded()
            _ = node.handle(.received(packet, on: LinkID(1 + i % 3)), at: .milliseconds(Int64(i)))
            peak = max(peak, node.stateSize.total)
        }
        #expect(peak < 20_000)
    }

    @Test func blemeshStateStaysBoundedUnderFlood() {
        var node = Node(dialect: .blemesh, config: NodeConfig(address: BLEMeshNodeTests.me), seed: 1)
        for l in 1...3 { _ = node.handle(.linkUp(LinkID(l), peer: nil), at: .zero) }
        var peak = 0
        var rng = SeededRandom(seed: 3)
        for i in 0..<30_000 {
            // Alternate complete one-chunk envelopes with first chunks of never-finished ones.
            let chunk: [UInt8]
            if i % 2 == 0 {
                let e = BLEMeshNodeTests.envelope(from: BLEMeshNodeTests.x, to: nil, ttl: 3, hopPath: [BLEMeshNodeTests.x], seq: UInt64(i))
                var c = Chunker.chunks(of: e)[0]
                c.messageID = rng.uuid()
                var copy = e
                copy.id = c.messageID
                chunk = Chunker.chunks(of: copy)[0].encoded()
            } else {
                chunk = MessageChunk(messageID: rng.uuid(), chunkIndex: 0, totalChunks: 5, flags: .first, payload: [1, 2, 3]).encoded()
            }
            _ = node.handle(.received(chunk, on: LinkID(1 + i % 3)), at: .milliseconds(Int64(i)))
            peak = max(peak, node.stateSize.total)
        }
        #expect(peak < 20_000)
    }
}
