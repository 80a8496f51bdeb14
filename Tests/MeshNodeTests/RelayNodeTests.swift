import Foundation
import MeshWire
import Testing
@testable import MeshNode

/// docs/dialects/relay.md section 3, one test per rule.
@Suite struct RelayNodeTests {
    static let me = address(1)
    static let origin = address(2)
    static let other = address(3)

    static func frame(from origin: NodeAddress, to dest: NodeAddress, ttl: UInt8, seq: UInt64, text: String = "hi") -> [UInt8] {
        let key = try! SessionKey(privateKey: RelaySimulationKeys.privateKey(for: origin), peerPublicKey: RelaySimulationKeys.identity(for: dest).publicKey)
        let body = try! SealedBody.seal(Array(text.utf8), key: key, nonce: [UInt8](repeating: 7, count: 12))
        return RelayPacket.frame(FrameHeader(origin: origin.uuid!, dest: dest.uuid!, ttl: ttl, seq: seq), body: body.encoded()).encoded()
    }

    static func node(faults: Set<Fault> = [], links: Int = 3, seed: UInt64 = 1) -> Harness {
        var h = Harness(.relay, address: me, faults: faults, seed: seed)
        for l in 1...links { h.feed(.linkUp(LinkID(l), peer: nil)) }
        return h
    }

    static func decode(_ bytes: [UInt8]) -> RelayPacket { try! RelayPacket(decoding: bytes) }

    @Test func relaysOnceWithTTLMinusOneOnEveryLinkButIngress() {
        // RELAY-R5.3, RELAY-R6
        var h = Self.node()
        let f = Self.frame(from: Self.origin, to: Self.other, ttl: 8, seq: 42)
        #expect(h.feed(.received(f, on: LinkID(1))).sends.isEmpty)   // jittered, not at once
        let out = h.advance(.milliseconds(100)).sends
        #expect(out.map(\.link) == [LinkID(2), LinkID(3)])
        #expect(out.allSatisfy { $0.at <= .milliseconds(100) })
        guard case .frame(let header, let body) = Self.decode(out[0].bytes) else { Issue.record("not a frame"); return }
        #expect(header.ttl == 7 && header.seq == 42 && header.origin == Self.origin.uuid)
        guard case .frame(_, let original) = Self.decode(f) else { return }
        #expect(body == original)   // RELAY-R5.4: byte for byte
        // RELAY-R3: a second copy (either link) is a duplicate.
        h.feed(.received(f, on: LinkID(2)))
        #expect(h.advance(.seconds(1)).isEmpty)
    }

    @Test func ttlOneIsNotRelayed() {
        // RELAY-R5.3
        var h = Self.node()
        h.feed(.received(Self.frame(from: Self.origin, to: Self.other, ttl: 1, seq: 1), on: LinkID(1)))
        #expect(h.advance(.seconds(1)).isEmpty)
    }

    @Test func ownFrameEchoedIsDropped() {
        // RELAY-R5.1
        var h = Self.node()
        h.feed(.received(Self.frame(from: Self.me, to: Self.other, ttl: 8, seq: 1), on: LinkID(1)))
        #expect(h.advance(.seconds(1)).isEmpty)
    }

    @Test func frameForMeIsDeliveredOnceAndAckedOnIngress() {
        // RELAY-R4, RELAY-R7.1
        var h = Self.node()
        let f = Self.frame(from: Self.origin, to: Self.me, ttl: 3, seq: 0x41DA_0557_2000_0000)
        let first = h.feed(.received(f, on: LinkID(2))) + h.advance(.milliseconds(100))
        #expect(first.deliveries.map(\.payload) == [Array("hi".utf8)])
        #expect(first.deliveries.first?.origin == Self.origin)
        #expect(first.sends.map(\.link) == [LinkID(2)])
        #expect(first.sends.first?.bytes == [0x61, 0x00, 0x08, 0x41, 0xDA, 0x05, 0x57, 0x20, 0x00, 0x00, 0x00])
        // RELAY-R4.2: the duplicate is re-acked on its own ingress, not delivered.
        let second = h.feed(.received(f, on: LinkID(3))) + h.advance(.milliseconds(100))
        #expect(second.deliveries.isEmpty)
        #expect(second.sends.map(\.link) == [LinkID(3)])
    }

    @Test func forgedFrameLeavesNoCacheEntry() {
        // RELAY-R4.1: a body that does not open is dropped without a cache entry.
        var h = Self.node()
        var forged = Self.frame(from: Self.origin, to: Self.me, ttl: 3, seq: 9)
        forged[forged.count - 1] ^= 0xFF
        h.feed(.received(forged, on: LinkID(1)))
        #expect(h.advance(.seconds(1)).isEmpty)
        #expect(h.feed(.received(Self.frame(from: Self.origin, to: Self.me, ttl: 3, seq: 9), on: LinkID(1))).deliveries.count == 1)
    }

    @Test func noAckForOthersFrames() {
        // RELAY-R7: only the destination acks.
        var h = Self.node()
        h.feed(.received(Self.frame(from: Self.origin, to: Self.other, ttl: 8, seq: 5), on: LinkID(1)))
        #expect(!h.advance(.seconds(1)).sends.contains { $0.bytes.first == 0x61 })
    }

    @Test func ackTravelsBackAlongTheRelayPath() {
        // RELAY-R7.2
        var h = Self.node()
        h.feed(.received(Self.frame(from: Self.origin, to: Self.other, ttl: 8, seq: 77), on: LinkID(1)))
        h.advance(.milliseconds(100))
        h.feed(.received(RelayPacket.ack(RelayAck(seq: 77)).encoded(), on: LinkID(2)))
        #expect(h.advance(.milliseconds(100)).sends.map(\.link) == [LinkID(1)])
        // Unknown seq: dropped.
        h.feed(.received(RelayPacket.ack(RelayAck(seq: 78)).encoded(), on: LinkID(2)))
        #expect(h.advance(.seconds(1)).isEmpty)
    }

    @Test func anAckIsForwardedOncePerLinkSoItCannotCircle() {
        // RELAY-R7.2: two frames of different origins share seq 90, in on links 1 and 2, so an
        // ack for 90 routes to both. One coming back on link 1 must not go out on link 2 again.
        var h = Self.node()
        h.feed(.received(Self.frame(from: Self.origin, to: Self.other, ttl: 8, seq: 90), on: LinkID(1)))
        h.feed(.received(Self.frame(from: address(4), to: Self.other, ttl: 8, seq: 90), on: LinkID(2)))
        h.advance(.milliseconds(100))
        let ack = RelayPacket.ack(RelayAck(seq: 90)).encoded()
        h.feed(.received(ack, on: LinkID(3)))
        #expect(Set(h.advance(.milliseconds(100)).sends.map(\.link)) == [LinkID(1), LinkID(2)])
        h.feed(.received(ack, on: LinkID(1)))
        #expect(h.advance(.milliseconds(100)).sends.isEmpty)
        // After the hold, a new ack (the destination re-acking a retransmission) goes through.
        h.advance(.seconds(1))
        h.feed(.received(ack, on: LinkID(3)))
        #expect(Set(h.advance(.milliseconds(100)).sends.map(\.link)) == [LinkID(1), LinkID(2)])
    }

    @Test func originatesSealedFrameOnEveryLink() throws {
        // RELAY-R2
        var h = Self.node(links: 2)
        let out = h.feed(.command(.send(payload: Array("yo".utf8), to: Self.other))).sends
        #expect(out.map(\.link) == [LinkID(1), LinkID(2)])
        guard case .frame(let header, let body) = Self.decode(out[0].bytes) else { Issue.record("not a frame"); return }
        #expect(header.ttl == 8 && header.origin == Self.me.uuid && header.dest == Self.other.uuid)
        let key = try! SessionKey(privateKey: RelaySimulationKeys.privateKey(for: Self.other), peerPublicKey: RelaySimulationKeys.identity(for: Self.me).publicKey)
        #expect(try SealedBody(decoding: body).open(key: key) == Array("yo".utf8))
    }

    @Test func beaconsEveryTwoSecondsWithRisingSeqNo() {
        // RELAY-R9
        var h = Self.node(links: 2)
        let out = h.advance(.milliseconds(4_000)).sends
        #expect(out.count == 4)
        #expect(out.allSatisfy { $0.bytes.first == 0x42 })
        let beacons = out.compactMap { if case .beacon(let b) = Self.decode($0.bytes) { b } else { nil } }
        #expect(beacons.map(\.seqNo) == [1, 1, 2, 2])
        #expect(beacons.allSatisfy { $0.ttl == 8 && $0.hop == 0 && $0.origin == Self.me.uuid })
        #expect(out.first?.at == .milliseconds(2_000))
    }

    @Test func beaconRebroadcastWithTTLAndHopUpdated() {
        // RELAY-R10
        var h = Self.node()
        let beacon = RelayPacket.beacon(Beacon(origin: Self.origin.uuid!, seqNo: 5, ttl: 4, hop: 2)).encoded()
        h.feed(.received(beacon, on: LinkID(1)))
        let out = h.advance(.milliseconds(100)).sends
        #expect(out.map(\.link) == [LinkID(2), LinkID(3)])
        guard case .beacon(let b) = Self.decode(out[0].bytes) else { Issue.record("not a beacon"); return }
        #expect(b.ttl == 3 && b.hop == 3 && b.seqNo == 5)
        // RELAY-R10.2: an older seqNo from the same origin is a duplicate.
        h.feed(.received(RelayPacket.beacon(Beacon(origin: Self.origin.uuid!, seqNo: 4, ttl: 4, hop: 0)).encoded(), on: LinkID(2)))
        #expect(h.advance(.milliseconds(100)).isEmpty)
    }

    @Test func atMostSevenLinks() {
        // RELAY-R11: the eighth link is disconnected as it comes up, and never used.
        var h = Self.node(links: 7)
        #expect(h.outputs.disconnects.isEmpty)
        #expect(h.feed(.linkUp(LinkID(8), peer: nil)).disconnects == [LinkID(8)])
        #expect(h.feed(.linkUp(LinkID(9), peer: nil)).disconnects == [LinkID(9)])
        #expect(h.feed(.linkUp(LinkID(7), peer: nil)).disconnects.isEmpty)   // already one of the seven
        h.feed(.received(Self.frame(from: Self.origin, to: Self.other, ttl: 8, seq: 3), on: LinkID(1)))
        let links = Set(h.advance(.milliseconds(100)).sends.map(\.link))
        #expect(links == Set((2...7).map(LinkID.init)))
        // Input on the dropped link is ignored.
        h.feed(.received(Self.frame(from: Self.origin, to: Self.other, ttl: 8, seq: 4), on: LinkID(8)))
        #expect(h.advance(.seconds(1)).sends.isEmpty)
        // A link going down frees a place: the next newcomer is kept.
        h.feed(.linkDown(LinkID(2)))
        #expect(h.feed(.linkUp(LinkID(10), peer: nil)).disconnects.isEmpty)
    }

    @Test func aWaitingRelayGoesToItsLinksStillUp() {
        // RELAY-R5.3 / R6: the relay waits for its jitter; a link that went down meanwhile gets
        // no copy, nor does one that came up meanwhile (not a link when the frame was heard).
        var h = Self.node(links: 4)
        h.feed(.received(Self.frame(from: Self.origin, to: Self.other, ttl: 8, seq: 3), on: LinkID(1)))
        h.feed(.linkDown(LinkID(3)))
        h.feed(.linkUp(LinkID(9), peer: nil))
        #expect(Set(h.advance(.milliseconds(100)).sends.map(\.link)) == [LinkID(2), LinkID(4)])
        // A beacon heard on links that stay as they are goes to all of them but its ingress.
        h.feed(.received(RelayPacket.beacon(Beacon(origin: Self.origin.uuid!, seqNo: 1, ttl: 4, hop: 0)).encoded(), on: LinkID(2)))
        #expect(Set(h.advance(.milliseconds(100)).sends.map(\.link)) == [LinkID(1), LinkID(4), LinkID(9)])
    }

    @Test func ackForOwnFrameIsReportedOnceAndNotForwarded() {
        // RELAY-R7.3: the origin tells its app, by the seq as text (as a delivery's messageID
        // has it), stops keeping the frame for new neighbours, and forwards nothing.
        var h = Self.node()
        let sent = h.feed(.command(.send(payload: Array("yo".utf8), to: Self.other))).sends
        guard case .frame(let header, let body) = Self.decode(sent[0].bytes) else { Issue.record("not a frame"); return }
        let ack = RelayPacket.ack(RelayAck(seq: header.seq)).encoded()
        let out = h.feed(.received(ack, on: LinkID(2)))
        #expect(out.acknowledged == [String(header.seq)])
        #expect(out.sends.isEmpty && h.advance(.seconds(1)).sends.isEmpty)
        // The delivery at the destination names the message by the same text.
        var destination = Harness(.relay, address: Self.other)
        destination.feed(.linkUp(LinkID(1), peer: nil))
        let delivered = destination.feed(.received(RelayPacket.frame(header, body: body).encoded(), on: LinkID(1))).deliveries
        #expect(delivered.map(\.messageID) == out.acknowledged)
        // A second ack is not reported again (and, matching nothing relayed, is dropped).
        #expect(h.feed(.received(ack, on: LinkID(3))).acknowledged.isEmpty)
        // RELAY-R8: no longer offered to a new neighbour.
        #expect(h.feed(.linkUp(LinkID(4), peer: nil)).sends.isEmpty)
    }

    @Test func survivesGarbage() {
        // RELAY-R12
        var h = Self.node()
        for junk: [UInt8] in [[], [0x46], [0x58, 0, 0], [0x46, 0, 5, 0x7B], [0x61, 0, 8, 1, 2, 3]] {
            h.feed(.received(junk, on: LinkID(1)))
        }
        h.feed(.received(Self.frame(from: Self.origin, to: Self.other, ttl: 8, seq: 3), on: LinkID(1)))
        #expect(h.advance(.milliseconds(100)).sends.count == 2)
    }
}
