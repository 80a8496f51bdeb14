import MeshNode
import MeshWire

/// BCN: beacons (RELAY-R9, R10). Only `relay` has them. Repeated or stale beacons are DDP's
/// business (DDP/BV-08, BV-09); every beacon here comes from a fresh origin.
enum BCN {
    static let checks = [bv01, bv02, bv03, bv04, bv05]

    static let bv01 = Check("BCN/BV-01", "sends a beacon every period on every link: type 0x42, own id, seqNo rising by one per beacon (1 first after start), ttl 8, hop 0",
                            dialects: [.relay], needs: [.beacons, .links(2)], rules: ["RELAY-R9"]) { t in
        guard let period = t.parameters.beaconPeriod else { throw CheckNotApplicable("the dialect has no beacons") }
        // The page gives the period without a tolerance; the check allows the dialect's relay
        // window around it, the page's only timing tolerance (and widened by the DUT's slack).
        let tolerance = t.parameters.relayWindow.upperBound
        // 1. Two testers link to the DUT.
        try t.connect(2)
        let dut = try t.dutAddress().uuid
        // 2. The tester listens for three periods and a little more: at least three beacons
        //    whatever the phase of the DUT's timer.
        let seen = try t.observe(for: period * 3 + tolerance)
        let own = t.beacons(in: seen).filter { $0.beacon.origin == dut }
        let malformed = seen.filter { if case .malformed? = $0.packet { true } else { false } }.count
        // 3. A DUT started for this check sends seqNo 1 first. A DUT that keeps running (on
        //    the air, a persistent DUT) has beaconed before: its count goes on from there.
        if t.freshDUT, let first = own.first {
            try t.expect(first.beacon.seqNo == 1, "the first beacon after start does not have seqNo 1",
                         expected: "seqNo 1", seen: "seqNo \(first.beacon.seqNo) on \(first.link)")
        }
        // 4. seqNo grows by one per beacon: one beacon goes out on every link with one seqNo,
        //    so the seqNos seen, in order, follow one another (a link may join the count late).
        let numbers = own.map(\.beacon.seqNo).reduce(into: [UInt32]()) { if $0.last != $1 { $0.append($1) } }
        for (a, b) in zip(numbers, numbers.dropFirst()) {
            try t.expect(b == a &+ 1, "beacon seqNo does not count up by one per beacon",
                         expected: "seqNo \(a &+ 1) after \(a)", seen: "seqNo \(b): \(t.summary(seen))")
        }
        for link in [LinkID(1), LinkID(2)] {
            let beacons = own.filter { $0.link == link }
            // 5. Each link gets at least three beacons, decoded as type 0x42 beacons, ttl 8, hop 0.
            try t.expect(beacons.count >= 3, "fewer than three beacons on \(link) in \(period * 3 + tolerance)",
                         expected: "a beacon every \(period)",
                         seen: beacons.isEmpty && malformed > 0 ? "\(malformed) undecodable packets (beacons with type 0x46?): \(t.summary(seen))" : t.summary(seen))
            for b in beacons {
                try t.expect(Int(b.beacon.ttl) == t.parameters.defaultTTL && b.beacon.hop == 0, "beacon ttl or hop wrong",
                             expected: "ttl \(t.parameters.defaultTTL), hop 0", seen: "ttl \(b.beacon.ttl), hop \(b.beacon.hop)")
            }
            // 6. Consecutive beacons are one period apart. A beacon as the link comes up (a
            //    greeting, within the tolerance) may be followed sooner by the periodic one.
            for (a, b) in zip(beacons, beacons.dropFirst()) {
                let gap = b.time - a.time
                let greeting = a.time <= tolerance
                try t.expect(gap <= period + tolerance && (greeting || gap >= period - tolerance), "beacons not one period apart on \(link)",
                             expected: "\(period) +- \(tolerance)", seen: "\(gap) between seqNo \(a.beacon.seqNo) and \(b.beacon.seqNo)")
            }
        }
    }

    static let bv02 = Check("BCN/BV-02", "rebroadcasts a beacon with ttl - 1 and hop + 1 on every link but the ingress, within the jitter window",
                            dialects: [.relay], needs: [.beacons, .relay, .links(3)], rules: ["RELAY-R10.3", "RELAY-R10.4"]) { t in
        let relay = try t.probe(RelayProbe.self)
        let origin = relay.beaconOrigin(.stranger(1))
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends a beacon from a stranger: seqNo 1, ttl 8, hop 0.
        let sentAt = t.elapsed
        try t.write(relay.beacon(from: .stranger(1), seqNo: 1, ttl: 8, hop: 0), from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.beacons(in: $0).filter { $0.beacon.origin == origin }.count >= 2 }
        // 3. It goes out once each on L2 and L3, none on L1, within the window.
        let out = t.beacons(in: seen).filter { $0.beacon.origin == origin }
        try t.expect(out.map(\.link).sorted() == [LinkID(2), LinkID(3)], "not rebroadcast once on each other link",
                     expected: "one rebroadcast on L2 and one on L3", seen: t.summary(seen))
        // 4. Each has seqNo 1, ttl 7, hop 1.
        for b in out {
            try t.expect(b.beacon.seqNo == 1 && b.beacon.ttl == 7 && b.beacon.hop == 1, "rebroadcast with wrong fields",
                         expected: "seqNo 1, ttl 7, hop 1", seen: "seqNo \(b.beacon.seqNo), ttl \(b.beacon.ttl), hop \(b.beacon.hop) on \(b.link)")
            try t.expectOnTime(b.time - sentAt, within: \.relayWindow.upperBound, "rebroadcast late")
        }
    }

    static let bv03 = Check("BCN/BV-03", "does not rebroadcast a beacon with ttl 1",
                            dialects: [.relay], needs: [.beacons, .relay, .links(2)], rules: ["RELAY-R10.4"]) { t in
        try expectStops(t, ttl: 1, hop: 0)
    }

    static let bv04 = Check("BCN/BV-04", "does not rebroadcast a beacon at hop 255; does at hop 254",
                            dialects: [.relay], needs: [.beacons, .relay, .links(2)], rules: ["RELAY-R10.4"]) { t in
        try expectStops(t, ttl: 8, hop: 255)
        // 4. A beacon from another stranger at hop 254 goes out with hop 255.
        let relay = try t.probe(RelayProbe.self)
        let origin = relay.beaconOrigin(.stranger(3))
        try t.write(relay.beacon(from: .stranger(3), seqNo: 1, ttl: 8, hop: 254), from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod)
        let out = t.beacons(in: seen).filter { $0.beacon.origin == origin && $0.link == LinkID(2) }
        try t.expect(out.contains { $0.beacon.hop == 255 }, "a beacon at hop 254 was not rebroadcast with hop 255",
                     expected: "a rebroadcast on L2, hop 255", seen: t.summary(seen))
    }

    /// BCN/BV-03 and BV-04: a beacon at the end of its budget stops here; the DUT still
    /// rebroadcasts a fresh one.
    private static func expectStops(_ t: CheckContext, ttl: UInt8, hop: UInt8) throws {
        let relay = try t.probe(RelayProbe.self)
        let origin = relay.beaconOrigin(.stranger(1))
        // 1. Two testers link to the DUT.
        try t.connect(2)
        //    Baseline: a fresh beacon from S4 is rebroadcast, and recognised, before the
        //    stimulus, so the positive control at the end can tell "stopped" from "never seen".
        let baseline = relay.beaconOrigin(.stranger(4))
        try t.write(relay.beacon(from: .stranger(4), seqNo: 1), from: 1)
        let before = try t.observe(for: t.parameters.quietPeriod) { t.beacons(in: $0).contains { $0.beacon.origin == baseline && $0.link == LinkID(2) } }
        guard t.beacons(in: before).contains(where: { $0.beacon.origin == baseline && $0.link == LinkID(2) }) else {
            throw t.inconclusive("no beacon rebroadcast recognised before the stimulus (seen: \(t.summary(before))); the check cannot tell a DUT that stops rebroadcasting from one whose rebroadcasts the tester cannot read (BCN/BV-02 judges rebroadcasting)", cause: .noBaseline)
        }
        // 2. T1 sends a beacon from a stranger with the given ttl and hop.
        try t.write(relay.beacon(from: .stranger(1), seqNo: 1, ttl: ttl, hop: hop), from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod)
        // 3. It is not rebroadcast.
        try t.expect(t.beacons(in: seen).allSatisfy { $0.beacon.origin != origin }, "rebroadcast a beacon with ttl \(ttl), hop \(hop)",
                     expected: "no rebroadcast", seen: t.summary(seen))
        // Positive control: a fresh beacon from another stranger is rebroadcast.
        let control = relay.beaconOrigin(.stranger(2))
        try t.write(relay.beacon(from: .stranger(2), seqNo: 1), from: 1)
        let after = try t.observe(for: t.parameters.quietPeriod) { t.beacons(in: $0).contains { $0.beacon.origin == control && $0.link == LinkID(2) } }
        try t.expect(t.beacons(in: after).contains { $0.beacon.origin == control && $0.link == LinkID(2) },
                     "a fresh beacon was not rebroadcast either (the DUT stopped relaying)", expected: "a rebroadcast on L2", seen: t.summary(after))
    }

    static let bv05 = Check("BCN/BV-05", "never acks a beacon nor delivers it to the app",
                            dialects: [.relay], needs: [.beacons, .links(2)], rules: ["RELAY-R7.4", "RELAY-R10.5"]) { t in
        let relay = try t.probe(RelayProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends beacons from two strangers.
        try t.write(relay.beacon(from: .stranger(1), seqNo: 7), from: 1)
        try t.write(relay.beacon(from: .stranger(2), seqNo: 1, ttl: 1), from: 1)
        let seen = try t.observe(for: t.parameters.answerPeriod)
        // 3. No ack of anything, and (with an upper tester) no delivery.
        try t.expect(t.anyAcks(in: seen).isEmpty, "acked a beacon", expected: "no ack", seen: t.summary(seen))
        let deliveries = seen.filter { if case .delivered = $0.kind { true } else { false } }
        try t.expect(deliveries.isEmpty, "delivered a beacon to the app", expected: "no delivery", seen: t.summary(seen))
    }
}
