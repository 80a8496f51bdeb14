import Conformance
import Foundation
import MeshNode
import MeshWire
import Testing

/// The peat probe: the TTL of the generic checks as an envelope's remaining hop budget, no
/// addressed messages, the DUT's documents heard as state, and a DUT's own id when declared.
@Suite struct PeatProbeTests {
    static func probe(address: String? = nil) throws -> PeatProbe {
        let probe = PeatProbe()
        var capabilities = Capabilities.referenceNode(.peat)
        capabilities.address = address
        _ = try probe.setup(capabilities: capabilities, seed: 1)
        return probe
    }

    static func envelope(_ m: ProbeMessage) -> PeatRelayEnvelope? {
        if case .peatEnvelope(let e) = m.value { e } else { nil }
    }

    @Test func ttlIsTheTransmissionsLeftInTheHopBudget() throws {
        let p = try Self.probe()
        // TTL t: max_hops - hop = t - 1, max_hops 7 unless t needs more.
        for (ttl, hop, maxHops) in [(8, 0, 7), (3, 5, 7), (1, 7, 7), (12, 0, 11), (256, 0, 255)] {
            let m = try p.message(MessageSpec(to: nil, ttl: ttl))
            let e = try #require(Self.envelope(m))
            #expect(e.hop == UInt8(hop) && e.maxHops == UInt8(maxHops), "ttl \(ttl): hop \(e.hop) of \(e.maxHops)")
            // Heard back, the same envelope reads as the same TTL, and one relay as one less.
            guard case .message(let heard)? = p.hear(e.encoded(), on: LinkID(1)) else { Issue.record("not heard as a message"); continue }
            #expect(heard.ttl == ttl && heard.key == m.key && heard.body == m.body)
            if e.hop < e.maxHops {
                var relayed = e
                relayed.hop += 1
                guard case .message(let next)? = p.hear(relayed.encoded(), on: LinkID(1)) else { continue }
                #expect(next.ttl == ttl - 1)
            }
        }
        // TTL 0 is hop 8 of 7: an envelope every decoder refuses (PEAT-W5).
        let zero = try #require(Self.envelope(try p.message(MessageSpec(to: nil, ttl: 0))))
        #expect(throws: WireError.self) { try PeatRelayEnvelope(decoding: zero.encoded()) }
        #expect(throws: CheckNotApplicable.self) { try p.message(MessageSpec(to: .dut)) }
    }

    @Test func payloadIsADocumentTheDUTHasNothingToMergeFrom() throws {
        let p = try Self.probe()
        let m = try p.message(MessageSpec(from: .stranger(4), to: nil, payload: Array("hi".utf8)))
        let doc = try PeatDocument(decoding: m.payload)
        #expect(doc.nodeID == p.node(.stranger(4)) && doc.chat == Array("hi".utf8) && doc.counters.isEmpty && doc.emergency == nil)
        // Fresh ids per message from one origin.
        #expect(try p.message(MessageSpec(from: .stranger(4), to: nil)).key != m.key)
    }

    @Test func documentsAreStateAndJunkIsMalformed() throws {
        let p = try Self.probe()
        guard case .state(.peatDocument(let d))? = p.hear(p.document(of: .dut, version: 3), on: LinkID(2)) else {
            Issue.record("a document is not heard as state"); return
        }
        #expect(d.version == 3 && d.nodeID == p.node(.dut))
        guard case .malformed(let e)? = p.hear([0xB1, 0x00], on: LinkID(1)) else { Issue.record("junk not malformed"); return }
        #expect(e.code == .truncated)
    }

    @Test func identitiesAreFixedAndADeclaredOneWins() throws {
        let p = try Self.probe()
        #expect(p.node(.dut) == 0x0D07_0001 && p.name(p.node(.tester(2))) == "T2" && p.name(p.node(.stranger(9))) == "S9")
        // Over the air a DUT's own id comes as its address: the id's 4 bytes, little-endian, in hex.
        let own = try Self.probe(address: "44332211")
        #expect(own.node(.dut) == 0x1122_3344 && own.dutAddress == NodeAddress(peatNode: 0x1122_3344))
    }
}
