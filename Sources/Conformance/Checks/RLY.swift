import MeshNode

/// RLY: relaying (RELAY-R5, R6; BLEMESH-R7 to R10).
enum RLY {
    static let checks = [bv01]

    static let bv01 = Check("RLY/BV-01", "relays a message for another node once per other link, TTL one less, body untouched",
                            needs: [.relay, .links(3)], rules: ["RELAY-R5.3", "RELAY-R5.4", "BLEMESH-R7", "BLEMESH-R8"]) { t in
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends a message from a stranger, not addressed to the DUT, with TTL 3.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination, ttl: 3))
        try t.send(sent, from: 1)
        // 3. Within the relay window the DUT relays it to T2 and T3, once each.
        let seen = try t.observe(for: t.parameters.quietPeriod)
        let copies = t.copies(of: sent, in: seen)
        try t.expect(copies.map(\.link).sorted() == [LinkID(2), LinkID(3)], "not relayed once on each other link",
                     expected: "one copy on L2 and one on L3", seen: t.summary(seen))
        // 4. Each copy has TTL 2 and the body byte for byte.
        for c in copies {
            try t.expect(c.message.ttl == sent.ttl - 1, "TTL not decremented by one",
                         expected: "ttl \(sent.ttl - 1)", seen: "ttl \(c.message.ttl) on \(c.link)")
            try t.expect(c.message.body == sent.body, "body changed in relay",
                         expected: "\(sent.body.count) bytes as sent", seen: "\(c.message.body.count) bytes, different")
        }
    }
}
