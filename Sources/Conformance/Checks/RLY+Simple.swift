import MeshNode
import MeshWire

/// RLY checks for seed 000's relay controller (simple): the relay copy's fields (SIMPLE-R4.3),
/// the dense TTL cap (R5) and the relay probability by degree (R6).
extension RLY {
    static let simpleChecks = [bv40, bv41, bv42]

    static let bv40 = Check("RLY/BV-40", "relays with the probability its degree gives: about 70 % of 40 fresh messages at 5 links",
                            dialects: [.simple], needs: [.relay, .links(5)], rules: ["SIMPLE-R6", "SIMPLE-R7"]) { t in
        // SIMPLE-R6: 70 % at 5-6 links. Of 40 messages a correct node relays 28 on average
        // (sd 2.9); 17...37 holds with probability above 0.999, while a node that always
        // relays (or never) falls outside.
        let count = 40, accepted = 17...37
        // 1. Five testers link to the DUT.
        try t.connect(5)
        // 2. T1 sends 40 fresh messages from strangers, 8 at a time so no more than 20 relays
        //    wait at once (SIMPLE-R7), watching the relay window after each batch.
        var relayed = 0
        for batch in 0..<(count / 8) {
            let sent = try (0..<8).map { n in try t.message(MessageSpec(from: .stranger(1 + (batch * 8 + n) % 9), to: nil)) }
            for m in sent { try t.send(m, from: 1) }
            let seen = try t.observe(for: t.parameters.quietPeriod)
            relayed += sent.filter { !t.copies(of: $0, in: seen).isEmpty }.count
        }
        t.note("\(relayed) of \(count) messages relayed")
        // 3. The number relayed is within what 70 % allows.
        try t.expect(accepted.contains(relayed), "the share of messages relayed does not match the degree's probability",
                     expected: "\(accepted.lowerBound)...\(accepted.upperBound) of \(count) relayed (70 % at 5 links)",
                     seen: "\(relayed) of \(count) relayed")
    }

    static let bv41 = Check("RLY/BV-41", "relays a copy with relayCount + 1, isRelayed true, lastRelay its own name, every other field as received",
                            dialects: [.simple], needs: [.relay, .links(2)], rules: ["SIMPLE-R4.3", "SIMPLE-R1"]) { t in
        let probe = try t.probe(SimpleProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        _ = try t.dutAddress()   // needed below: NA while the DUT's own id is unknown
        // 2. T1 sends a message from S1 that T1 has relayed once: ttl 4, relayCount 1,
        //    isRelayed, lastRelay T1.
        let sent = probe.edited(try t.message(MessageSpec(from: .stranger(1), to: nil, ttl: 4))) { m in
            m.relayCount = 1
            m.isRelayed = true
            m.lastRelay = probe.name(of: .tester(1))
        }
        try t.send(sent, from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).contains { $0.link == LinkID(2) } }
        let copies = t.copies(of: sent, in: seen).filter { $0.link == LinkID(2) }
        try t.expect(!copies.isEmpty, "not relayed", expected: "a relay on L2", seen: t.summary(seen))
        // 3. The copy has ttl 3, relayCount 2, isRelayed true, lastRelay the DUT's name, and
        //    id, sender, content, timestamp and originalSender as received.
        var expected = probe.simpleMessage(of: sent)
        expected.ttl = 3
        expected.relayCount = 2
        expected.isRelayed = true
        expected.lastRelay = probe.name(of: .dut)
        for c in copies {
            guard case .simple(let relayed) = c.message.value else { continue }
            try t.expect(relayed == expected, "the relay copy's fields are not the received ones updated as SIMPLE-R4.3 says",
                         expected: String(decoding: expected.encoded(), as: UTF8.self), seen: String(decoding: relayed.encoded(), as: UTF8.self))
        }
    }

    static let bv42 = Check("RLY/BV-42", "with more than 4 links, caps the TTL it relays at 3",
                            dialects: [.simple], needs: [.relay, .links(5)], rules: ["SIMPLE-R5"]) { t in
        // 1. Five testers link to the DUT: it is dense.
        try t.connect(5)
        // 2. T1 sends a message from S1 with ttl 5 (again, fresh, while the DUT skips it by
        //    chance: 70 % at 5 links).
        let (sent, seen) = try t.sendRelayable(MessageSpec(from: .stranger(1), to: nil, ttl: 5), from: 1)
        try t.expect(!t.sightings(of: sent, in: seen).isEmpty, "not relayed", expected: "a relay", seen: t.summary(seen))
        try t.expectReadable(sent, in: seen)
        let copies = t.copies(of: sent, in: seen)
        // 3. Every copy carries ttl 3, not 4.
        try t.expect(copies.allSatisfy { $0.message.ttl == 3 }, "a dense node relayed a TTL above 3",
                     expected: "ttl 3 on every copy", seen: copies.map { "ttl \($0.message.ttl) on \($0.link)" }.joined(separator: ", "))
    }
}
