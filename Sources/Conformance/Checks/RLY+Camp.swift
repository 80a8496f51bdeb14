import MeshNode
import MeshWire

extension DialectName {
    /// The probed dialects whose messages carry a hop budget: all but camp, whose BLEMessage
    /// has no TTL (camp.md CAMP-R3). The TTL checks apply to these alone.
    static var withTTL: Set<DialectName> { Set(probed).subtracting([.camp]) }
}

/// RLY checks for camp's relay rule: no TTL, and the value goes on byte for byte (CAMP-R4).
extension RLY {
    static let campChecks = [bv30]

    static let bv30 = Check("RLY/BV-30", "relays a broadcast and a message for another user byte for byte, as written, once on every other link",
                            dialects: [.camp], needs: [.relay, .links(3)], rules: ["CAMP-R4", "CAMP-W1"]) { t in
        let camp = try t.probe(CampProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends, from S1, a broadcast and then a message for S2, each written as the app
        //    writes it (keys in declaration order, not sorted), with spacing and a key the page
        //    says to ignore: valid, but not how an encoder that sorts keys would write it.
        for destination in [nil, Party.stranger(2)] {
            let plain = try t.message(MessageSpec(from: .stranger(1), to: destination))
            guard case .camp(let m) = plain.value else { throw TesterError("not a camp message") }
            let text = "{\"id\": \"\(m.id)\", \"senderID\": \"\(m.senderID)\", \"senderName\": \"\(m.senderName)\", "
                + "\"recipientID\": \"\(m.recipientID)\", \"messageType\": \"text\", \"content\": \"\(m.content)\", "
                + "\"timestamp\": 767923200.25, \"appVersion\": \"1.0\"}"
            let sent = camp.rewritten(plain, as: Array(text.utf8))
            try t.write(sent.body, from: 1, what: "app-order JSON: \(text)")
            // 3. Within the relay window one copy goes out on L2 and one on L3, none on L1 ...
            let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).count >= 2 }
            let copies = t.copies(of: sent, in: seen)
            try t.expect(copies.map(\.link).sorted() == [LinkID(2), LinkID(3)], "not relayed once on each other link",
                         expected: "one copy on L2 and one on L3", seen: t.summary(seen))
            // 4. ... each the bytes T1 wrote, unchanged.
            try t.expect(copies.allSatisfy { $0.message.body == sent.body }, "the relay is not the value as received",
                         expected: "\(sent.body.count) bytes as written", seen: copies.map { "\($0.message.body.count) bytes: \(String(decoding: $0.message.body, as: UTF8.self))" }.joined(separator: "; "))
        }
    }
}
