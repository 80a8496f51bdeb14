import MeshNode
import MeshWire

/// DDP for peat: envelopes name no destination, so every new one reaches the app (PEAT-R3.3),
/// and the de-duplication cache is what keeps it from reaching it twice (PEAT-R4).
extension DDP {
    static let peatChecks = [bv20]

    static let bv20 = Check("DDP/BV-20", "an envelope reaches the app once, however often and by whichever link it arrives",
                            dialects: [.peat], needs: [.upperTester, .links(2)], rules: ["PEAT-R3", "PEAT-R4"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends an envelope from S1; then T1 and T2 each send it again.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: nil))
        var seen: [Observation] = []
        for tester in [1, 1, 2] {
            try t.send(sent, from: tester)
            seen += try t.observe(for: t.parameters.quietPeriod)
        }
        // 3. The app got its payload exactly once.
        let deliveries = try t.deliveries(of: sent, in: seen)
        try t.expect(deliveries.count == 1, deliveries.isEmpty ? "the envelope never reached the app" : "delivered more than once",
                     expected: "one delivery", seen: "\(deliveries.count) deliveries: \(t.summary(seen))")
    }
}
