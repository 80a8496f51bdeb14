import Conformance
import Foundation
import MeshNode
import MeshWire
import Testing

/// The blemesh probe: fixed identities, envelopes and their chunks as BLEMESH-R2/R3 say, and
/// reading the DUT's chunks back per link (BLEMESH-R4), junk included.
@Suite struct BLEMeshProbeTests {
    static func probe(address: String? = nil) throws -> BLEMeshProbe {
        let probe = BLEMeshProbe()
        var capabilities = Capabilities.referenceNode(.blemesh)
        capabilities.address = address
        _ = try probe.setup(capabilities: capabilities, seed: 1)
        return probe
    }

    static func packet(_ probe: BLEMeshProbe, _ units: [[UInt8]], on link: Int = 1) -> [HeardPacket] {
        units.compactMap { probe.hear($0, on: LinkID(link)) }
    }

    @Test func identitiesCarryTheCheckAndTheDeclaredAddressWins() throws {
        let p = try Self.probe()
        // Outside a run the seed (1) is the check number: its low five bytes tag the parties.
        #expect(p.address(of: .dut).description == "DD000000-0000-4000-8000-000000000000")
        #expect(p.address(of: .tester(2)).description == "7E000000-0000-4000-8000-000000000102")
        #expect(p.address(of: .stranger(9)).description == "5E000000-0000-4000-8000-000000000109")
        let next = BLEMeshProbe()
        _ = try next.setup(capabilities: .referenceNode(.blemesh), seed: 1, identifiers: RunIdentifiers(runBase: 0xAB_CDEF_0123, checkIndex: 1))
        #expect(next.address(of: .tester(2)).description == "7E000000-0000-4000-8000-ABCDEF012402")
        let declared = try Self.probe(address: "0F0F0F0F-0000-4000-8000-000000000001")
        #expect(declared.dutAddress.description == "0F0F0F0F-0000-4000-8000-000000000001")
    }

    @Test func messagesFollowTheOriginatorRules() throws {
        let p = try Self.probe()
        let a = try p.message(MessageSpec(from: .stranger(1), to: nil))
        let b = try p.message(MessageSpec(from: .stranger(1), to: .dut, ttl: 5))
        let ea = p.envelope(of: a), eb = p.envelope(of: b)
        // BLEMESH-R2: fresh ids, per-origin sequence from 1, hopPath [origin], ttl 3 by default.
        #expect(ea.id != eb.id && ea.sequenceNumber == 1 && eb.sequenceNumber == 2)
        #expect(ea.destinationID == nil && eb.destinationID == p.id(.dut) && a.ttl == 3 && b.ttl == 5)
        #expect(a.key == "\(ea.id.uuidString)-\(ea.originID.uuidString)-1" && a.ackID == ea.id.uuidString)
        // Via two testers: one dedup key, hop paths ending with each tester.
        #expect(p.envelope(of: a, via: 1).hopPath == [p.id(.stranger(1)), p.id(.tester(1))])
        #expect(p.envelope(of: a, via: 2).hopPath == [p.id(.stranger(1)), p.id(.tester(2))])
        let mine = try p.message(MessageSpec(from: .tester(3), to: nil))
        #expect(p.envelope(of: mine, via: 3).hopPath == [p.id(.tester(3))])
        // BLEMESH-R3: 162-byte pieces, first / last flags, messageID = envelope id.
        let chunks = p.chunks(of: a, via: 1)
        #expect(chunks.count > 1 && chunks.allSatisfy { $0.messageID == ea.id && $0.payload.count <= 162 && $0.totalChunks == chunks.count })
        #expect(chunks.first?.flags == .first && chunks.last?.flags == .last)
    }

    @Test func hearsEachLinkApartAndOnlyWhenComplete() throws {
        let p = try Self.probe()
        let sent = try p.message(MessageSpec(from: .stranger(1), to: nil))
        var relayed = p.envelope(of: sent, via: 1)
        relayed.hopPath.append(p.id(.dut))
        relayed.ttl = 2
        let units = Chunker.chunks(of: relayed).map { $0.encoded() }
        // Out of order, interleaved across two links: nothing until each set is complete.
        #expect(p.hear(units[2], on: LinkID(1)) == nil && p.hear(units[0], on: LinkID(2)) == nil)
        #expect(Self.packet(p, [units[0], units[1]], on: 1).count == 1)
        let heard = Self.packet(p, Array(units[1...]), on: 2)
        guard heard.count == 1, case .message(let m) = heard[0] else { Issue.record("not one message: \(heard)"); return }
        // The same key as the tester's message, so copies(of:) finds the relay.
        #expect(m.key == sent.key && m.ttl == 2 && m.body == sent.body && m.hopPath?.last == p.address(of: .dut))
        #expect(p.describe(units[units.count - 1]).contains("user id"))
    }

    @Test func readsAcksAndControlAndCallsJunkMalformed() throws {
        let p = try Self.probe()
        let sent = try p.message(MessageSpec(from: .stranger(1), to: .dut))
        let ack = p.ack(of: sent, by: .dut)
        guard case .ack(let id, let destination, _)? = Self.packet(p, p.units(of: ack, via: 1)).first else { Issue.record("not an ack"); return }
        #expect(id == sent.ackID && destination == sent.origin)
        let announce = p.control(.peerAnnounce(p.announce(of: .dut)), from: .dut, ttl: 2)
        guard case .control(.peerAnnounce(let a), _)? = Self.packet(p, p.units(of: announce, via: 1)).first else { Issue.record("not ANNOUNCE"); return }
        #expect(a.deviceID == p.id(.dut) && a.hopCount == 0)
        // A raw envelope (app bug 1), a set that completes into junk, a set whose total changes.
        guard case .malformed? = p.hear(p.envelope(of: announce).encoded(), on: LinkID(3)) else { Issue.record("raw envelope not malformed"); return }
        let junk = MessageChunk(messageID: p.newID(), chunkIndex: 0, totalChunks: 1, flags: [.first, .last], payload: Array("{}".utf8))
        guard case .malformed? = p.hear(junk.encoded(), on: LinkID(3)) else { Issue.record("junk set not malformed"); return }
        var chunks = p.chunks(of: sent, via: 1)
        chunks[1].totalChunks += 1
        let outcomes = chunks.map { p.hear($0.encoded(), on: LinkID(4)) }
        #expect(outcomes.contains { if case .malformed? = $0 { true } else { false } })
    }
}
