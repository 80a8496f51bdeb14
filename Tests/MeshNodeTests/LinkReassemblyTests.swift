import Foundation
import MeshWire
import Testing
@testable import MeshNode

/// BLEMESH-R4: reassembly per (link, messageID), its bounds, and the app bug 7 mutants.
@Suite struct LinkReassemblyTests {
    static let id = UUID(uuidString: "11111111-2222-4333-8444-555555555555")!
    static let data = Array((0..<400).map { UInt8(truncatingIfNeeded: $0) })
    /// 162-byte pieces: 3 chunks.
    static let chunks = Chunker.chunks(messageID: id, data: data)

    static func feed(_ r: inout LinkReassembly, _ chunks: [MessageChunk], on link: Int = 1, at t: Instant = .zero) -> [[UInt8]] {
        chunks.compactMap { r.add($0, on: LinkID(link), at: t) }
    }

    @Test func anyOrderCompletesOnceInIndexOrder() {
        var r = LinkReassembly()
        let c = Self.chunks
        #expect(Self.feed(&r, [c[2], c[0], c[0], c[1]]) == [Self.data])
        #expect(r.count == 0)
    }

    @Test func repeatedIndexKeepsTheFirstPiece() {
        var r = LinkReassembly()
        var forged = Self.chunks[1]
        forged.payload = Array(repeating: 0, count: forged.payload.count)
        #expect(Self.feed(&r, [Self.chunks[0], Self.chunks[1], forged, Self.chunks[2]]) == [Self.data])
        // Mutant overwrite-chunks: the forged piece wins.
        var mutant = LinkReassembly(faults: [.overwriteChunks])
        #expect(Self.feed(&mutant, [Self.chunks[0], Self.chunks[1], forged, Self.chunks[2]]) != [Self.data])
    }

    @Test func anotherTotalIsDiscarded() {
        var forged = Self.chunks[1]
        forged.totalChunks = 2
        var r = LinkReassembly()
        #expect(Self.feed(&r, [Self.chunks[0], forged] + Self.chunks[1...]) == [Self.data])
        // Mutant trust-chunk-total: completes on the forged total with two pieces.
        var mutant = LinkReassembly(faults: [.trustChunkTotal])
        #expect(Self.feed(&mutant, [Self.chunks[0], forged]) == [Array(Self.data[..<324])])
    }

    @Test func keyedPerLink() {
        let c = Self.chunks
        var r = LinkReassembly()
        // Link 1 misses its last piece; link 2's copy completes on its own.
        #expect(Self.feed(&r, [c[0], c[1]], on: 1).isEmpty)
        #expect(Self.feed(&r, [c[0], c[1], c[2]], on: 2) == [Self.data])
        #expect(r.count == 1)
        r.drop(link: LinkID(1))
        #expect(r.count == 0)
        // Mutant reassemble-by-message-id: link 2's last piece completes link 1's set.
        var mutant = LinkReassembly(faults: [.reassembleByMessageID])
        #expect(Self.feed(&mutant, [c[0], c[1]], on: 1).isEmpty)
        #expect(Self.feed(&mutant, [c[2]], on: 2) == [Self.data])
    }

    @Test func inOrderMutantDropsAheadOfTime() {
        var mutant = LinkReassembly(faults: [.inOrderChunksOnly])
        #expect(Self.feed(&mutant, [Self.chunks[2], Self.chunks[0], Self.chunks[1]]).isEmpty)
    }

    @Test func sixtyFifthEvictsTheOldestAndStaleSetsExpire() {
        var r = LinkReassembly()
        for n in 0..<65 {
            var first = Self.chunks[0]
            first.messageID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, UInt8(n)))
            _ = r.add(first, on: LinkID(1), at: .zero)
        }
        #expect(r.count == LinkReassembly.maxInFlight)
        // The first one was evicted: its remaining pieces start a new set, which cannot complete.
        var rest = Array(Self.chunks[1...])
        for i in rest.indices { rest[i].messageID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0)) }
        #expect(Self.feed(&r, rest).isEmpty)
        // 300 s after its first chunk a set is gone; with no-reassembly-expiry it stays.
        var fresh = LinkReassembly()
        var mutant = LinkReassembly(faults: [.noReassemblyExpiry])
        #expect(Self.feed(&fresh, [Self.chunks[0]]).isEmpty && Self.feed(&mutant, [Self.chunks[0]]).isEmpty)
        let later = Instant.zero + .seconds(300)
        #expect(Self.feed(&fresh, Array(Self.chunks[1...]), at: later).isEmpty)
        #expect(Self.feed(&mutant, Array(Self.chunks[1...]), at: later) == [Self.data])
    }
}
