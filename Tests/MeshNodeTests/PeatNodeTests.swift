import Foundation
import MeshWire
import Testing
@testable import MeshNode

/// docs/dialects/peat.md section 3, one test per rule, and the emergency CRDT merge of
/// PeatEmergency (PEAT-R6) on its own. Each peat mutant is shown to deviate here too;
/// ConformanceTests/MutantCoverageTests show each one failing a conformance check.
@Suite struct PeatNodeTests {
    static let me: UInt32 = 0x0000_0101
    static let origin: UInt32 = 0x0000_0202
    static let other: UInt32 = 0x0000_0303
    /// 2025-05-03 in ms, a valid emergency time (not before 2020, PEAT-W4).
    static let t0: UInt64 = 1_746_230_400_000

    static func node(faults: Set<Fault> = [], links: Int = 3, seed: UInt64 = 1, settings: [String: String] = [:]) -> Harness {
        var h = Harness(.peat, address: NodeAddress(peatNode: me), faults: faults, settings: settings, seed: seed)
        for l in 1...links { h.feed(.linkUp(LinkID(l), peer: nil)) }
        return h
    }

    static func envelope(id: UInt8 = 1, from: UInt32 = origin, hop: UInt8 = 0, maxHops: UInt8 = 7, payload: [UInt8] = Array("hello".utf8)) -> PeatRelayEnvelope {
        PeatRelayEnvelope(broadcast: true, messageID: [UInt8](repeating: id, count: 16), hop: hop, maxHops: maxHops, origin: from, payload: payload)
    }

    static func emergency(source: UInt32 = origin, at ts: UInt64 = t0, _ acks: [(UInt32, Bool)]) -> PeatEmergency {
        PeatEmergency(source: source, timestamp: ts, acks: acks.map { (node: $0.0, acked: $0.1) })
    }

    static func document(from node: UInt32 = origin, version: UInt32 = 1, counters: [(UInt32, UInt64)] = [], emergency: PeatEmergency? = nil) -> [UInt8] {
        PeatDocument(version: version, nodeID: node, counters: counters.map { PeatDocument.Counter(node: $0.0, count: $0.1) }, emergency: emergency).encoded()
    }

    /// The documents the node wrote among `outputs`, decoded.
    static func documents(_ outputs: [Harness.Output]) -> [(doc: PeatDocument, link: LinkID)] {
        outputs.sends.compactMap { s in (try? PeatDocument(decoding: s.bytes)).map { ($0, s.link) } }
    }

    static func acks(_ e: PeatEmergency?) -> [String] { e?.acks.map { "\($0.node):\($0.acked)" } ?? [] }

    // MARK: PEAT-R2 the document

    @Test func writesItsDocumentOnLinkUpAndEveryTwoSeconds() {
        var h = Harness(.peat, address: NodeAddress(peatNode: Self.me))
        let first = h.feed(.linkUp(LinkID(1), peer: nil))
        #expect(Self.documents(first).map(\.doc.nodeID) == [Self.me])
        h.feed(.linkUp(LinkID(2), peer: nil))
        let period = h.advance(.milliseconds(4001))
        #expect(Self.documents(period).count == 4)   // two periods, two links
        #expect(period.sends.allSatisfy { $0.at == .seconds(2) || $0.at == .seconds(4) })
        var m = Harness(.peat, address: NodeAddress(peatNode: Self.me), faults: [.noDocumentPeriod])
        m.feed(.linkUp(LinkID(1), peer: nil))
        #expect(m.advance(.seconds(10)).isEmpty)
        // No link, no writes.
        h.feed(.linkDown(LinkID(1)))
        h.feed(.linkDown(LinkID(2)))
        #expect(h.advance(.seconds(10)).isEmpty)
    }

    @Test func versionSkipsFrameMarkersAndGrowsPerChange() {
        var h = Self.node(links: 1)
        var versions: [UInt32] = []
        for n in 1...200 {
            let out = h.feed(.received(Self.document(counters: [(Self.origin, UInt64(n))]), on: LinkID(1)))
            versions += Self.documents(out).map(\.doc.version)
        }
        #expect(versions.count == 200)
        #expect(versions.allSatisfy { !(0xAE...0xB2).contains(UInt8(truncatingIfNeeded: $0)) })
        #expect(versions.last.map(Int.init) == 1 + 200 + 5)   // 0xAE...0xB2 skipped once
        #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func encryptsItsDocumentUnderTheMeshKeyAndReadsSealedOnes() throws {
        let secret = String(repeating: "42", count: 32)
        var h = Self.node(links: 1, settings: ["secret": secret, "meshId": "DEMO"])
        let key = try PeatMeshKey(meshID: "DEMO", secret: Hex.decode(secret)!)
        let sealed = try PeatEncrypted.seal(Self.document(counters: [(Self.origin, 9)]), key: key, nonce: [UInt8](repeating: 7, count: 12))
        let out = h.feed(.received(sealed.encoded(), on: LinkID(1)))
        #expect(out.sends.count == 1 && out.sends[0].bytes[0] == PeatWire.encryptedMarker)
        let doc = try PeatDocument(decoding: try PeatEncrypted(decoding: out.sends[0].bytes).open(key: key))
        #expect(doc.counters.map(\.count) == [9])
        // Sealed under another mesh's key: refused, nothing changes.
        let stranger = try PeatEncrypted.seal(Self.document(counters: [(Self.other, 1)]), key: PeatMeshKey(meshID: "ELSE", secret: Hex.decode(secret)!),
                                              nonce: [UInt8](repeating: 7, count: 12))
        #expect(h.feed(.received(stranger.encoded(), on: LinkID(1))).isEmpty)
    }

    // MARK: PEAT-R3 hop budget

    @Test func relaysWithHopPlusOneToEveryOtherLinkByteForByte() throws {
        var h = Self.node()
        let sent = Self.envelope(hop: 2).encoded()
        let out = h.feed(.received(sent, on: LinkID(1))) + h.advance(.milliseconds(100))
        #expect(out.deliveries.map(\.payload) == [Array("hello".utf8)])
        let relays = out.sends.filter { $0.bytes[0] == PeatWire.relayEnvelopeMarker }
        #expect(relays.map(\.link) == [LinkID(2), LinkID(3)])
        var expected = sent
        expected[PeatEngine.hopOffset] = 3
        #expect(relays.allSatisfy { $0.bytes == expected })
        var m = Self.node(faults: [.noTTLDecrement])
        let same = m.feed(.received(sent, on: LinkID(1))) + m.advance(.milliseconds(100))
        #expect(same.sends.filter { $0.bytes[0] == PeatWire.relayEnvelopeMarker }.allSatisfy { $0.bytes == sent })
    }

    @Test func hopBudgetIsTheEnvelopesMaxHops() {
        func relayed(_ e: PeatRelayEnvelope, faults: Set<Fault> = []) -> [[UInt8]] {
            var h = Self.node(faults: faults)
            return (h.feed(.received(e.encoded(), on: LinkID(1))) + h.advance(.milliseconds(300))).sends.map(\.bytes).filter { $0[0] == PeatWire.relayEnvelopeMarker }
        }
        #expect(relayed(Self.envelope(hop: 7, maxHops: 7)).isEmpty)
        #expect(relayed(Self.envelope(hop: 2, maxHops: 2)).isEmpty)
        #expect(relayed(Self.envelope(hop: 9, maxHops: 12)).map { [$0[18], $0[19]] } == [[10, 12], [10, 12]])
        // The mutants: its own budget of 7, a relay at the spent budget, a clamped max_hops.
        #expect(relayed(Self.envelope(hop: 2, maxHops: 2), faults: [.ownHopBudget]).count == 2)
        #expect(relayed(Self.envelope(hop: 9, maxHops: 12), faults: [.ownHopBudget]).isEmpty)
        #expect(relayed(Self.envelope(hop: 7, maxHops: 7), faults: [.relayTTLOne]).map { [$0[18], $0[19]] } == [[8, 8], [8, 8]])
        #expect(relayed(Self.envelope(hop: 0, maxHops: 12), faults: [.clampTTL]).map { $0[19] } == [7, 7])
    }

    @Test func ownEnvelopesAreNotRelayedAndOriginatedOnesCarryAFreshID() throws {
        var h = Self.node()
        #expect(h.feed(.received(Self.envelope(from: Self.me).encoded(), on: LinkID(1))).sends.isEmpty)
        let a = h.feed(.command(.send(payload: Array("x".utf8), to: nil))).sends
        let b = h.feed(.command(.send(payload: Array("x".utf8), to: nil))).sends
        #expect(a.map(\.link) == [LinkID(1), LinkID(2), LinkID(3)])
        let ea = try PeatRelayEnvelope(decoding: a[0].bytes), eb = try PeatRelayEnvelope(decoding: b[0].bytes)
        #expect(ea.hop == 0 && ea.maxHops == 7 && ea.origin == Self.me && ea.messageID != eb.messageID)
        // Its own message coming back is a duplicate; a unicast it cannot express is dropped.
        #expect(h.feed(.received(a[0].bytes, on: LinkID(2))).isEmpty)
        #expect(h.feed(.command(.send(payload: [1], to: NodeAddress(peatNode: Self.other)))).isEmpty)
    }

    // MARK: PEAT-R4 de-duplication

    @Test func deduplicatesByMessageIDForFiveMinutes() {
        var h = Self.node()
        let e = Self.envelope().encoded()
        h.feed(.received(e, on: LinkID(1)))
        h.advance(.milliseconds(200))
        let again = h.feed(.received(e, on: LinkID(2))) + h.advance(.milliseconds(200))
        #expect(again.isEmpty)
        // Same origin, new id: not a duplicate.
        let fresh = h.feed(.received(Self.envelope(id: 2).encoded(), on: LinkID(1))) + h.advance(.milliseconds(200))
        #expect(fresh.deliveries.count == 1)
        // Still remembered just before 300 s; forgotten after.
        let late = h.feed(.received(e, on: LinkID(1)), after: .seconds(299)) + h.advance(.milliseconds(200))
        #expect(late.deliveries.isEmpty)
        let after = h.feed(.received(e, on: LinkID(1)), after: .seconds(2)) + h.advance(.milliseconds(200))
        #expect(after.deliveries.count == 1)
    }

    @Test func dedupMutantsDeviate() {
        func deliveries(_ faults: Set<Fault>) -> Int {
            var h = Self.node(faults: faults)
            h.feed(.received(Self.envelope(id: 1).encoded(), on: LinkID(1)))
            h.feed(.received(Self.envelope(id: 1).encoded(), on: LinkID(2)))
            h.feed(.received(Self.envelope(id: 2).encoded(), on: LinkID(1)))
            h.advance(.seconds(1))
            return h.outputs.deliveries.count
        }
        #expect(deliveries([]) == 2)
        #expect(deliveries([.noDedup]) == 3)
        #expect(deliveries([.dedupByOrigin]) == 1)   // the second id from a known origin is taken for a duplicate
    }

    // MARK: PEAT-R5 merging

    @Test func mergesCountersByMaximumAndResendsOnlyOnChange() {
        var h = Self.node(links: 2)
        let out = h.feed(.received(Self.document(counters: [(Self.origin, 5), (Self.other, 2)]), on: LinkID(1)))
        let docs = Self.documents(out)
        #expect(docs.map(\.link) == [LinkID(1), LinkID(2)])
        #expect(docs[0].doc.counters.map(\.count) == [5, 2] && docs[0].doc.nodeID == Self.me)
        // Lower counts change nothing: no write.
        #expect(h.feed(.received(Self.document(counters: [(Self.origin, 4)]), on: LinkID(2))).isEmpty)
        var m = Self.node(faults: [.noMergeResend], links: 2)
        #expect(m.feed(.received(Self.document(counters: [(Self.origin, 5)]), on: LinkID(1))).isEmpty)
    }

    @Test func aMergeThatWouldNotFitIsRefusedWhole() {
        var h = Self.node(links: 1)
        // 40 counters fit (12 + 480 bytes); the 41st would make 504 + its own... a value of 512 at most.
        let many = (1...40).map { (UInt32($0) + 1000, UInt64(1)) }
        #expect(Self.documents(h.feed(.received(Self.document(counters: many), on: LinkID(1)))).count == 1)
        let more = (41...45).map { (UInt32($0) + 1000, UInt64(1)) }
        #expect(h.feed(.received(Self.document(counters: more), on: LinkID(1))).isEmpty)
        #expect(h.node.stateSize.other <= 1 + 41)
    }

    // MARK: PEAT-R6 emergency acks

    @Test func emergencyMergeORsAckMapsAndAddsNewNodes() {
        var held = Self.emergency([(Self.origin, true), (Self.other, false)])
        do { let changed = held.merge(Self.emergency([(Self.other, true), (0x404, false)])); #expect(changed) }
        #expect(Self.acks(held) == ["514:true", "771:true", "1028:false"])
        // An ack never goes back to false; merging what is already known changes nothing.
        do { let changed = held.merge(Self.emergency([(Self.origin, false), (Self.other, false)])); #expect(!changed) }
        #expect(Self.acks(held) == ["514:true", "771:true", "1028:false"])
        do { let changed = held.merge(held); #expect(!changed) }
    }

    @Test func emergencyReplacedOnlyByANewerOne() {
        var held = Self.emergency(at: Self.t0, [(Self.origin, true)])
        do { let changed = held.merge(Self.emergency(source: Self.other, at: Self.t0 - 1, [(Self.other, true)])); #expect(!changed) }
        #expect(held.source == Self.origin)
        do { let changed = held.merge(Self.emergency(source: Self.other, at: Self.t0 + 1, [(Self.other, true)])); #expect(changed) }
        #expect(held.source == Self.other && Self.acks(held) == ["771:true"])
        // Same time, another source: a different emergency, not newer: kept.
        do { let changed = held.merge(Self.emergency(source: Self.origin, at: Self.t0 + 1, [])); #expect(!changed) }
    }

    @Test func nodeAcksTheHeldEmergencyAndMergesAcks() {
        var h = Self.node(links: 2)
        let out = h.feed(.received(Self.document(emergency: Self.emergency([(Self.origin, true), (Self.other, false)])), on: LinkID(1)))
        let held = Self.documents(out).last?.doc
        // R6.3: its own entry true; R2: its own counter counts that change.
        #expect(Self.acks(held?.emergency) == ["257:true", "514:true", "771:false"])
        #expect(held?.counters.map { "\($0.node):\($0.count)" } == ["257:1"])
        // R6.1: a stale copy (other's ack false) changes nothing: no write.
        #expect(h.feed(.received(Self.document(emergency: Self.emergency([(Self.other, false)])), on: LinkID(2))).isEmpty)
        let more = h.feed(.received(Self.document(emergency: Self.emergency([(Self.other, true)])), on: LinkID(2)))
        #expect(Self.acks(Self.documents(more).last?.doc.emergency) == ["257:true", "514:true", "771:true"])
    }

    @Test func emergencyMutantsDeviate() {
        func held(_ faults: Set<Fault>) -> [String] {
            var h = Self.node(faults: faults, links: 1)
            h.feed(.received(Self.document(emergency: Self.emergency([(Self.origin, true), (Self.other, true)])), on: LinkID(1)))
            h.feed(.received(Self.document(emergency: Self.emergency([(Self.other, false)])), on: LinkID(1)))
            h.feed(.received(Self.document(emergency: Self.emergency(source: Self.other, at: Self.t0 - 5, [(Self.other, true)])), on: LinkID(1)))
            return Self.acks(Self.documents(h.outputs).last?.doc.emergency)
        }
        #expect(held([]) == ["257:true", "514:true", "771:true"])
        #expect(held([.noEmergencyAck]) == ["514:true", "771:true"])
        #expect(held([.emergencyOverwrite]) != held([]))
        #expect(held([.olderEmergencyReplaces]).contains("771:true") && held([.olderEmergencyReplaces]).count == 2)
    }

    // MARK: PEAT-R7 robustness

    @Test func refusedValuesChangeNothingAndTheNextValidOneIsHandled() {
        var h = Self.node()
        let bad: [[UInt8]] = [[], [0xB1], Array(Self.envelope().encoded().dropLast()), [0xAF] + [UInt8](repeating: 1, count: 21),
                              [0xB0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 32), Array(Self.document().prefix(11))]
        for b in bad { h.feed(.received(b, on: LinkID(1))) }
        #expect(h.advance(.milliseconds(200)).sends.isEmpty)
        let ok = h.feed(.received(Self.envelope(id: 9).encoded(), on: LinkID(1))) + h.advance(.milliseconds(200))
        #expect(ok.sends.count == 2)
        var crash = Self.node(faults: [.crashOnTruncated])
        crash.feed(.received([0xB1], on: LinkID(1)))
        #expect((crash.feed(.received(Self.envelope(id: 9).encoded(), on: LinkID(1))) + crash.advance(.seconds(1))).isEmpty)
    }

    @Test func stateStaysBoundedUnderFlood() {
        var node = Node(dialect: .peat, config: NodeConfig(address: NodeAddress(peatNode: Self.me)), seed: 1)
        for l in 1...3 { _ = node.handle(.linkUp(LinkID(l), peer: nil), at: .zero) }
        var peak = NodeStateSize()
        for i in 0..<20_000 {
            let value: [UInt8]
            switch i % 4 {
            case 0, 1: value = PeatRelayEnvelope(broadcast: true, messageID: PeatRelayEnvelope.messageID(origin: 7, timestampMs: UInt64(i), payloadHash: 1),
                                                 origin: UInt32(i % 500 + 1), payload: [1, 2, 3]).encoded()
            case 2: value = Self.document(from: UInt32(i + 1), counters: [(UInt32(i + 1), 1)])
            default: value = Self.document(emergency: Self.emergency(source: UInt32(i), at: Self.t0 + UInt64(i), [(UInt32(i + 5000), true)]))
            }
            _ = node.handle(.received(value, on: LinkID(1 + i % 3)), at: .milliseconds(Int64(i)))
            let s = node.stateSize
            peak.dedupEntries = max(peak.dedupEntries, s.dedupEntries)
            peak.other = max(peak.other, s.other)
            peak.scheduledRelays = max(peak.scheduledRelays, s.scheduledRelays)
        }
        #expect(peak.dedupEntries <= PeatEngine.dedupCapacity)
        #expect(peak.scheduledRelays <= 1024)
        #expect(peak.other <= 3 + 42 + 100)   // links, counters and acks: whatever fits 512 bytes
    }
}
