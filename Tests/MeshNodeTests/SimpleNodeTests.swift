import Foundation
import MeshWire
import Testing
@testable import MeshNode

/// docs/dialects/simple.md section 3 (seed 000's relay controller), one test per rule; every
/// simple mutant is shown to deviate here (the dialect has no conformance probe yet).
@Suite struct SimpleNodeTests {
    static let me = address(1)
    static let origin = "Worker A"

    static func message(id: String, ttl: UInt8, relayCount: Int = 0, from sender: String = origin, text: String = "hi") -> [UInt8] {
        SimpleMessage(id: id, sender: sender, content: text, timestamp: 767_923_200, ttl: ttl, relayCount: relayCount,
                      isRelayed: relayCount > 0, originalSender: sender, lastRelay: relayCount > 0 ? "Worker B" : nil).encoded()
    }

    static func node(faults: Set<Fault> = [], links: Int = 2, seed: UInt64 = 1) -> Harness {
        var h = Harness(.simple, address: me, faults: faults, seed: seed)
        for l in 1...links { h.feed(.linkUp(LinkID(l), peer: nil)) }
        return h
    }

    static var myName: String { me.description }

    @Test func relaysWithTTLMinusOneAndRelayFields() {
        // SIMPLE-R4, R7: 2 links -> probability 1, after 10-100 ms.
        var h = Self.node()
        let first = h.feed(.received(Self.message(id: "EMRG-001", ttl: 5), on: LinkID(1)))
        #expect(first.deliveries.map(\.payload) == [Array("hi".utf8)] && first.sends.isEmpty)
        let out = h.advance(.milliseconds(100)).sends
        #expect(out.map(\.link) == [LinkID(2)] && out[0].at >= .milliseconds(10))
        let relayed = try! SimpleMessage(decoding: out[0].bytes)
        #expect(relayed.ttl == 4 && relayed.relayCount == 1 && relayed.isRelayed && relayed.lastRelay == Self.myName)
        #expect(relayed.originalSender == Self.origin && relayed.sender == Self.origin && relayed.id == "EMRG-001")
        var m = Self.node(faults: [.noRelayFields])
        m.feed(.received(Self.message(id: "EMRG-001", ttl: 5), on: LinkID(1)))
        let plain = try! SimpleMessage(decoding: m.advance(.milliseconds(100)).sends[0].bytes)
        #expect(plain.relayCount == 0 && plain.lastRelay == nil)
    }

    @Test func ttlOneOwnAndDuplicatesAreNotRelayed() {
        // SIMPLE-R3, R4.1, R4.2
        var h = Self.node()
        h.feed(.received(Self.message(id: "a", ttl: 1), on: LinkID(1)))
        h.feed(.received(Self.message(id: "b", ttl: 5, from: Self.myName), on: LinkID(1)))
        #expect(h.advance(.seconds(1)).sends.isEmpty)
        h.feed(.received(Self.message(id: "c", ttl: 5), on: LinkID(1)))
        h.advance(.seconds(1))
        let again = h.feed(.received(Self.message(id: "c", ttl: 4, relayCount: 1), on: LinkID(2))) + h.advance(.seconds(1))
        #expect(again.isEmpty)
    }

    @Test func aDuplicateBeforeTheRelayCancelsIt() {
        // SIMPLE-R8: heard again before the jitter ends: no relay at all.
        var h = Self.node()
        h.feed(.received(Self.message(id: "x", ttl: 5), on: LinkID(1)))
        h.feed(.received(Self.message(id: "x", ttl: 4, relayCount: 1), on: LinkID(2)), after: .milliseconds(5))
        #expect(h.advance(.seconds(1)).sends.isEmpty)
        var m = Self.node(faults: [.noCancel])
        m.feed(.received(Self.message(id: "x", ttl: 5), on: LinkID(1)))
        m.feed(.received(Self.message(id: "x", ttl: 4, relayCount: 1), on: LinkID(2)), after: .milliseconds(5))
        #expect(m.advance(.seconds(1)).sends.count == 1)
    }

    @Test func relayProbabilityFallsWithDegree() {
        // SIMPLE-R6: 7+ links relay 45 % of messages; the flat-probability mutant relays all.
        func relayed(_ faults: Set<Fault>) -> Int {
            var h = Self.node(faults: faults, links: 8)
            var n = 0
            for i in 0..<200 {
                h.feed(.received(Self.message(id: "m\(i)", ttl: 5), on: LinkID(1)), after: .milliseconds(200))
                n += h.advance(.milliseconds(150)).sends.isEmpty ? 0 : 1
            }
            return n
        }
        let reference = relayed([])
        #expect((70...110).contains(reference), "\(reference) of 200")
        #expect(relayed([.flatProbability]) == 200)
        #expect(SimpleEngineProbe.probability(1) == 1 && SimpleEngineProbe.probability(3) == 0.9
                && SimpleEngineProbe.probability(6) == 0.7 && SimpleEngineProbe.probability(7) == 0.45)
    }

    @Test func denseNodesCapTheTTLAtThree() {
        // SIMPLE-R5: with 5 links (more than 4), a relay of ttl 5 goes out with 3, and originations too.
        func ttls(_ faults: Set<Fault>) -> [UInt8] {
            var h = Self.node(faults: faults, links: 5, seed: 3)
            var out: [UInt8] = []
            for i in 0..<20 where out.isEmpty {
                h.feed(.received(Self.message(id: "d\(i)", ttl: 5), on: LinkID(1)), after: .milliseconds(200))
                out = h.advance(.milliseconds(150)).sends.map { try! SimpleMessage(decoding: $0.bytes).ttl }
            }
            let own = h.feed(.command(.send(payload: Array("mine".utf8), to: nil))).sends
            return out + own.map { try! SimpleMessage(decoding: $0.bytes).ttl }
        }
        #expect(Set(ttls([])) == [3])
        #expect(Set(ttls([.noDenseCap])) == [4, 5])
    }

    @Test func atMostTwentyRelaysWait() {
        // SIMPLE-R7: a burst of 50 new messages leaves 20 relays scheduled, no more.
        var h = Self.node()
        for i in 0..<50 { h.feed(.received(Self.message(id: "b\(i)", ttl: 5), on: LinkID(1))) }
        #expect(h.node.stateSize.scheduledRelays == 20)
        #expect(h.advance(.seconds(1)).sends.count == 20)
    }

    @Test func originatesBroadcastOnlyAndDropsOversize() {
        // SIMPLE-R2, G3
        var h = Self.node()
        let out = h.feed(.command(.send(payload: Array("hello".utf8), to: nil)))
        #expect(out.sends.count == 2)
        let m = try! SimpleMessage(decoding: out.sends[0].bytes)
        #expect(m.ttl == 5 && m.relayCount == 0 && !m.isRelayed && m.lastRelay == nil && m.originalSender == Self.myName)
        #expect(h.feed(.command(.send(payload: Array("x".utf8), to: address(9)))).isEmpty)
        #expect(h.feed(.command(.send(payload: [UInt8](repeating: 0x41, count: 600), to: nil))).isEmpty)
    }
}

/// The seed's probability table, read through the scheduler the engine uses.
enum SimpleEngineProbe {
    static func probability(_ degree: Int) -> Double { RelayScheduler<String, [NodeAction]>.probability(degree: degree) }
}
