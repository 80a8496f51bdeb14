import Foundation
import MeshWire
import Testing
@testable import MeshNode

/// docs/dialects/camp.md section 3, one test per rule; each camp mutant is shown to deviate
/// here too (ConformanceTests/MutantCoverageTests shows a check catches it).
@Suite struct CampNodeTests {
    static let me = address(1)
    static let myID = me.campUserID
    static let sender = "user-7F3A"

    static func id(_ n: Int) -> String { String(format: "00000000-0000-0000-0000-%012X", n) }

    static func message(_ n: Int, from sender: String = sender, to recipient: String = CampMessage.broadcast,
                        kind: CampMessage.Kind = .text, content: String = "see you at the temple") -> CampMessage {
        CampMessage(id: id(n), senderID: sender, senderName: "Ranger Dan", recipientID: recipient, kind: kind,
                    content: content, timestamp: 767_923_200)
    }

    static func node(faults: Set<Fault> = [], links: Int = 3, seed: UInt64 = 1) -> Harness {
        var h = Harness(.camp, address: me, faults: faults, seed: seed)
        for l in 1...links { h.feed(.linkUp(LinkID(l), peer: nil)) }
        return h
    }

    static func decode(_ bytes: [UInt8]) -> CampMessage { try! CampMessage(decoding: bytes[...]) }

    @Test func relaysABroadcastByteForByteToEveryOtherLinkWithinTheJitter() {
        // CAMP-R4: delivered, then relayed once to L2 and L3 (not L1) within 0-100 ms, same bytes,
        // even when the JSON is not written the way this node would write it.
        let canonical = Self.message(1).encoded()
        let odd = Array(String(decoding: canonical, as: UTF8.self).replacingOccurrences(of: ",", with: ", ").utf8)
        var h = Self.node()
        let now = h.feed(.received(odd, on: LinkID(1)))
        #expect(now.deliveries.map(\.messageID) == [Self.id(1)] && now.deliveries[0].destination == nil)
        let out = h.advance(.milliseconds(100)).sends
        #expect(out.map(\.link) == [LinkID(2), LinkID(3)])
        #expect(out.allSatisfy { $0.bytes == odd && $0.at <= .milliseconds(100) })
        var m = Self.node(faults: [.rewriteRelay])
        m.feed(.received(odd, on: LinkID(1)))
        #expect(m.advance(.milliseconds(100)).sends.allSatisfy { $0.bytes == canonical })
        var c = Self.node(faults: [.canonicalOnly])
        c.feed(.received(odd, on: LinkID(1)))
        #expect(c.advance(.milliseconds(100)).isEmpty)
    }

    @Test func relaysAMessageForAnotherUserWithoutDeliveringIt() {
        // CAMP-R4: directed to someone else: relayed, not delivered, not confirmed.
        var h = Self.node()
        let out = h.feed(.received(Self.message(2, to: "user-9").encoded(), on: LinkID(2))) + h.advance(.milliseconds(100))
        #expect(out.deliveries.isEmpty && out.sends.map(\.link) == [LinkID(1), LinkID(3)])
        #expect(out.sends.allSatisfy { Self.decode($0.bytes).id == Self.id(2) })
    }

    @Test func deDuplicatesByIDForTheRetentionAndCapacity() {
        // CAMP-R2: the same id again (any link) is neither delivered nor relayed; a new id from
        // the same sender is; the cache keeps 1000 ids and 300 s, and the oldest goes first.
        var h = Self.node()
        h.feed(.received(Self.message(1).encoded(), on: LinkID(1)))
        h.advance(.milliseconds(200))
        #expect((h.feed(.received(Self.message(1).encoded(), on: LinkID(2))) + h.advance(.milliseconds(200))).isEmpty)
        let fresh = h.feed(.received(Self.message(2).encoded(), on: LinkID(1))) + h.advance(.milliseconds(200))
        #expect(fresh.deliveries.count == 1 && fresh.sends.count == 2)
        #expect(h.node.counters.copiesReceived == 3 && h.node.counters.duplicateCopies == 1)
        for n in 3...1001 { h.feed(.received(Self.message(n).encoded(), on: LinkID(1))) }
        h.advance(.milliseconds(200))
        // 1001 ids held at most 1000: id 1 (the oldest) is gone, id 2 is not.
        #expect(h.feed(.received(Self.message(2).encoded(), on: LinkID(1))).deliveries.isEmpty)
        #expect(h.feed(.received(Self.message(1).encoded(), on: LinkID(1))).deliveries.count == 1)
        #expect(h.node.stateSize.dedupEntries <= CampEngine.dedupCapacity)
        var late = Self.node()
        late.feed(.received(Self.message(1).encoded(), on: LinkID(1)))
        late.advance(.milliseconds(200))
        #expect(late.feed(.received(Self.message(1).encoded(), on: LinkID(1)), after: .seconds(299)).isEmpty)
        #expect(late.feed(.received(Self.message(1).encoded(), on: LinkID(1)), after: .seconds(2)).deliveries.count == 1)
        var byOrigin = Self.node(faults: [.dedupByOrigin])
        byOrigin.feed(.received(Self.message(1).encoded(), on: LinkID(1)))
        #expect(byOrigin.feed(.received(Self.message(2).encoded(), on: LinkID(1))).deliveries.isEmpty)
    }

    @Test func neverRelaysItsOwnMessageNorBackOnTheIngress() {
        // CAMP-R4: not from the node; never to the ingress link, even the only one.
        var h = Self.node()
        #expect((h.feed(.received(Self.message(1, from: Self.myID).encoded(), on: LinkID(1))) + h.advance(.seconds(1))).sends.isEmpty)
        var single = Self.node(links: 1)
        #expect((single.feed(.received(Self.message(2).encoded(), on: LinkID(1))) + single.advance(.seconds(1))).sends.isEmpty)
        var m = Self.node(faults: [.relayToSender], links: 1)
        #expect((m.feed(.received(Self.message(2).encoded(), on: LinkID(1))) + m.advance(.seconds(1))).sends.count == 1)
        var own = Self.node(faults: [.relayOwn])
        #expect((own.feed(.received(Self.message(1, from: Self.myID).encoded(), on: LinkID(1))) + own.advance(.seconds(1))).sends.count == 2)
    }

    @Test func confirmsEveryCopyOfADirectedMessageDeliveringItOnce() throws {
        // CAMP-R5: delivered once, not relayed; each copy confirmed on its own link by a new
        // message: fresh id, content = the confirmed id, addressed to the sender.
        var h = Self.node()
        let directed = Self.message(7, to: Self.myID).encoded()
        let first = h.feed(.received(directed, on: LinkID(1))) + h.advance(.milliseconds(100))
        #expect(first.deliveries.map(\.messageID) == [Self.id(7)])
        #expect(first.sends.map(\.link) == [LinkID(1)])
        let confirmation = try CampDeliveryConfirmation(decoding: first.sends[0].bytes[...])
        #expect(confirmation.confirmedID == Self.id(7) && confirmation.message.recipientID == Self.sender)
        #expect(confirmation.message.senderID == Self.myID && confirmation.message.id != Self.id(7))
        let second = h.feed(.received(directed, on: LinkID(2))) + h.advance(.milliseconds(100))
        #expect(second.deliveries.isEmpty && second.sends.map(\.link) == [LinkID(2)])
        #expect(Self.decode(second.sends[0].bytes).content == Self.id(7))
        #expect(Self.decode(second.sends[0].bytes).id != confirmation.message.id)
        // Broadcasts and confirmations are never confirmed.
        let broadcast = h.feed(.received(Self.message(8).encoded(), on: LinkID(1))) + h.advance(.milliseconds(100))
        #expect(broadcast.sends.map(\.link) == [LinkID(2), LinkID(3)])
        let toMe = Self.message(9, to: Self.myID, kind: .deliveryConfirmation, content: Self.id(99)).encoded()
        #expect((h.feed(.received(toMe, on: LinkID(1))) + h.advance(.milliseconds(100))).isEmpty)
        // The mutants.
        func confirmations(_ faults: Set<Fault>, _ bytes: [UInt8]) -> [CampMessage] {
            var m = Self.node(faults: faults)
            return (m.feed(.received(bytes, on: LinkID(1))) + m.advance(.milliseconds(100))).sends.map { Self.decode($0.bytes) }
                .filter { $0.kind == .deliveryConfirmation }
        }
        #expect(confirmations([.noAck], directed).isEmpty)
        #expect(confirmations([.ackWrongID], directed).map(\.content) != [Self.id(7)])
        #expect(confirmations([.ackBroadcast], Self.message(8).encoded()).count == 1)
        #expect(confirmations([.confirmConfirmations], toMe).count == 1)
    }

    @Test func relaysConfirmationsForOthers() {
        // CAMP-R5: a confirmation addressed to another user is relayed like any directed message.
        let other = Self.message(3, from: "user-1", to: "user-2", kind: .deliveryConfirmation, content: Self.id(1)).encoded()
        var h = Self.node()
        #expect((h.feed(.received(other, on: LinkID(1))) + h.advance(.milliseconds(100))).sends.map(\.link) == [LinkID(2), LinkID(3)])
        var m = Self.node(faults: [.dropForeignAcks])
        #expect((m.feed(.received(other, on: LinkID(1))) + m.advance(.milliseconds(100))).sends.isEmpty)
    }

    /// Sends one directed message from the node and returns what went out, with times.
    static func retries(_ faults: Set<Fault> = [], confirmAfter: Duration? = nil, span: Duration = .seconds(4000)) -> (sent: [UInt8], out: [Harness.Output]) {
        var h = Self.node(faults: faults, links: 2)
        let first = h.feed(.command(.send(payload: Array("meet at 3".utf8), to: NodeAddress(campUserID: Self.sender))))
        let sent = first.sends[0].bytes
        var out: [Harness.Output] = []
        if let confirmAfter {
            out += h.advance(confirmAfter)
            let c = Self.message(500, from: Self.sender, to: Self.myID, kind: .deliveryConfirmation, content: Self.decode(sent).id)
            out += h.feed(.received(c.encoded(), on: LinkID(1)))
        }
        out += h.advance(span)
        return (sent, out)
    }

    @Test func retriesByteForByteAt30sThen1Point5TimesLongerUpTo10Times() {
        // CAMP-R6: resent on every link at 30, 75, 142.5, ... s; 10 resends, then given up.
        let (sent, out) = Self.retries()
        let times = out.sends.filter { $0.link == LinkID(1) }.map(\.at.seconds)
        var expected: [Double] = []
        var t = 0.0, wait = 30.0
        for _ in 0..<10 { t += wait; expected.append(t); wait *= 1.5 }
        #expect(times.count == 10)
        #expect(zip(times, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "\(times)")
        #expect(out.sends.allSatisfy { $0.bytes == sent })
        #expect(out.sends.count == 20)
        // The mutants: empty content, a fixed 30 s, none at all.
        #expect(Self.retries([.retryEmptyContent]).out.sends.allSatisfy { Self.decode($0.bytes).content.isEmpty })
        let fixed = Self.retries([.fixedRetryInterval]).out.sends.filter { $0.link == LinkID(1) }.map(\.at.seconds)
        #expect(fixed.prefix(3) == [30, 60, 90])
        #expect(Self.retries([.noRetry]).out.sends.isEmpty)
    }

    @Test func aConfirmationStopsTheRetriesAndTellsTheApp() {
        // CAMP-R6: confirmed at 40 s (after one resend): the app is told, nothing more goes out.
        let (sent, out) = Self.retries(confirmAfter: .seconds(40))
        #expect(out.acknowledged == [Self.decode(sent).id])
        #expect(out.sends.count == 2)   // the resend at 30 s on L1 and L2
        let ignoring = Self.retries([.ignoreOwnAcks], confirmAfter: .seconds(40)).out
        #expect(ignoring.acknowledged.isEmpty && ignoring.sends.count == 20)
    }

    @Test func broadcastsFromTheAppAreNotRetried() {
        var h = Self.node()
        let out = h.feed(.command(.send(payload: Array("hello camp".utf8), to: nil))) + h.advance(.seconds(600))
        #expect(out.sends.count == 3 && Self.decode(out.sends[0].bytes).isBroadcast)
    }

    @Test func theRetryQueueIsBounded() {
        // At most CampRetryQueue.capacity messages wait; the oldest is given up first.
        var h = Self.node()
        for n in 0..<(CampRetryQueue.capacity + 10) {
            h.feed(.command(.send(payload: Array("m\(n)".utf8), to: NodeAddress(campUserID: "user-\(n)"))))
        }
        #expect(h.node.stateSize.storedMessages == CampRetryQueue.capacity)
        #expect(h.node.stateSize.timers == CampRetryQueue.capacity)
    }

    @Test func refusedValuesChangeNoStateAndTheNodeGoesOn() {
        // CAMP-R7: truncated, not JSON, a bad UUID, over 512 bytes: dropped; then a valid one works.
        var h = Self.node()
        let valid = Self.message(1).encoded()
        let big = Self.message(2, content: String(repeating: "x", count: 600)).encoded()
        for bad in [Array(valid.prefix(30)), Array("hello".utf8), Array(String(decoding: valid, as: UTF8.self).replacingOccurrences(of: "-0000-0000-0000", with: "").utf8), big] {
            #expect((h.feed(.received(bad, on: LinkID(1))) + h.advance(.milliseconds(200))).isEmpty)
        }
        #expect(h.node.stateSize.dedupEntries == 0)
        #expect((h.feed(.received(valid, on: LinkID(1))) + h.advance(.milliseconds(200))).sends.count == 2)
        var crash = Self.node(faults: [.crashOnTruncated])
        crash.feed(.received(Array(valid.prefix(30)), on: LinkID(1)))
        #expect((crash.feed(.received(valid, on: LinkID(1))) + crash.advance(.milliseconds(200))).isEmpty)
    }
}
