import MeshNode
import MeshWire

/// RLY checks for the rule only peat has: a hop budget carried in the envelope (PEAT-R3).
extension RLY {
    static let peatChecks = [bv20]

    static let bv20 = Check("RLY/BV-20", "judges the hop budget by the envelope's max_hops: hop 2 of 2 is not relayed, hop 9 of 12 is relayed as hop 10 of 12, every other byte as received",
                            dialects: [.peat], needs: [.relay, .links(2)], rules: ["PEAT-R3", "PEAT-W5"]) { t in
        let probe = try t.probe(PeatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends an envelope from S1 at hop 2 of max_hops 2: a budget below the default
        //    of 7, and spent.
        let spent = probe.with(try t.message(MessageSpec(from: .stranger(1), to: nil)), hop: 2, maxHops: 2)
        try t.send(spent, from: 1)
        let first = try t.observe(for: t.parameters.quietPeriod)
        // 3. No copy of it leaves the DUT.
        try t.expect(t.copies(of: spent, in: first).isEmpty, "relayed an envelope whose own budget (max_hops 2) was spent",
                     expected: "no relay of hop 2 of 2", seen: t.summary(first))
        // 4. T1 sends another from S1 at hop 9 of max_hops 12: above the default, within its budget.
        let long = probe.with(try t.message(MessageSpec(from: .stranger(1), to: nil)), hop: 9, maxHops: 12)
        try t.send(long, from: 1)
        let second = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: long, in: $0).contains { $0.link == LinkID(2) } }
        // 5. It is relayed on L2 as hop 10 of 12, every other field as received.
        let relayed = t.copies(of: long, in: second).filter { $0.link == LinkID(2) }
        try t.expect(!relayed.isEmpty, "did not relay an envelope within its own budget (hop 9 of 12)",
                     expected: "a relay on L2", seen: t.summary(second))
        guard case .peatEnvelope(var expected) = long.value else { throw TesterError("not a peat envelope") }
        expected.hop = 10
        for r in relayed {
            guard case .peatEnvelope(let e) = r.message.value else { continue }
            try t.expect(e == expected, "the relay is not the envelope with hop + 1 and everything else as received",
                         expected: "hop 10 of 12, origin, id, flags and payload as sent",
                         seen: "hop \(e.hop) of \(e.maxHops)" + (e.payload == expected.payload ? "" : ", payload changed"))
        }
    }
}

/// The dialects of the generic checks about unicast and acks (RLY/BV-07, DDP/BV-05, ACK/BV-01
/// to 03): peat has neither. Its envelopes name no destination (peat.md 2.4) and it defines no
/// ack format (section 4): its only acknowledgement is the emergency's ack map (ACK/BV-20, 21).
let notPeat = Set(DialectName.probed).subtracting([.peat])
