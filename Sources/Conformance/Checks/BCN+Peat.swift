import MeshNode
import MeshWire

/// BCN for peat: a node's heartbeat is its document, written to every link at least every 2 s
/// (PEAT-R2).
extension BCN {
    static let peatChecks = [bv20, bv21]

    static let bv21 = Check("BCN/BV-21", "skips document versions whose low byte is a frame marker (0xAE to 0xB2) as the version grows",
                            dialects: [.peat], needs: [.links(1)], rules: ["PEAT-R2", "PEAT-W1"]) { t in
        let probe = try t.probe(PeatProbe.self)
        let batch = 16, most = 320
        // 1. One tester links to the DUT.
        try t.connect(1)
        _ = try t.dutAddress()   // its documents are told by its node id
        // 2. T1 writes documents, each counting S20 one higher, in batches: each is a change
        //    (PEAT-R5), so the DUT's version grows by one per document. The tester notes the
        //    versions of the DUT's documents and any document of the DUT whose first byte (the
        //    version's low byte) is a frame marker, until the versions seen pass such a value.
        var versions: [UInt32] = []
        var misread: [String] = []
        var sent = 0
        func passedAMarker() -> Bool {
            guard let low = versions.min(), let high = versions.max() else { return false }
            return high - low >= 256 || (low...high).contains { PeatWire.frameMarkers.contains(UInt8(truncatingIfNeeded: $0)) }
        }
        while !passedAMarker(), sent < most {
            for _ in 0..<batch {
                sent += 1
                try t.write(probe.document(of: .tester(1), version: UInt32(sent), counters: [.init(node: probe.node(.stranger(20)), count: UInt64(sent))]), from: 1)
            }
            for o in try t.observe(for: t.parameters.answerPeriod) {
                switch o.packet {
                case .state(.peatDocument(let d))? where d.nodeID == probe.node(.dut): versions.append(d.version)
                case .malformed(let e)? where e.detail.hasPrefix(PeatProbe.markerVersionNote): misread.append(e.detail)
                default: break
                }
            }
        }
        // 3. None of the DUT's documents had a frame marker for its first byte.
        try t.expect(misread.isEmpty, "wrote its document with a version whose first byte is a frame marker: receivers read it as a frame",
                     expected: "versions whose low byte is 0xAE to 0xB2 skipped", seen: misread.joined(separator: "; "))
        guard passedAMarker() else {
            throw t.inconclusive("after \(sent) changes the DUT's document versions (\(versions.min().map(String.init) ?? "none") to \(versions.max().map(String.init) ?? "none")) did not pass a value whose low byte is a frame marker")
        }
    }

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
