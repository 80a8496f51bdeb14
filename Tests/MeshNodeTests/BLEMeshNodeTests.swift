import Foundation
import MeshWire
import Testing
@testable import MeshNode

/// docs/dialects/blemesh.md section 3.
@Suite struct BLEMeshNodeTests {
    static let me = address(1)
    static let a = address(2), b = address(3), c = address(4), x = address(9)

    static func envelope(id: UInt8 = 1, from origin: NodeAddress, to dest: NodeAddress?, ttl: Int, hopPath: [NodeAddress], seq: UInt64 = 1, text: String = "hello") -> MessageEnvelope {
        MessageEnvelope(
            id: address(100 &+ id).uuid!, originID: origin.uuid!, originName: "o", destinationID: dest?.uuid,
            timestamp: 1_746_230_400, sequenceNumber: seq, ttl: ttl, hopPath: hopPath.map { $0.uuid! }, payload: Array(text.utf8))
    }

    static func chunks(_ e: MessageEnvelope) -> [[UInt8]] { Chunker.chunks(of: e).map { $0.encoded() } }

    /// Links 1, 2, 3 to neighbours a, b, c.
    static func node(faults: Set<Fault> = [], seed: UInt64 = 1) -> Harness {
        var h = Harness(.blemesh, address: me, faults: faults, seed: seed)
        for (l, peer) in [(1, a), (2, b), (3, c)] { h.feed(.linkUp(LinkID(l), peer: peer)) }
        h.outputs.removeAll()   // the ANNOUNCEs
        return h
    }

    static func feed(_ h: inout Harness, _ e: MessageEnvelope, on link: Int) -> [Harness.Output] {
        var out: [Harness.Output] = []
        for chunk in chunks(e) { out += h.feed(.received(chunk, on: LinkID(link))) }
        return out
    }

    /// Reassembles the envelopes a node sent, per link.
    static func envelopes(_ sends: [(bytes: [UInt8], link: LinkID, at: Instant)]) -> [(LinkID, MessageEnvelope)] {
        var assembler: [LinkID: ChunkAssembler] = [:]
        var result: [(LinkID, MessageEnvelope)] = []
        for s in sends {
            let chunk = try! MessageChunk(decoding: s.bytes)
            if case .completed(_, let bytes) = assembler[s.link, default: ChunkAssembler()].add(chunk, now: 0) {
                result.append((s.link, try! MessageEnvelope(decoding: bytes)))
            }
        }
        return result
    }

    @Test func chunkedRelayAppendsHopPathAndHonoursSplitHorizon() {
        // BLEMESH-R7, R8 (N = 1 candidate: sent to it), R10
        var h = Self.node()
        // x -> b -> a -> me: b is on the hop path, so only c (link 3) is a candidate.
        let long = String(repeating: "z", count: 400)   // several chunks
        let e = Self.envelope(from: Self.x, to: nil, ttl: 3, hopPath: [Self.x, Self.b, Self.a], text: long)
        let now = Self.feed(&h, e, on: 1)
        #expect(now.deliveries.count == 1)   // BLEMESH-R6.4
        #expect(now.sends.isEmpty)
        let out = h.advance(.milliseconds(100)).sends
        #expect(out.count > 1)
        #expect(Set(out.map(\.link)) == [LinkID(3)])
        // BLEMESH-R10: degree 3 -> 20-60 ms.
        #expect(out.allSatisfy { $0.at >= .milliseconds(20) && $0.at <= .milliseconds(60) })
        let relayed = Self.envelopes(out)
        #expect(relayed.count == 1)
        let r = relayed[0].1
        #expect(r.ttl == 2 && r.hopPath == [Self.x, Self.b, Self.a, Self.me].map { $0.uuid! } && r.id == e.id && r.payload == e.payload)
        // BLEMESH-R5: the same envelope again is a duplicate.
        #expect(Self.feed(&h, e, on: 2).isEmpty)
        #expect(h.advance(.seconds(1)).isEmpty)
    }

    @Test func ttlOneIsNotRelayed() {
        var h = Self.node()
        _ = Self.feed(&h, Self.envelope(from: Self.x, to: nil, ttl: 1, hopPath: [Self.x]), on: 1)
        #expect(h.advance(.seconds(1)).sends.isEmpty)
    }

    @Test func ackEnvelopeToOriginOnIngress() {
        // BLEMESH-R6.5, R11
        var h = Self.node()
        let e = Self.envelope(from: Self.x, to: Self.me, ttl: 2, hopPath: [Self.x, Self.a])
        let out = Self.feed(&h, e, on: 1)
        #expect(out.deliveries.count == 1)
        let acks = Self.envelopes(out.sends)
        #expect(acks.count == 1 && acks[0].0 == LinkID(1))
        let ack = acks[0].1
        #expect(ack.isControlMessage && ack.destinationID == Self.x.uuid && ack.ttl == 3)
        guard case .deliveryAck(let inner) = try? ack.controlMessage() else { Issue.record("not an ACK"); return }
        #expect(inner.messageID == e.id && inner.receiverID == Self.me.uuid)
        // A duplicate is re-acked but not delivered.
        let again = Self.feed(&h, e, on: 2)
        #expect(again.deliveries.isEmpty && Self.envelopes(again.sends).count == 1)
        #expect(h.advance(.seconds(1)).isEmpty)   // not relayed
    }

    @Test func broadcastIsNotAcked() {
        var h = Self.node()
        let out = Self.feed(&h, Self.envelope(from: Self.x, to: nil, ttl: 3, hopPath: [Self.x]), on: 1) + h.advance(.seconds(1))
        #expect(!Self.envelopes(out.sends).contains { $0.1.isControlMessage })
    }

    @Test func ackForOthersIsRelayedToItsDestination() {
        // BLEMESH-R6.2, R9: directed to a neighbour -> only that link.
        var h = Self.node()
        let ack = MessageEnvelope(
            id: address(50).uuid!, originID: Self.x.uuid!, originName: "x", destinationID: Self.c.uuid,
            timestamp: 1_746_230_400, sequenceNumber: 4, ttl: 3, hopPath: [Self.x.uuid!, Self.a.uuid!], isControlMessage: true,
            payload: ControlMessage.deliveryAck(DeliveryAck(messageID: address(60).uuid!, receiverID: Self.x.uuid!, timestamp: 1)).encoded())
        _ = Self.feed(&h, ack, on: 1)
        let out = Self.envelopes(h.advance(.seconds(1)).sends)
        #expect(out.map(\.0) == [LinkID(3)])
    }

    @Test func announceOnLinkUp() {
        // BLEMESH-R14
        var h = Harness(.blemesh, address: Self.me)
        let out = Self.envelopes(h.feed(.linkUp(LinkID(1), peer: Self.a)).sends)
        #expect(out.count == 1 && out[0].1.ttl == 2 && out[0].1.isControlMessage)
        guard case .peerAnnounce(let announce) = try? out[0].1.controlMessage() else { Issue.record("not ANNOUNCE"); return }
        #expect(announce.deviceID == Self.me.uuid && announce.hopCount == 0)
    }

    @Test func answersRouteRequestForItself() {
        // BLEMESH-R15.3, R16
        var h = Self.node()
        let request = RouteRequest(requestID: address(70).uuid!, originID: Self.x.uuid!, destinationID: Self.me.uuid!, originName: "x", hopCount: 1, hopPath: [Self.x.uuid!, Self.a.uuid!], timestamp: 1, ttl: 3)
        let e = MessageEnvelope(id: address(71).uuid!, originID: Self.x.uuid!, originName: "x", timestamp: 1_746_230_400, sequenceNumber: 9, ttl: 3, hopPath: [Self.x.uuid!, Self.a.uuid!], isControlMessage: true, payload: ControlMessage.routeRequest(request).encoded())
        let out = Self.envelopes(Self.feed(&h, e, on: 1).sends)
        #expect(out.map(\.0) == [LinkID(1)])
        guard case .routeReply(let reply) = try? out.first?.1.controlMessage() else { Issue.record("no RREP"); return }
        #expect(reply.destinationID == Self.me.uuid && reply.hopPath == [Self.a.uuid!, Self.x.uuid!])
    }

    @Test func retriesTheSameEnvelopeUntilAcked() {
        // BLEMESH-R13
        var h = Self.node()
        let first = Self.envelopes(h.feed(.command(.send(payload: [1], to: Self.x))).sends).filter { !$0.1.isControlMessage }
        #expect(!first.isEmpty)
        let retry = Self.envelopes(h.advance(.seconds(10)).sends).filter { !$0.1.isControlMessage }
        #expect(!retry.isEmpty && retry[0].1.id == first[0].1.id && retry[0].1.sequenceNumber == first[0].1.sequenceNumber)
        #expect(retry.count == first.count)
    }

    @Test func ackForAPendingMessageIsReportedOnceAndStopsRetries() {
        // BLEMESH-R11, R13: the ACK names the envelope id; the app hears of it once, by the
        // same id text a delivery of that envelope carries, and no retry follows.
        var h = Self.node()
        let sent = Self.envelopes(h.feed(.command(.send(payload: Array("yo".utf8), to: Self.x))).sends).first { !$0.1.isControlMessage }
        let original = try! #require(sent?.1)
        func ackEnvelope(id: UInt8, for messageID: UUID) -> MessageEnvelope {
            MessageEnvelope(
                id: address(id).uuid!, originID: Self.x.uuid!, originName: "x", destinationID: Self.me.uuid,
                timestamp: 1_746_230_400, sequenceNumber: UInt64(id), ttl: 3, hopPath: [Self.x.uuid!, Self.a.uuid!], isControlMessage: true,
                payload: ControlMessage.deliveryAck(DeliveryAck(messageID: messageID, receiverID: Self.x.uuid!, timestamp: 1)).encoded())
        }
        // An ACK for something else is not reported.
        #expect(Self.feed(&h, ackEnvelope(id: 80, for: address(61).uuid!), on: 1).acknowledged.isEmpty)
        let out = Self.feed(&h, ackEnvelope(id: 81, for: original.id), on: 1)
        #expect(out.acknowledged == [original.id.uuidString])
        #expect(out.acknowledged.first == AppMessage(origin: Self.me, destination: Self.x, payload: [], messageID: original.id.uuidString).messageID)
        // A second ACK (the destination re-acks a retry it saw twice) is not reported again.
        #expect(Self.feed(&h, ackEnvelope(id: 82, for: original.id), on: 2).acknowledged.isEmpty)
        let later = Self.envelopes(h.advance(.seconds(60)).sends).filter { !$0.1.isControlMessage }
        #expect(later.isEmpty, "retried after the ACK")
    }

    @Test func survivesGarbage() {
        // BLEMESH-R19
        var h = Self.node()
        for junk in [[UInt8](), Array("{".utf8), Array("{\"messageID\":1}".utf8), [UInt8](repeating: 0x41, count: 600)] {
            h.feed(.received(junk, on: LinkID(1)))
        }
        #expect(Self.feed(&h, Self.envelope(from: Self.x, to: nil, ttl: 3, hopPath: [Self.x]), on: 1).deliveries.count == 1)
    }
    /// BLEMESH-R3, G3: a link that carries 179 bytes a value (ATT_MTU 182, notified) gets the
    /// relay in pieces whose chunks fit it, the largest such; the other link gets 162-byte
    /// pieces; both reassemble. Mutant chunks-ignore-mtu (app bug 6) sends 162-byte pieces on both.
    @Test(arguments: [false, true])
    func relayIsChunkedToFitEachLink(ignoresMTU: Bool) throws {
        var h = Harness(.blemesh, address: Self.me, faults: ignoresMTU ? [.chunksIgnoreMTU] : [], seed: 1)
        h.feed(.linkUp(LinkID(1), peer: Self.a))
        h.feed(.linkUp(LinkID(2), peer: Self.b, maxUnit: 179))
        h.feed(.linkUp(LinkID(3), peer: Self.c))
        let announces = h.outputs.sends.filter { $0.link == LinkID(2) }
        h.outputs.removeAll()
        let e = Self.envelope(from: Self.x, to: nil, ttl: 3, hopPath: [Self.x], text: String(repeating: "z", count: 400))
        _ = Self.feed(&h, e, on: 1)
        let out = h.advance(.milliseconds(100)).sends
        let small = out.filter { $0.link == LinkID(2) }, full = out.filter { $0.link == LinkID(3) }
        #expect(full.map(\.bytes) == Self.chunks(try #require(Self.envelopes(full).first?.1)))
        let relayed = Self.envelopes(small)
        #expect(relayed.count == 1 && relayed.first?.1.payload == e.payload)
        if ignoresMTU {
            #expect(small.map(\.bytes) == full.map(\.bytes))
            #expect(small.contains { $0.bytes.count > 179 })
        } else {
            #expect((small + announces).allSatisfy { $0.bytes.count <= 179 } && !announces.isEmpty)
            // The largest pieces that fit: one byte more and some chunk would not.
            let pieces = small.map { try! MessageChunk(decoding: $0.bytes).payload.count }
            let data = try #require(relayed.first?.1.encoded())
            let bigger = Chunker.chunks(messageID: relayed[0].1.id, data: data, pieceSize: pieces[0] + 1)
            #expect(bigger.contains { $0.encoded().count > 179 }, "pieces of \(pieces[0]) bytes are not the largest that fit")
        }
    }
}
