import MeshNode
import MeshWire

/// ACK checks for peat, whose only acknowledgement is the emergency's ack map, merged as a
/// CRDT in every node's document (PEAT-R5, R6): the `acks` capability of a peat DUT.
extension ACK {
    static let peatChecks = [bv20, bv21]

    static let bv20 = Check("ACK/BV-20", "merges an emergency's ack maps by OR (new nodes added, no ack back to false), adds its own ack, and writes each change at once",
                            dialects: [.peat], needs: [.acks, .links(2)], rules: ["PEAT-R6.1", "PEAT-R6.3", "PEAT-R6.4", "PEAT-R5"]) { t in
        let probe = try t.probe(PeatProbe.self)
        let s1 = probe.node(.stranger(1)), s2 = probe.node(.stranger(2)), s3 = probe.node(.stranger(3))
        // Raised now: newer than any emergency a DUT that keeps running holds from before.
        let raised = probe.clockMs(at: t.sessionClock)
        func emergency(_ acks: [(UInt32, Bool)]) -> PeatEmergency {
            PeatEmergency(source: s1, timestamp: raised, acks: acks.map { (node: $0.0, acked: $0.1) })
        }
        // 1. Two testers link to the DUT.
        try t.connect(2)
        let dut = try t.dutAddress().peatNode
        _ = try t.observe(for: t.parameters.responseWindow)
        // 2. T1 passes on S1's document: S1 raised an emergency, S1 has acked it, S2 not yet.
        try t.write(probe.document(of: .stranger(1), emergency: emergency([(s1, true), (s2, false)])), from: 1)
        // 3. The DUT writes its document on both links at once, holding the emergency with
        //    S1's ack, S2's entry, and its own ack.
        try expectEmergency(t, probe, on: [1, 2], acks: [(s1, true), (s2, false), (dut, true)], after: "taking in S1's emergency")
        // 4. T2 passes on S2's document: S2 has acked, and S3 is tracked, not acked.
        try t.write(probe.document(of: .stranger(2), emergency: emergency([(s2, true), (s3, false)])), from: 2)
        // 5. The DUT writes the union: S1, S2 and itself acked, S3 added.
        try expectEmergency(t, probe, on: [1, 2], acks: [(s1, true), (s2, true), (s3, false), (dut, true)], after: "S2's acks")
        // 6. T1 passes on S1's first document again, stale: S2 still false there.
        try t.write(probe.document(of: .stranger(1), emergency: emergency([(s1, true), (s2, false)])), from: 1)
        // 7. Nothing changed, so nothing need be written; whatever is written still says S2 acked.
        let seen = try t.observe(for: t.parameters.answerPeriod)
        for doc in documents(seen) {
            try t.expect(doc.emergency?.acks.contains { $0.node == s2 && $0.acked } ?? false, "an ack went from true back to false",
                         expected: "S2 still acked", seen: t.summary(seen))
        }
    }

    static let bv21 = Check("ACK/BV-21", "a different emergency replaces the held one only when it is newer",
                            dialects: [.peat], needs: [.acks, .links(2)], rules: ["PEAT-R6.2", "PEAT-R6.3", "PEAT-R2"]) { t in
        let probe = try t.probe(PeatProbe.self)
        let s1 = probe.node(.stranger(1)), s2 = probe.node(.stranger(2))
        // S1's emergency is raised now: newer than any a DUT that keeps running holds from before.
        let held = PeatEmergency(source: s1, timestamp: probe.clockMs(at: t.sessionClock), acks: [(s1, true)])
        // 1. Two testers link to the DUT.
        try t.connect(2)
        let dut = try t.dutAddress().peatNode
        _ = try t.observe(for: t.parameters.responseWindow)
        // 2. T1 passes on S1's emergency; the DUT takes it and acks it.
        try t.write(probe.document(of: .stranger(1), emergency: held), from: 1)
        try expectEmergency(t, probe, on: [1, 2], acks: [(s1, true), (dut, true)], after: "taking in S1's emergency")
        // 3. T2 passes on S2's emergency, a minute older.
        try t.write(probe.document(of: .stranger(2), emergency: PeatEmergency(source: s2, timestamp: held.timestamp - 60_000, acks: [(s2, true)])), from: 2)
        // 4. Until and including its next periodic write, the DUT's document holds S1's.
        let wait = (t.parameters.beaconPeriod ?? .seconds(2)) + t.parameters.responseWindow
        let seen = try t.observe(for: wait)
        let written = documents(seen)
        try t.expect(!written.isEmpty, "wrote no document for longer than its period", expected: "a document within \(wait)", seen: t.summary(seen))
        for doc in written {
            try t.expect(doc.emergency?.source == s1 && doc.emergency?.timestamp == held.timestamp, "an older emergency replaced the held one",
                         expected: "S1's emergency kept", seen: t.summary(seen))
        }
        // 5. T2 passes on S2's emergency, raised now (after S1's, and no later than the next
        //    check's, which must be newer still).
        let newer = probe.clockMs(at: t.sessionClock)
        try t.write(probe.document(of: .stranger(2), emergency: PeatEmergency(source: s2, timestamp: newer, acks: [(s2, true)])), from: 2)
        // 6. The DUT writes it at once, with its own ack.
        try expectEmergency(t, probe, on: [1, 2], acks: [(s2, true), (dut, true)], after: "a newer emergency")
    }

    /// The DUT's documents among `observations`, in order.
    private static func documents(_ observations: [Observation]) -> [PeatDocument] {
        observations.compactMap { o in
            guard case .state(.peatDocument(let d))? = o.packet else { return nil }
            return d
        }
    }

    /// Within the response window the DUT writes its document on each of `links`, and the last
    /// one holds an emergency with exactly `acks` (PEAT-R6.4: a change goes out at once).
    private static func expectEmergency(_ t: CheckContext, _ probe: PeatProbe, on links: [Int], acks: [(UInt32, Bool)], after what: String) throws {
        let seen = try t.observe(for: t.parameters.answerPeriod)
        let wanted = acks.sorted { $0.0 < $1.0 }.map { "\(probe.name($0.0)):\($0.1 ? "acked" : "not acked")" }.joined(separator: ", ")
        for link in links {
            let written = seen.filter { $0.link == LinkID(link) }.compactMap { o -> PeatDocument? in
                guard case .state(.peatDocument(let d))? = o.packet else { return nil }
                return d
            }
            guard let last = written.last else {
                throw CheckFailed(reason: "did not write its document on L\(link) after \(what)", expected: "a document with acks \(wanted)", seen: t.summary(seen))
            }
            let got = last.emergency.map { $0.acks.map { "\(probe.name($0.node)):\($0.acked ? "acked" : "not acked")" }.joined(separator: ", ") } ?? "no emergency"
            try t.expect(got == wanted, "the ack map after \(what) is not the merge the page requires",
                         expected: wanted, seen: got + " on L\(link)")
        }
    }
}
