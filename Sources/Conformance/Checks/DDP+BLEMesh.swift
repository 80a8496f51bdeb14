import MeshNode
import MeshWire

/// DDP checks for blemesh, where the relay-only ones lean on relay's own packets.
extension DDP {
    static let blemeshChecks = [bv11]

    static let bv11 = Check("DDP/BV-11", "an envelope dropped for its spent TTL is still recorded, so a later copy is a duplicate",
                            dialects: [.blemesh], needs: [.relay, .links(3)], rules: ["BLEMESH-R5", "BLEMESH-R7"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. T1 sends a broadcast from S1 with ttl 1: delivered, not relayed.
        let spent = try t.message(MessageSpec(from: .stranger(1), to: nil, ttl: 1))
        try t.send(spent, from: 1)
        let first = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.sightings(of: spent, in: first).isEmpty, "relayed an envelope with ttl 1",
                     expected: "no relay", seen: t.summary(first))
        // 3. T2 sends the same envelope with ttl 3, as a copy over a shorter path would arrive
        //    (BLEMESH-R5 checks every envelope before anything else, the TTL included).
        let again = probe.withTTL(spent, 3)
        try t.send(again, from: 2)
        // 4. It is a duplicate: not relayed.
        let second = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.sightings(of: again, in: second).isEmpty, "the ttl-1 envelope was not recorded: its later copy was relayed",
                     expected: "no relay", seen: t.summary(second))
        // 5. The DUT still relays fresh envelopes.
        try t.expectStillRelaying(after: "a duplicate")
    }
}
