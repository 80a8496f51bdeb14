import Foundation
import MeshNode
import MeshWire

/// FRG: chunks and reassembly (BLEMESH-R3, R4). The DUT's reassembly is judged by what it does
/// with the envelope once complete: a broadcast is relayed (to T2), a message addressed to it
/// is acked. Chunk sets are built by the probe and then reordered, repeated or forged.
enum FRG {
    static let checks = [bv01, bv02, bv03, bv04, bv08, bi01, bi02, bi03, bi04, bi05]

    /// A broadcast from S1 whose envelope needs several chunks: its payload alone is over
    /// three 162-byte pieces.
    static func large(_ t: CheckContext, from origin: Party = .stranger(1), to destination: Party? = nil) throws -> ProbeMessage {
        let text = String(repeating: "meshconform fragmentation probe; ", count: 16)
        return try t.message(MessageSpec(from: origin, to: destination, payload: Array(text.utf8)))
    }

    /// Whether `seen` holds a copy of `sent` on L2 (what `expectRelayedIntact` judges).
    static func relayedOnL2(_ t: CheckContext, _ sent: ProbeMessage, in seen: [Observation]) -> Bool {
        t.copies(of: sent, in: seen).contains { $0.link == LinkID(2) }
    }

    /// The DUT relayed `sent` on L2 in `seen`, body intact.
    static func expectRelayedIntact(_ t: CheckContext, _ sent: ProbeMessage, in seen: [Observation], after what: String) throws {
        let copies = t.copies(of: sent, in: seen).filter { $0.link == LinkID(2) }
        try t.expect(!copies.isEmpty, "the envelope was not reassembled after \(what)",
                     expected: "a relay of it on L2 within \(t.parameters.quietPeriod)", seen: t.summary(seen))
        try t.expect(copies.allSatisfy { $0.message.body == sent.body }, "the envelope was reassembled wrongly after \(what)",
                     expected: "the payload byte for byte", seen: "\(copies[0].message.body.count) bytes, different")
    }

    static let bv01 = Check("FRG/BV-01", "reassembles chunks sent in order, and relays the envelope re-chunked under the same messageID",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-R3", "BLEMESH-R4", "BLEMESH-R7"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        _ = try t.observe(for: t.parameters.answerPeriod)   // link-up ANNOUNCEs, not judged here
        // 2. T1 sends a broadcast from S1 in 162-byte chunks, in index order.
        let sent = try large(t)
        let chunks = probe.chunks(of: sent, via: 1)
        t.note("the envelope is \(chunks.count) chunks")
        let start = t.elapsed
        try t.write(chunks, from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod) { relayedOnL2(t, sent, in: $0) }
        // 3. The DUT relays it on L2, payload intact.
        try expectRelayedIntact(t, sent, in: seen, after: "\(chunks.count) chunks in order")
        // 4. The relay's chunks carry the envelope id as messageID, in index order 0..total-1,
        //    flags 0x01 on the first and 0x02 on the last only, pieces of at most 162 bytes.
        let relayed = t.unitsWritten(since: start).filter { $0.link == LinkID(2) }.compactMap { try? $0.chunk.get() }
            .filter { $0.messageID == probe.envelope(of: sent).id }
        try expectWellChunked(t, relayed, what: "the relay on L2")
    }

    /// BLEMESH-R3: one chunk set, as the DUT wrote it on one link.
    static func expectWellChunked(_ t: CheckContext, _ chunks: [MessageChunk], what: String) throws {
        let shown = chunks.map { "\($0.chunkIndex)/\($0.totalChunks) flags 0x\(String($0.flags.rawValue, radix: 16)) \($0.payload.count)B" }.joined(separator: ", ")
        guard let total = chunks.first?.totalChunks else {
            throw CheckFailed(reason: "no chunks for \(what)", expected: "a chunk set", seen: "none")
        }
        try t.expect(chunks.map(\.chunkIndex) == Array(0..<total) && chunks.allSatisfy { $0.totalChunks == total },
                     "\(what) is not one chunk set in index order", expected: "indices 0..<\(total), each with totalChunks \(total)", seen: shown)
        for chunk in chunks {
            var flags: ChunkFlags = []
            if chunk.chunkIndex == 0 { flags.insert(.first) }
            if chunk.chunkIndex == total - 1 { flags.insert(.last) }
            try t.expect(chunk.flags.intersection([.first, .last]) == flags, "\(what) has wrong first / last flags",
                         expected: "0x01 on index 0, 0x02 on index \(total - 1), neither elsewhere", seen: shown)
            try t.expect(chunk.payload.count <= Chunker.payloadPerChunk, "\(what) has a piece over 162 bytes",
                         expected: "pieces of at most \(Chunker.payloadPerChunk) bytes", seen: shown)
        }
    }

    static let bv02 = Check("FRG/BV-02", "reassembles chunks arriving out of order, in pieces smaller than 162 bytes",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-R3", "BLEMESH-R4"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast from S1 split into 100-byte pieces (receivers accept any
        //    split), last index first, then the rest from the highest down.
        let sent = try large(t)
        let chunks = probe.chunks(of: sent, via: 1, pieceSize: 100)
        try t.write(Array(chunks.reversed()), from: 1)
        // 3. The DUT reassembles it in index order and relays it on L2, payload intact.
        let seen = try t.observe(for: t.parameters.quietPeriod) { relayedOnL2(t, sent, in: $0) }
        try expectRelayedIntact(t, sent, in: seen, after: "\(chunks.count) chunks in reverse order")
    }

    static let bv03 = Check("FRG/BV-03", "reassembles per (link, messageID): copies of one envelope interleaved on two links both complete",
                            dialects: [.blemesh], needs: [.acks, .links(2)], rules: ["BLEMESH-R4", "BLEMESH-R11"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 2. A message from S1 to the DUT reaches it by two ways: via S2 and T1, and via T2.
        //    The copies differ in hop path length, so their chunks do not line up (app bug 7).
        let sent = try large(t, to: .dut)
        let viaT1 = probe.chunks(of: probe.withHopPath(sent, [.stranger(1), .stranger(2)]), via: 1)
        let viaT2 = probe.chunks(of: sent, via: 2)
        // 3. The testers interleave the chunks, T1's last one held back to the end: T2's copy
        //    completes first, then T1's.
        for i in 0..<max(viaT1.count, viaT2.count) {
            if i < viaT1.count - 1 { try t.write([viaT1[i]], from: 1) }
            if i < viaT2.count { try t.write([viaT2[i]], from: 2) }
        }
        try t.write([viaT1[viaT1.count - 1]], from: 1)
        let seen = try t.observe(for: t.parameters.answerPeriod) { Set(t.acks(of: sent, in: $0).map(\.link)).count >= 2 }
        // 4. Each copy completes on its own link: the DUT acks the message on L2, and re-acks
        //    the duplicate on L1 (BLEMESH-R11).
        let links = Set(t.acks(of: sent, in: seen).map(\.link))
        try t.expect(links == [LinkID(1), LinkID(2)], "the two interleaved copies did not both complete",
                     expected: "an ack of \(sent.ackID) on L2 and on L1", seen: t.summary(seen))
    }

    static let bv04 = Check("FRG/BV-04", "writes its own envelopes as chunk sets: index order, right total, flags, pieces of at most 162 bytes",
                            dialects: [.blemesh], needs: [.links(2)], rules: ["BLEMESH-R3", "BLEMESH-W1"]) { t in
        // 1. Two testers link to the DUT (it may ANNOUNCE itself, BLEMESH-R14).
        try t.connect(2)
        // 2. T1 sends a message addressed to the DUT (it may ack, R11) and a broadcast (it may
        //    relay, R7): whatever the DUT writes in answer is judged.
        try t.send(try t.message(MessageSpec(from: .stranger(1), to: .dut)), from: 1)
        try t.send(try FRG.large(t), from: 1)
        let seen = try t.observe(for: t.parameters.answerPeriod)
        // 3. Every unit the DUT wrote is a chunk (never a raw envelope: app bug 1) ...
        let units = t.unitsWritten()
        guard !units.isEmpty else { throw t.inconclusive("the DUT wrote nothing to judge (no ANNOUNCE, ack or relay)") }
        for unit in units {
            if case .failure(let error) = unit.chunk {
                throw CheckFailed(reason: "the DUT wrote a unit that is not a chunk", expected: "a blemesh.chunk of at most 512 bytes",
                                  seen: "\(unit.bytes.count) bytes on \(unit.link) at \(unit.time): \(error)")
            }
        }
        // 4. ... every chunk set completes into an envelope whose id is its messageID ...
        let bad = t.malformed(in: seen)
        try t.expect(bad.isEmpty, "a chunk set of the DUT completed into something that is not its envelope",
                     expected: "envelopes whose id is the chunks' messageID", seen: bad.map { "\($0.error) on \($0.link)" }.joined(separator: "; "))
        // 5. ... and each set, per link, is in index order with one total, the first / last
        //    flags and pieces of at most 162 bytes.
        //    (The same envelope sent again on a link, a retry, is a new set from index 0.)
        var sets: [(key: String, chunks: [MessageChunk])] = []
        var open: [String: Int] = [:]
        for unit in units {
            guard case .success(let chunk) = unit.chunk else { continue }
            let key = "\(unit.link) \(chunk.messageID.uuidString)"
            if let i = open[key], !(chunk.chunkIndex == 0 && sets[i].chunks.count >= sets[i].chunks[0].totalChunks) {
                sets[i].chunks.append(chunk)
            } else {
                open[key] = sets.count
                sets.append((key, [chunk]))
            }
        }
        for set in sets { try FRG.expectWellChunked(t, set.chunks, what: "chunk set \(set.key)") }
    }

    /// The ATT_MTU of FRG/BV-08's small link: the app's nominal MTU (BLEMESH-G3), too small
    /// for a full chunk of 162-byte pieces (~330 bytes).
    static let smallMTU = 182

    static let bv08 = Check("FRG/BV-08", "on a link of ATT_MTU 182 notifies only chunks that fit ATT_MTU - 3, re-chunking a relay into smaller pieces",
                            dialects: [.blemesh], needs: [.relay, .links(2), .linkMaxUnit], rules: ["BLEMESH-R3", "BLEMESH-G3"]) { t in
        // 1. T1 links with ATT_MTU 182, as the central: the DUT notifies there, each value at
        //    most 179 bytes. T2 links as usual (ATT_MTU 517).
        try t.connect(2, attMTU: [1: smallMTU])
        guard let link = t.carriage(of: 1) else { throw TesterError("L1 was brought up with an ATT_MTU") }
        t.note("L1: \(link)")
        guard link.dutNotifies else {
            throw CheckNotApplicable("L1 came up as the DUT's own connection (\(link)): the DUT writes there, and BLEMESH-G3 lets a write of any chunk go as a long write; the rule checked here is the notification's")
        }
        let limit = link.maxNotification
        let smallest = Chunker.chunks(messageID: UUID(), data: [0], pieceSize: 1)[0].encoded().count
        guard limit >= smallest else {
            throw t.inconclusive("L1's exchange settled ATT_MTU \(link.attMTU): no chunk (at least \(smallest) bytes) fits a notification there, so nothing can show whether the DUT re-chunks")
        }
        _ = try t.observe(for: t.parameters.answerPeriod)   // link-up ANNOUNCEs: judged in step 4 too
        // 2. T2 sends a broadcast from S1 whose relay needs several full chunks.
        let sent = try large(t)
        try t.send(sent, from: 2)
        // 3. The DUT relays it on L1 (its only candidate).
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).contains { $0.link == LinkID(1) } }
        // 4. Every unit the DUT sent on L1 is a chunk that fits ATT_MTU - 3 (BLEMESH-G3: fit
        //    or re-chunk, never truncate) ...
        let units = t.unitsWritten().filter { $0.link == LinkID(1) }
        if let over = units.first(where: { $0.bytes.count > limit }) {
            throw CheckFailed(reason: "the DUT notified a \(over.bytes.count)-byte value on L1, whose ATT_MTU \(link.attMTU) carries \(limit) (BLEMESH-G3: a notification fits ATT_MTU - 3; the sender re-chunks for that link)",
                              expected: "every value on L1 at most \(limit) bytes", seen: units.map { "\($0.bytes.count)B" }.joined(separator: ", "))
        }
        if let broken = units.first(where: { if case .failure = $0.chunk { true } else { false } }), case .failure(let error) = broken.chunk {
            throw CheckFailed(reason: "the DUT sent a value on L1 that is not a whole chunk (\(error.code.rawValue)): over the air, a chunk notified above ATT_MTU - 3 = \(limit) arrives cut (BLEMESH-G3: fit or re-chunk, never truncate)",
                              expected: "whole chunks of at most \(limit) bytes", seen: "\(broken.bytes.count) bytes at \(broken.time)")
        }
        // 5. ... and the relay's chunks reassemble into the envelope, payload intact.
        let copies = t.copies(of: sent, in: seen).filter { $0.link == LinkID(1) }
        try t.expect(!copies.isEmpty, "the DUT did not relay the envelope on L1, whose ATT_MTU \(link.attMTU) carries \(limit) bytes a value (BLEMESH-R3, G3: it re-chunks into pieces that fit)",
                     expected: "a relay on L1 in chunks of at most \(limit) bytes within \(t.parameters.quietPeriod)", seen: t.summary(seen))
        try t.expect(copies.allSatisfy { $0.message.body == sent.body }, "the relay on L1 reassembled wrongly",
                     expected: "the payload byte for byte", seen: "\(copies[0].message.body.count) bytes, different")
    }

    static let bi01 = Check("FRG/BI-01", "ignores a repeated chunk index, even with other bytes: the first piece is kept",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-R4"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast's chunks in order, chunk 1 twice as it is, then chunk 1
        //    once more carrying other bytes of the same length, then the rest.
        let sent = try large(t)
        let chunks = probe.chunks(of: sent, via: 1)
        var forged = chunks[1]
        forged.payload = Array(repeating: UInt8(ascii: "#"), count: forged.payload.count)
        try t.write([chunks[0], chunks[1], chunks[1], forged] + chunks[2...], from: 1)
        // 3. The DUT relays the envelope as sent, once, on L2.
        let seen = try t.observe(for: t.parameters.quietPeriod) { relayedOnL2(t, sent, in: $0) }
        try expectRelayedIntact(t, sent, in: seen, after: "a repeated chunk index")
        let copies = t.copies(of: sent, in: seen).filter { $0.link == LinkID(2) }
        try t.expect(copies.count == 1, "relayed more than once", expected: "one relay on L2", seen: t.summary(seen))
    }

    static let bi02 = Check("FRG/BI-02", "refuses chunks whose index or total is out of range, without disturbing the set in progress",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-W1", "BLEMESH-R4", "BLEMESH-R19"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast's first two chunks, then chunks of the same messageID with
        //    chunkIndex = totalChunks, chunkIndex -1, totalChunks 0 and totalChunks 1025,
        //    then the rest of the set.
        let sent = try large(t)
        let chunks = probe.chunks(of: sent, via: 1)
        let total = chunks[0].totalChunks
        let junk = Array("meshconform: out of range".utf8)
        let bad = [(total, total), (-1, total), (0, 0), (1, 1025)].map { index, count in
            MessageChunk(messageID: chunks[0].messageID, chunkIndex: index, totalChunks: count, flags: [], payload: junk)
        }
        try t.write(Array(chunks[..<2]) + bad + chunks[2...], from: 1)
        // 3. The DUT relays the envelope as sent on L2: the bad chunks were refused and the
        //    set still completed.
        let seen = try t.observe(for: t.parameters.quietPeriod) { relayedOnL2(t, sent, in: $0) }
        try expectRelayedIntact(t, sent, in: seen, after: "chunks with out-of-range index or total")
    }

    static let bi03 = Check("FRG/BI-03", "discards a chunk announcing another total than the set's first chunk",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-R4"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast's chunk 0, then chunk 1 claiming a total of 2 (a receiver
        //    that trusts it would complete on two pieces: app bug 7), then chunks 1... as sent.
        let sent = try large(t)
        let chunks = probe.chunks(of: sent, via: 1)
        var forged = chunks[1]
        forged.totalChunks = 2
        forged.flags = .last
        try t.write([chunks[0], forged] + chunks[1...], from: 1)
        // 3. The DUT relays the envelope as sent on L2: the forged chunk was discarded.
        let seen = try t.observe(for: t.parameters.quietPeriod) { relayedOnL2(t, sent, in: $0) }
        try expectRelayedIntact(t, sent, in: seen, after: "a chunk with another total")
    }

    static let bi04 = Check("FRG/BI-04", "a chunk set missing a piece never completes, and does not hold up a complete copy from another link",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-R4"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        _ = try t.observe(for: t.parameters.answerPeriod)   // link-up ANNOUNCEs, not judged here
        // 2. T1 sends a broadcast's chunks, via S2, all but the last.
        let sent = try large(t)
        let partial = probe.chunks(of: probe.withHopPath(sent, [.stranger(1), .stranger(2)]), via: 1)
        try t.write(Array(partial.dropLast()), from: 1)
        // 3. Nothing of it comes out: a set with a piece missing never completes.
        let first = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.copies(of: sent, in: first).isEmpty && t.malformed(in: first).isEmpty,
                     "an incomplete chunk set produced an envelope", expected: "nothing", seen: t.summary(first))
        // 4. T2 sends a complete copy of the same envelope (a shorter hop path).
        try t.send(sent, from: 2)
        // 5. The DUT relays T2's copy, on L1, payload intact.
        let second = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).contains { $0.link == LinkID(1) } }
        let copies = t.copies(of: sent, in: second).filter { $0.link == LinkID(1) }
        try t.expect(!copies.isEmpty && copies.allSatisfy { $0.message.body == sent.body },
                     "a complete copy on another link was held up by the incomplete one",
                     expected: "a relay of T2's copy on L1, payload intact", seen: t.summary(second))
    }

    static let bi05 = Check("FRG/BI-05", "discards an incomplete chunk set after the reassembly lifetime, freeing its messageID",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-R4"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        guard let lifetime = t.parameters.reassemblyLifetime else { throw TesterError("blemesh has a reassembly lifetime") }
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast's 162-byte chunks, all but the last.
        let sent = try large(t)
        let old = probe.chunks(of: sent, via: 1)
        try t.write(Array(old.dropLast()), from: 1)
        // 3. The tester waits the page's reassembly lifetime and a sweep's margin (INCONC past
        //    the check's budget: declare checkBudgetSeconds to run it on a real clock).
        let waited = try t.observe(for: lifetime + .seconds(60))
        try t.expect(t.copies(of: sent, in: waited).isEmpty, "an incomplete chunk set produced an envelope",
                     expected: "nothing", seen: t.summary(waited))
        // 4. T1 sends the same envelope again, split in 100-byte pieces: another total, so it
        //    completes only if the stale set is gone.
        try t.write(probe.chunks(of: sent, via: 1, pieceSize: 100), from: 1)
        // 5. The DUT relays it on L2, payload intact.
        let seen = try t.observe(for: t.parameters.quietPeriod) { relayedOnL2(t, sent, in: $0) }
        try expectRelayedIntact(t, sent, in: seen, after: "a stale incomplete set with the same messageID")
    }
}
