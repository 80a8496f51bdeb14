import Foundation
import MeshWire
import Testing
@testable import MeshNode

/// docs/dialects/bitchat.md section 3, one test per rule; every bitchat mutant is shown to
/// deviate here (the dialect has no conformance probe yet).
@Suite struct BitchatNodeTests {
    static let me = address(1)
    static let origin = address(2)
    static let other = address(3)
    /// The default epoch (2025-05-03) in ms: the nodes' clock at Instant.zero.
    static let t0: UInt64 = 1_746_230_400_000

    static func id(_ a: NodeAddress) -> [UInt8] { BitchatEngine.peerID(a) }

    static func packet(from: NodeAddress = origin, to: NodeAddress? = nil, type: BitchatMessageType = .message, ttl: UInt8 = 7,
                       ts: UInt64 = t0, text: String = "hi") -> BitchatPacket {
        BitchatPacket(type: type.rawValue, ttl: ttl, timestamp: ts, senderID: id(from), recipientID: to.map(id), payload: Array(text.utf8))
    }

    static func node(faults: Set<Fault> = [], links: Int = 3, seed: UInt64 = 1) -> Harness {
        var h = Harness(.bitchat, address: me, faults: faults, seed: seed)
        for l in 1...links { h.feed(.linkUp(LinkID(l), peer: nil)) }
        return h
    }

    @Test func relaysOnceWithTTLMinusOneAfterJitterElsewhere() {
        // BITCHAT-R5, R6.4, R3
        var h = Self.node()
        let p = Self.packet().encoded()
        let first = h.feed(.received(p, on: LinkID(1)))
        #expect(first.deliveries.map(\.payload) == [Array("hi".utf8)])   // BITCHAT-R9
        #expect(first.sends.isEmpty)   // jittered
        let out = h.advance(.milliseconds(60)).sends
        #expect(out.map(\.link) == [LinkID(2), LinkID(3)])
        #expect(out.allSatisfy { $0.at >= .milliseconds(10) })
        var expected = p
        expected[2] = 6
        #expect(out[0].bytes == expected)   // byte for byte but the TTL
        h.feed(.received(p, on: LinkID(2)))
        #expect(h.advance(.seconds(1)).isEmpty)   // duplicate: nothing
    }

    @Test func capsTTLAtSevenBeforeDecrementing() {
        // BITCHAT-R5: ttl 200 is relayed as 6, and a capped ttl of 1 is not relayed.
        var h = Self.node()
        h.feed(.received(Self.packet(ttl: 200).encoded(), on: LinkID(1)))
        #expect(h.advance(.seconds(1)).sends.map { $0.bytes[2] } == [6, 6])
        var m = Self.node(faults: [.noTTLCap])
        m.feed(.received(Self.packet(ttl: 200).encoded(), on: LinkID(1)))
        #expect(m.advance(.seconds(1)).sends.map { $0.bytes[2] } == [199, 199])
        var one = Self.node()
        one.feed(.received(Self.packet(ttl: 1).encoded(), on: LinkID(1)))
        #expect(one.advance(.seconds(1)).sends.isEmpty)
    }

    @Test func directedToMeIsDeliveredNotRelayed() {
        // BITCHAT-R6.3
        var h = Self.node()
        let out = h.feed(.received(Self.packet(to: Self.me).encoded(), on: LinkID(1))) + h.advance(.seconds(1))
        #expect(out.deliveries.count == 1 && out.sends.isEmpty)
        // for someone else: relayed, not delivered
        var o = Self.node()
        let other = o.feed(.received(Self.packet(to: Self.other).encoded(), on: LinkID(1))) + o.advance(.seconds(1))
        #expect(other.deliveries.isEmpty && other.sends.count == 2)
    }

    @Test func requestSyncOwnAndStalePacketsAreNotRelayed() {
        // BITCHAT-R6.1, R6.2, R4
        var h = Self.node()
        h.feed(.received(Self.packet(type: .requestSync).encoded(), on: LinkID(1)))
        h.feed(.received(Self.packet(from: Self.me, text: "mine").encoded(), on: LinkID(1)))
        h.feed(.received(Self.packet(ts: Self.t0 + 120_001, text: "future").encoded(), on: LinkID(1)))
        h.feed(.received(Self.packet(ts: Self.t0 - 120_001, text: "past").encoded(), on: LinkID(1)))
        #expect(h.advance(.seconds(1)).isEmpty)
        // 2 minutes exactly is still fresh
        var ok = Self.node()
        ok.feed(.received(Self.packet(ts: Self.t0 + 120_000).encoded(), on: LinkID(1)))
        #expect(ok.advance(.seconds(1)).sends.count == 2)
    }

    @Test func dedupKeyIgnoresTTLAndPaddingButNotPayload() {
        // BITCHAT-R3
        let a = Self.packet(ttl: 7), b = Self.packet(ttl: 3).paddedToBucket(), c = Self.packet(text: "ho")
        #expect(a.dedupKey == b.dedupKey && a.dedupKey != c.dedupKey)
        #expect(a.dedupKey.hasPrefix(Hex.encode(Self.id(Self.origin)) + "-\(Self.t0)-2-"))
    }

    @Test func paddedFramesAreReadRawFirst() {
        // BITCHAT-W7: a payload ending in 0x01 is not cut; the unpad-first mutant cuts it.
        let p = BitchatPacket(type: 2, ttl: 7, timestamp: Self.t0, senderID: Self.id(Self.origin), payload: [0x68, 0x01])
        var h = Self.node()
        #expect(h.feed(.received(p.encoded(), on: LinkID(1))).deliveries.map(\.payload) == [[0x68, 0x01]])
        var m = Self.node(faults: [.unpadFirst])
        #expect(m.feed(.received(p.encoded(), on: LinkID(1))).deliveries.isEmpty)
    }

    static func fragments(of packet: BitchatPacket, id: UInt8 = 9, chunk: Int = 100, from: NodeAddress = origin) -> [[UInt8]] {
        BitchatFragment.split(packet.encoded(), fragmentID: [UInt8](repeating: id, count: 8), originalType: packet.type, chunkSize: chunk)!.map {
            BitchatPacket(type: BitchatMessageType.fragment.rawValue, ttl: 7, timestamp: packet.timestamp, senderID: Self.id(from),
                          payload: $0.encoded()).encoded()
        }
    }

    @Test func reassemblesFragmentsInAnyOrderAndRelaysEach() {
        // BITCHAT-R7, R8
        let big = Self.packet(text: String(repeating: "z", count: 600))
        let frags = Self.fragments(of: big)
        #expect(frags.count == 7)
        var h = Self.node()
        var out: [Harness.Output] = []
        for f in frags.reversed() { out += h.feed(.received(f, on: LinkID(1))) }
        out += h.advance(.seconds(1))
        #expect(out.deliveries.map(\.payload) == [big.payload])
        #expect(out.sends.count == 2 * frags.count)   // every fragment relayed, the whole never
        #expect(h.node.stateSize.reassemblies == 0)
    }

    @Test func reassemblyIsKeyedBySenderAndFragmentID() {
        // BITCHAT-R8.1: two senders using the same fragmentID do not mix.
        let a = Self.packet(from: Self.origin, text: String(repeating: "a", count: 300))
        let b = Self.packet(from: Self.other, text: String(repeating: "b", count: 300))
        let fa = Self.fragments(of: a, from: Self.origin), fb = Self.fragments(of: b, from: Self.other)
        func run(_ faults: Set<Fault>) -> [[UInt8]] {
            var h = Self.node(faults: faults)
            var out: [Harness.Output] = []
            for (x, y) in zip(fa, fb) { out += h.feed(.received(x, on: LinkID(1))) + h.feed(.received(y, on: LinkID(2))) }
            return out.deliveries.map(\.payload).sorted { $0.lexicographicallyPrecedes($1) }
        }
        #expect(run([]) == [a.payload, b.payload])
        #expect(run([.fragmentKeyByID]) != [a.payload, b.payload])
    }

    @Test func incompleteAssembliesExpireAfter30sAndAreCapped() {
        // BITCHAT-R8.2, R8.3
        let big = Self.packet(text: String(repeating: "q", count: 300))
        let frags = Self.fragments(of: big)
        var h = Self.node()
        h.feed(.received(frags[0], on: LinkID(1)))
        h.feed(.received(frags[1], on: LinkID(1)), after: .seconds(31))
        #expect(frags[2...].flatMap { h.feed(.received($0, on: LinkID(1))) }.deliveries.isEmpty)
        var m = Self.node(faults: [.noReassemblyExpiry])
        m.feed(.received(frags[0], on: LinkID(1)))
        m.feed(.received(frags[1], on: LinkID(1)), after: .seconds(31))
        #expect(frags[2...].flatMap { m.feed(.received($0, on: LinkID(1))) }.deliveries.count == 1)
        var c = Self.node()
        for i in 0..<300 {
            let p = Self.packet(text: "\(i)" + String(repeating: "w", count: 300))
            c.feed(.received(Self.fragments(of: p, id: UInt8(i % 200))[0], on: LinkID(1)))
        }
        #expect(c.node.stateSize.reassemblies <= 128)
    }

    @Test func conflictingFragmentsAndSpoofedTypesAreRefused() {
        // BITCHAT-R8.4: an announce whose fragments claim to carry a message is dropped, not
        // delivered as a message (the trust-fragment-type mutant delivers it).
        let announce = Self.packet(type: .announce, text: String(repeating: "n", count: 300))
        let claimed = Self.fragments(of: announce).map { frame -> [UInt8] in
            var p = try! BitchatPacket(decoding: frame)
            var g = try! BitchatFragment(decoding: p.payload)
            g.originalType = BitchatMessageType.message.rawValue
            p.payload = g.encoded()
            return p.encoded()
        }
        func deliveries(_ faults: Set<Fault>) -> Int {
            var h = Self.node(faults: faults)
            return claimed.flatMap { h.feed(.received($0, on: LinkID(1))) }.deliveries.count
        }
        #expect(deliveries([]) == 0)
        #expect(deliveries([.trustFragmentType]) == 1)
        // The app (ignore-fragment-claim) handles it by its own type: an announce, not delivered.
        #expect(deliveries([.ignoreFragmentClaim]) == 0)
        // BITCHAT-R8.5: a later fragment disagreeing on the total is neither stored nor relayed.
        let frags = Self.fragments(of: Self.packet(text: String(repeating: "k", count: 300)))
        var odd = try! BitchatPacket(decoding: frags[1])
        var g = try! BitchatFragment(decoding: odd.payload)
        g.total += 1
        odd.payload = g.encoded()
        var h = Self.node()
        h.feed(.received(frags[0], on: LinkID(1)))
        let out = h.feed(.received(odd.encoded(), on: LinkID(2))) + h.advance(.seconds(1))
        #expect(out.sends.count == 2 && out.sends.allSatisfy { $0.bytes[15...] == frags[0][15...] })
    }

    @Test func originatesFragmentedWhenLargerThanOneValue() {
        // BITCHAT-R2, R7, G3
        var h = Self.node(links: 1)
        let out = h.feed(.command(.send(payload: [UInt8](repeating: 0x41, count: 1200), to: nil)))
        #expect(out.sends.count == 3 && out.sends.allSatisfy { $0.bytes.count <= 512 })
        var r = Harness(.bitchat, address: Self.other)
        r.feed(.linkUp(LinkID(1), peer: nil))
        let got = out.sends.flatMap { r.feed(.received($0.bytes, on: LinkID(1))) }
        #expect(got.deliveries.map(\.payload) == [[UInt8](repeating: 0x41, count: 1200)])
    }

    @Test func stateStaysBoundedUnderFlood() {
        var node = Node(dialect: .bitchat, config: NodeConfig(address: Self.me), seed: 1)
        for l in 1...3 { _ = node.handle(.linkUp(LinkID(l), peer: nil), at: .zero) }
        var peak = 0
        for i in 0..<20_000 {
            let p = Self.packet(ts: Self.t0 + UInt64(i), text: "m\(i)")
            let bytes = i % 2 == 0 ? p.encoded() : Self.fragments(of: Self.packet(ts: Self.t0 + UInt64(i), text: String(repeating: "f", count: 150)),
                                                                   id: UInt8(i % 251))[0]
            _ = node.handle(.received(bytes, on: LinkID(1 + i % 3)), at: .milliseconds(Int64(i)))
            peak = max(peak, node.stateSize.total)
        }
        #expect(peak <= BitchatEngine.dedupCapacity + 1024 + 128 + 3 + 1024)
    }
}
