import MeshNode

/// DDP: de-duplication (RELAY-R3, BLEMESH-R5).
enum DDP {
    static let checks = [bv01]

    static let bv01 = Check("DDP/BV-01", "the same message twice on one link is relayed once",
                            needs: [.relay, .links(2)], rules: ["RELAY-R3", "BLEMESH-R5"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a message for another node, then the same bytes again after the relay window.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        try t.send(sent, from: 1)
        let first = try t.observe(for: t.parameters.quietPeriod)
        try t.send(sent, from: 1)
        let second = try t.observe(for: t.parameters.quietPeriod)
        // 3. The first copy is relayed to T2; the second is not relayed at all.
        try t.expect(!t.copies(of: sent, in: first).isEmpty, "the first copy was not relayed (cannot judge de-duplication)",
                     expected: "a relay on L2", seen: t.summary(first))
        try t.expect(t.copies(of: sent, in: second).isEmpty, "the duplicate was relayed again",
                     expected: "nothing after the second copy", seen: t.summary(second))
    }
}
