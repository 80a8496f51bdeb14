import Foundation
import MeshNode
import MeshWire

/// RLY checks for rules only blemesh has: hop paths and split horizon by device id
/// (BLEMESH-R7), fan-out (R8) and directed relay (R9).
extension RLY {
    static let blemeshChecks = [bv11, bv12, bv13, bv14, bv15, bv21, bv16, bv22]

    static let bv11 = Check("RLY/BV-11", "never relays to a neighbour already on the hop path (split horizon by device id)",
                            dialects: [.blemesh], needs: [.relay, .links(3)], rules: ["BLEMESH-R1", "BLEMESH-R7"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends a broadcast from S1 that already went through T2: hopPath [S1, T2, T1].
        let sent = probe.withHopPath(try t.message(MessageSpec(from: .stranger(1), to: nil)), [.stranger(1), .tester(2)])
        try t.send(sent, from: 1)
        // 3. The DUT relays it on L3 only: T1 is the ingress and T2 is on the path (app bug 4).
        let seen = try t.observe(for: t.parameters.quietPeriod) { !t.copies(of: sent, in: $0).isEmpty }
        try t.expect(t.copies(of: sent, in: seen).map(\.link) == [LinkID(3)], "relayed to a neighbour on the hop path, or not at all",
                     expected: "one relay, on L3", seen: t.summary(seen))
    }

    static let bv12 = Check("RLY/BV-12", "relays the envelope with its own id appended to the hop path and ttl - 1, every other field as received",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-R7"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        _ = try t.dutAddress()   // needed below: NA while the DUT's own id is unknown
        // 2. T1 sends a broadcast from S1 that came via S2: hopPath [S1, S2, T1], ttl 3.
        let sent = probe.withHopPath(try t.message(MessageSpec(from: .stranger(1), to: nil, ttl: 3)), [.stranger(1), .stranger(2)])
        try t.send(sent, from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).contains { $0.link == LinkID(2) } }
        let relayed = t.relayedEnvelopes(of: sent, in: seen).filter { $0.link == LinkID(2) }
        try t.expect(!relayed.isEmpty, "not relayed", expected: "a relay on L2", seen: t.summary(seen))
        // 3. The relay's hop path is the received one plus the DUT; its ttl is 2; id, origin,
        //    name, sequence, timestamp, flags and payload are as received.
        var expected = probe.envelope(of: sent, via: 1)
        expected.hopPath.append(probe.id(.dut))
        expected.ttl = 2
        for r in relayed {
            try t.expect(r.envelope.hopPath == expected.hopPath, "the hop path is not the received one with the DUT appended",
                         expected: "[\(expected.hopPath.map(probe.name).joined(separator: ","))]",
                         seen: "[\(r.envelope.hopPath.map(probe.name).joined(separator: ","))]")
            try t.expect(r.envelope == expected, "a field other than ttl and hopPath changed in relay",
                         expected: BLEMeshProbe.summary(expected, name: probe.name),
                         seen: BLEMeshProbe.summary(r.envelope, name: probe.name))
        }
    }

    static let bv13 = Check("RLY/BV-13", "fans a broadcast out to every candidate link when there are at most three",
                            dialects: [.blemesh], needs: [.relay, .links(4)], rules: ["BLEMESH-R8"]) { t in
        // 1. Four testers link to the DUT: a broadcast from T1 has three candidates, and
        //    K = ceil(sqrt(3)) + 1 = 3 covers them all.
        try t.connect(4)
        // 2. T1 sends a broadcast of its own.
        let sent = try t.message(MessageSpec(from: .tester(1), to: nil))
        try t.send(sent, from: 1)
        // 3. The DUT relays it once on each of L2, L3 and L4.
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).count >= 3 }
        try t.expect(t.copies(of: sent, in: seen).map(\.link).sorted() == [2, 3, 4].map(LinkID.init), "not fanned out to every candidate",
                     expected: "one relay on each of L2, L3, L4", seen: t.summary(seen))
    }

    static let bv14 = Check("RLY/BV-14", "fans a broadcast out to exactly ceil(sqrt(N)) + 1 of N = 5 candidate links",
                            dialects: [.blemesh], needs: [.relay, .links(6)], rules: ["BLEMESH-R8"]) { t in
        // 1. Six testers link to the DUT: a broadcast from T1 has five candidates, K = 4.
        try t.connect(6)
        // 2. Three times, T1 sends a broadcast of its own (the choice of links is random, so
        //    only the count and the ingress are judged).
        for round in 1...3 {
            let sent = try t.message(MessageSpec(from: .tester(1), to: nil))
            try t.send(sent, from: 1)
            // 3. The DUT relays it on exactly four distinct links, none of them L1. (The count is
            //    judged here, over the response window: on the air a DUT's own traffic on six
            //    links can queue a relay past the jitter window, which RLY/BV-02 judges.)
            let seen = try t.observe(for: t.parameters.answerPeriod) { t.copies(of: sent, in: $0).count >= 4 }
            let links = t.copies(of: sent, in: seen).map(\.link)
            try t.expect(links.count == 4 && Set(links).count == 4 && !links.contains(LinkID(1)),
                         "broadcast \(round) was not fanned out to K = 4 of the 5 candidates",
                         expected: "one relay on each of 4 links among L2...L6", seen: t.summary(seen))
        }
    }

    static let bv15 = Check("RLY/BV-15", "relays an envelope addressed to a neighbour on that neighbour's link only",
                            dialects: [.blemesh], needs: [.relay, .links(3)], rules: ["BLEMESH-R6.6", "BLEMESH-R9"]) { t in
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends a message from S1 addressed to T3.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: .tester(3)))
        try t.send(sent, from: 1)
        // 3. The DUT relays it on L3 alone.
        let seen = try t.observe(for: t.parameters.quietPeriod) { !t.copies(of: sent, in: $0).isEmpty }
        try t.expect(t.copies(of: sent, in: seen).map(\.link) == [LinkID(3)], "the directed envelope did not go to its destination alone",
                     expected: "one relay, on L3", seen: t.summary(seen))
    }
}

extension RLY {
    static let bv21 = Check("RLY/BV-21", "relays an envelope for a node with no route and no link to every candidate link, at once",
                            dialects: [.blemesh], needs: [.relay, .links(3)], rules: ["BLEMESH-R9"]) { t in
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends a message from S1 addressed to S2, which is no neighbour and to which the
        //    DUT has no route.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: .stranger(2)))
        try t.send(sent, from: 1)
        // 3. The DUT relays it on L2 and L3 within the jitter window (no waiting for S2).
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).count >= 2 }
        try t.expect(t.copies(of: sent, in: seen).map(\.link).sorted() == [LinkID(2), LinkID(3)], "the envelope without a route did not go to every candidate",
                     expected: "one relay on L2 and one on L3", seen: t.summary(seen))
    }

    static let bv16 = Check("RLY/BV-16", "accepts chunks and envelopes in any JSON form the page allows (order, spacing, 3.0, lowercase UUIDs, unknown keys, null optionals)",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-W5", "BLEMESH-R4", "BLEMESH-R7"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast from S1 written as another JSON encoder might: envelope keys
        //    out of order, whitespace, ttl 3.0, lowercase UUIDs, an unknown key, `/` unescaped,
        //    destinationID null; each chunk likewise (keys reversed, spaces, lowercase
        //    messageID, an unknown key).
        let sent = try t.message(MessageSpec(from: .stranger(1), to: nil, ttl: 3, payload: Array("meshconform ??? >>> non-canonical".utf8)))
        let e = probe.envelope(of: sent, via: 1)
        func uuid(_ id: UUID) -> String { "\"\(id.uuidString.lowercased())\"" }
        let envelopeText = """
            { "payload" : "\(Data(e.payload).base64EncodedString())", "ttl": 3.0, "hopPath": [\(e.hopPath.map(uuid).joined(separator: ", "))],
              "sequenceNumber": \(e.sequenceNumber), "originName": "\(e.originName)", "destinationID": null, "id": \(uuid(e.id)),
              "originID": \(uuid(e.originID)), "timestamp": "\(ISO8601Seconds.format(e.timestamp))", "isControlMessage": false,
              "isEncrypted": false, "isGroupMessage": false, "meshconform": {"unknown": [1, 2]} }
            """
        let pieces = BLEMeshProbe.split(Array(envelopeText.utf8), messageID: e.id, pieceSize: Chunker.payloadPerChunk)
        for c in pieces {
            let chunk = "{ \"totalChunks\" : \(c.totalChunks), \"payload\": \"\(Data(c.payload).base64EncodedString())\", \"messageID\": \(uuid(c.messageID)), \"flags\": \(c.flags.rawValue), \"chunkIndex\": \(c.chunkIndex).0, \"via\": \"meshconform\" }"
            try t.write(Array(chunk.utf8), from: 1, what: "non-canonical chunk \(c.chunkIndex)/\(c.totalChunks) of \(BLEMeshProbe.short(e.id)): \(chunk.prefix(100))...")
        }
        // 3. The DUT relays it on L2 with ttl 2 and the payload untouched.
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).contains { $0.link == LinkID(2) } }
        let copies = t.copies(of: sent, in: seen).filter { $0.link == LinkID(2) }
        try t.expect(!copies.isEmpty, "a valid non-canonical envelope was refused", expected: "a relay on L2", seen: t.summary(seen))
        try t.expect(copies.allSatisfy { $0.message.ttl == 2 && $0.message.body == sent.body }, "relayed with wrong TTL or payload",
                     expected: "ttl 2, payload as sent", seen: copies.map { "ttl \($0.message.ttl), \($0.message.body.count) bytes" }.joined(separator: "; "))
    }

    static let bv22 = Check("RLY/BV-22", "relays an envelope whatever its signature: one no key verifies is not refused",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-R6"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast from S1 carrying a 64-byte signature that no key verifies.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: nil, ttl: 3))
        var e = probe.envelope(of: sent, via: 1)
        e.signature = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for c in BLEMeshProbe.split(e.encoded(), messageID: e.id, pieceSize: Chunker.payloadPerChunk) {
            try t.write(c.encoded(), from: 1, what: "chunk \(c.chunkIndex)/\(c.totalChunks) of \(BLEMeshProbe.short(e.id)), signed with garbage")
        }
        // 3. The DUT relays it on L2.
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).contains { $0.link == LinkID(2) } }
        try t.expect(t.copies(of: sent, in: seen).contains { $0.link == LinkID(2) }, "refused an envelope for its signature",
                     expected: "a relay on L2", seen: t.summary(seen))
    }
}
