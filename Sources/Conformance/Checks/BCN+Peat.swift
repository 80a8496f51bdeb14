import MeshNode
import MeshWire

/// BCN for peat: a node's heartbeat is its document, written to every link at least every 2 s
/// (PEAT-R2).
extension BCN {
    static let peatChecks = [bv20]

    static let bv20 = Check("BCN/BV-20", "writes its own document to every link at least every 2 s while it has links",
                            dialects: [.peat], needs: [.links(2)], rules: ["PEAT-R2", "PEAT-W1"]) { t in
        let probe = try t.probe(PeatProbe.self)
        let period = t.parameters.beaconPeriod ?? .seconds(2)
        let slack = t.parameters.responseWindow
        // 1. Two testers link to the DUT, and send nothing.
        try t.connect(2)
        _ = try t.dutAddress()   // needed below: NA while the DUT's own id is unknown
        // 2. The tester watches both links for two and a half periods.
        let span = period * 2 + period / 2
        let seen = try t.observe(for: span)
        for link in [LinkID(1), LinkID(2)] {
            let writes = seen.compactMap { o -> (PeatDocument, Duration)? in
                guard o.link == link, case .state(.peatDocument(let d))? = o.packet else { return nil }
                return (d, o.time)
            }
            // 3. Each link gets the DUT's own document at least twice, never more than a
            //    period (plus the response window) apart, the first within a period of link up.
            try t.expect(writes.count >= 2 && writes.allSatisfy { $0.0.nodeID == probe.node(.dut) },
                         "did not write its document on \(link) every \(period)",
                         expected: "at least 2 documents of the DUT on \(link) within \(span)", seen: t.summary(seen))
            let times = [Duration.zero] + writes.map(\.1) + [span]
            let gap = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .zero
            try t.expect(gap <= period + slack, "a gap between document writes on \(link) exceeds the period",
                         expected: "at most \(period + slack) between writes", seen: "a gap of \(gap): \(t.summary(seen))")
        }
    }
}
