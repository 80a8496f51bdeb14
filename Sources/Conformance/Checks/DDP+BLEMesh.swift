import MeshNode
import MeshWire

/// DDP checks for blemesh, where the relay-only ones lean on relay's own packets.
extension DDP {
    static let blemeshChecks = [bv11, bv16]

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

    static let bv16 = Check("DDP/BV-16", "an envelope bearing its own origin id that it never sent is neither delivered nor relayed",
                            dialects: [.blemesh], needs: [.upperTester, .relay, .links(2)], rules: ["BLEMESH-R6.1"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast whose originID is the DUT's, which the DUT never sent, so
        //    only its origin id, not its cache, marks it as its own (BLEMesh delivers such an
        //    envelope: blemesh.md section 6, row 20).
        let forged = try t.message(MessageSpec(from: .dut, to: nil))
        try t.send(forged, from: 1)
        let seen = try t.observe(for: t.parameters.answerPeriod)
        // 3. The app is not given it, and no copy leaves on L2.
        try t.expect(try t.deliveries(of: forged, in: seen).isEmpty, "delivered an envelope with its own origin id that it never sent",
                     expected: "no delivery (BLEMESH-R6.1: its own origin is dropped)", seen: t.summary(seen))
        try t.expect(t.sightings(of: forged, in: seen).isEmpty, "relayed an envelope with its own origin id",
                     expected: "no relay", seen: t.summary(seen))
        // 4. A broadcast from S1 right after is delivered: the DUT's app is listening, so the
        //    silence of step 3 says something (else nothing can be judged).
        let fresh = try t.message(MessageSpec(from: .stranger(1), to: nil))
        try t.send(fresh, from: 1)
        let after = try t.observe(for: t.parameters.answerPeriod)
        if try t.deliveries(of: fresh, in: after).isEmpty {
            throw t.inconclusive("a broadcast from another origin was not delivered either, so no delivery of its own origin's envelope says nothing")
        }
    }
}
