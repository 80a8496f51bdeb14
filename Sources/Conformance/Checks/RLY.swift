import MeshNode
import MeshWire

/// RLY: relaying (RELAY-R5, R6; BLEMESH-R7 to R10).
enum RLY {
    static let checks = [bv01, bv02, bv03, bv04, bv05, bv06, bv07, bv08, bv09, bv10, bv19]

    static let bv01 = Check("RLY/BV-01", "relays a message for another node once per other link, TTL one less, body untouched",
                            dialects: [.relay, .blemesh, .bitchat, .simple, .peat], needs: [.relay, .links(3)], rules: ["RELAY-R5.3", "RELAY-R5.4", "BLEMESH-R7", "BLEMESH-R8", "PEAT-R3", "BITCHAT-R5", "BITCHAT-R6.4", "SIMPLE-R4.3"]) { t in
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends a message from a stranger, not addressed to the DUT, with TTL 3.
        let (sent, seen) = try t.sendRelayable(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination, ttl: 3), from: 1, fanOut: 2)
        // 3. Within the relay window the DUT relays it to T2 and T3, once each (a copy the
        //    tester cannot decode counts here, and FAILs the wire rule it breaks in step 4).
        try t.expect(t.sightings(of: sent, in: seen).map(\.link).sorted() == [LinkID(2), LinkID(3)], "not relayed once on each other link",
                     expected: "one copy on L2 and one on L3", seen: t.summary(seen))
        // 4. Each copy decodes, has TTL 2 and the body byte for byte.
        try t.expectReadable(sent, in: seen)
        let copies = t.copies(of: sent, in: seen)
        for c in copies {
            try t.expect(c.message.ttl == sent.ttl - 1, "TTL not decremented by one",
                         expected: "ttl \(sent.ttl - 1)", seen: "ttl \(c.message.ttl) on \(c.link)")
            try t.expect(c.message.body == sent.body, "body changed in relay",
                         expected: "\(sent.body.count) bytes as sent", seen: "\(c.message.body.count) bytes, different")
        }
    }

    static let bv02 = Check("RLY/BV-02", "relays within the dialect's jitter window, neither early nor late",
                            needs: [.relay, .links(2)], rules: ["RELAY-R6", "BLEMESH-R10", "PEAT-R3", "BITCHAT-R6.4", "SIMPLE-R7"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. Three times: T1 sends a fresh message for another node, and the tester watches for
        //    well past the window, so a late relay is measured rather than missed. One sample
        //    could land inside the window by luck; three make an early or late DUT show.
        for round in 1...3 {
            let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
            let window = t.parameters.relayWindow
            let sentAt = t.elapsed
            try t.send(sent, from: 1)
            let seen = try t.observe(for: window.upperBound * 4) { t.sightings(of: sent, in: $0).contains { $0.link == LinkID(2) } }
            // 3. The relay on L2 (decoded, or undecodable but tied to the message by its bytes:
            //    its timing is judged all the same) leaves between the window's bounds.
            guard let relay = t.sightings(of: sent, in: seen).first(where: { $0.link == LinkID(2) }) else {
                throw CheckFailed(reason: "message \(round) was not relayed at all", expected: "a relay on L2 within \(window)",
                                  seen: t.summary(seen))
            }
            //    (Over the air the window covers the relay latency measured so far, and a relay later
            //    than that, by less than the air's allowance, is INCONC: `expectOnTime`.)
            //    The early bound is the page's alone (no slack lowers it: a transport only delays).
            let delay = relay.time - sentAt
            try t.expect(delay >= window.lowerBound, "message \(round) relayed earlier than the page's minimum delay: no jitter",
                         expected: "a delay in \(window) (the minimum is the page's, whatever timingSlackMs)",
                         seen: "relayed after \(CheckContext.ms(delay)) (\(delay))")
            try t.expectOnTime(delay, within: \.relayWindow.upperBound, "message \(round) relayed outside the jitter window")
        }
    }

    static let bv03 = Check("RLY/BV-03", "never relays back on the ingress link, even when it is the only link",
                            needs: [.relay], rules: ["RELAY-R5.3", "BLEMESH-R7", "PEAT-R3", "BITCHAT-R6.4", "SIMPLE-R4.3", "CAMP-R4"]) { t in
        // 1. Only T1 links to the DUT: the DUT has nowhere to relay.
        try t.connect(1)
        // 2. T1 sends a message for another node.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        try t.send(sent, from: 1)
        // 3. Nothing of it comes back on L1, decodable or not.
        let seen = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.sightings(of: sent, in: seen).isEmpty, "relayed back on the link it came from",
                     expected: "no copy on L1", seen: t.summary(seen))
    }

    static let bv04 = Check("RLY/BV-04", "does not relay a message whose TTL budget is spent (TTL 1)",
                            dialects: [.relay, .blemesh, .bitchat, .simple, .peat], needs: [.relay, .links(2)], rules: ["RELAY-R5.3", "BLEMESH-R7", "PEAT-R3", "BITCHAT-R5", "SIMPLE-R4.2"]) { t in
        try expectNotRelayed(t, ttl: 1)
    }

    static let bv05 = Check("RLY/BV-05", "does not relay a message with TTL 0, and keeps relaying after it",
                            dialects: [.relay, .blemesh, .bitchat, .simple, .peat], needs: [.relay, .links(2)], rules: ["RELAY-R5.3", "RELAY-R12", "BLEMESH-R7", "BLEMESH-R19", "PEAT-R3", "PEAT-W5", "PEAT-R7", "BITCHAT-R5", "SIMPLE-R4.2"]) { t in
        try expectNotRelayed(t, ttl: 0)
    }

    /// RLY/BV-04 and BV-05: a message with `ttl` is dropped, and the DUT still relays.
    private static func expectNotRelayed(_ t: CheckContext, ttl: Int) throws {
        // 1. Two testers link to the DUT.
        try t.connect(2)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. T1 sends a message for another node with the given TTL.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination, ttl: ttl))
        try t.send(sent, from: 1)
        // 3. No copy of it leaves on any link, decodable or not.
        let seen = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.sightings(of: sent, in: seen).isEmpty, "relayed a message with ttl \(ttl)",
                     expected: "no relay", seen: t.summary(seen))
        // 4. A fresh message with the default TTL is still relayed: the silence was a decision.
        try t.expectStillRelaying(after: "a message with ttl \(ttl)")
    }

    static let bv06 = Check("RLY/BV-06", "honours a TTL above the dialect's default as received (no clamp)",
                            dialects: [.relay, .blemesh, .simple, .peat], needs: [.relay, .links(2)], rules: ["RELAY-R5.5", "BLEMESH-R7", "PEAT-R3", "SIMPLE-R4.3", "SIMPLE-R5"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a message for another node with a TTL four above the default.
        let ttl = t.parameters.defaultTTL + 4
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination, ttl: ttl))
        try t.send(sent, from: 1)
        // 3. The relay on L2 carries that TTL less one, not the default less one.
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.sightings(of: sent, in: $0).contains { $0.link == LinkID(2) } }
        try t.expect(t.sightings(of: sent, in: seen).contains { $0.link == LinkID(2) }, "not relayed", expected: "a relay on L2", seen: t.summary(seen))
        try t.expectReadable(sent, in: seen)
        let copies = t.copies(of: sent, in: seen).filter { $0.link == LinkID(2) }
        try t.expect(copies.allSatisfy { $0.message.ttl == ttl - 1 }, "the received TTL was not honoured",
                     expected: "ttl \(ttl - 1)", seen: copies.map { "ttl \($0.message.ttl)" }.joined(separator: ", "))
    }

    static let bv07 = Check("RLY/BV-07", "does not relay a message addressed to itself",
                            dialects: [.relay, .blemesh, .bitchat, .camp], needs: [.relay, .links(2)], rules: ["RELAY-R4.3", "BLEMESH-R6.5", "BITCHAT-R6.3", "CAMP-R4"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. T1 sends a message from a stranger addressed to the DUT.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: .dut))
        try t.send(sent, from: 1)
        // 3. No copy of it leaves on any link, decodable or not (an ack may).
        let seen = try t.observe(for: t.parameters.answerPeriod)
        try t.expect(t.sightings(of: sent, in: seen).isEmpty, "relayed a message addressed to the DUT itself",
                     expected: "no relay", seen: t.summary(seen))
        // 4. The DUT still relays messages for others.
        try t.expectStillRelaying(after: "a message addressed to the DUT")
    }

    static let bv08 = Check("RLY/BV-08", "relays to every link but the ingress, however many links are up",
                            dialects: [.relay], needs: [.relay, .links(5)], rules: ["RELAY-R5.3"]) { t in
        // 1. Five testers link to the DUT (relay has no fan-out limit, unlike blemesh).
        try t.connect(5)
        // 2. T3 sends a frame for a stranger.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        try t.send(sent, from: 3)
        // 3. One copy goes out on each of L1, L2, L4 and L5, none on L3.
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).count >= 4 }
        let links = t.copies(of: sent, in: seen).map(\.link).sorted()
        try t.expect(links == [1, 2, 4, 5].map(LinkID.init), "not relayed once on every link but the ingress",
                     expected: "one copy each on L1, L2, L4, L5", seen: t.summary(seen))
    }

    static let bv09 = Check("RLY/BV-09", "carries a seq above 2^53 exactly (no Double on the way)",
                            dialects: [.relay], needs: [.relay, .links(2)], rules: ["RELAY-W2", "RELAY-R5.4"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a frame whose seq is the page's example plus one: above 2^53, with low
        //    bits a Double cannot hold (app bug 12).
        let seq: UInt64 = 4_745_111_029_145_403_393
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination, sequence: seq))
        try t.send(sent, from: 1)
        // 3. The relay on L2 has that seq, exactly (copies match on origin and seq).
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).contains { $0.link == LinkID(2) } }
        let exact = t.copies(of: sent, in: seen).filter { $0.link == LinkID(2) }
        let others = seen.compactMap(\.message).compactMap { m -> UInt64? in
            guard m.origin == sent.origin, case .relay(.frame(let h, _)) = m.value else { return nil }
            return h.seq
        }
        try t.expect(!exact.isEmpty, "the relay does not carry the exact seq",
                     expected: "seq \(seq) on L2", seen: others.isEmpty ? t.summary(seen) : "seq " + others.map(String.init).joined(separator: ", "))
    }

    static let bv10 = Check("RLY/BV-10", "accepts a header in any JSON form the page allows (order, spacing, 5.0, lowercase UUIDs, unknown keys)",
                            dialects: [.relay], needs: [.relay, .links(2)], rules: ["RELAY-W6", "RELAY-R5.4"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a frame whose header is valid but not canonical: keys out of order,
        //    whitespace, the TTL written 5.0, lowercase UUIDs, an unknown key, `\/` escapes.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination, ttl: 5))
        let origin = sent.origin.description.lowercased(), dest = (sent.destination?.description ?? "").lowercased()
        let header = "{ \"ttl\" : 5.0,\n \"seq\": \(sent.sequence), \"dest\":\"\(dest)\",\t\"origin\": \"\(origin)\", \"via\": \"a\\/b\" }"
        try t.write(RawRelay.packet(.frame, header: Array(header.utf8), body: sent.body), from: 1,
                    what: "frame with a non-canonical header: \(header)")
        // 3. The DUT relays it on L2 with TTL 4 and the body untouched.
        let seen = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).contains { $0.link == LinkID(2) } }
        let copies = t.copies(of: sent, in: seen).filter { $0.link == LinkID(2) }
        try t.expect(!copies.isEmpty, "a valid non-canonical header was refused",
                     expected: "a relay on L2", seen: t.summary(seen))
        try t.expect(copies.allSatisfy { $0.message.ttl == 4 && $0.message.body == sent.body }, "relayed with wrong TTL or body",
                     expected: "ttl 4, body as sent", seen: copies.map { "ttl \($0.message.ttl)" }.joined(separator: ", "))
    }

    static let bv19 = Check("RLY/BV-19", "keeps at most seven links: an eighth is dropped",
                            dialects: [.relay], needs: [.links(7)], rules: ["RELAY-R11"]) { t in
        // The check offers a link beyond the DUT's seven: the tester must have an eighth.
        if let bound = t.capabilities.maxLinksReason {
            throw CheckNotApplicable("needs an eighth tester link, beyond the DUT's seven; the bench gives \(t.capabilities.maxLinks) (\(bound))")
        }
        // 1. Seven testers link to the DUT.
        try t.connect(7)
        // 2. An eighth links up.
        try t.linkUp(8)
        // 3. The DUT drops a link (RELAY-R11: it disconnects one beyond seven).
        let seen = try t.observe(for: t.parameters.answerPeriod)
        let dropped = seen.compactMap { if case .disconnected(let link) = $0.kind { link } else { nil } }
        try t.expect(!dropped.isEmpty, "kept eight links",
                     expected: "one of the eight links dropped", seen: t.summary(seen))
    }
}

extension CheckContext {
    /// Tester `tester` sends a fresh message built from `spec` and watches the relay window.
    /// Where the page lets a node skip a relay by chance (`DialectParameters.relayMaySkip`), a
    /// message relayed nowhere is followed by a fresh one, up to 8 in all (all skipped by
    /// chance at 90 %: 1e-8), so a correct DUT never fails on its dice; elsewhere one decides.
    /// Over the air it waits for `fanOut` copies (`observe(for:awaiting:)`), so a late copy on
    /// one link is neither missed nor taken for an answer to the check's next step.
    func sendRelayable(_ spec: MessageSpec, from tester: Int, fanOut: Int = 1) throws -> (sent: ProbeMessage, seen: [Observation]) {
        let attempts = parameters.relayMaySkip ? 8 : 1
        var sent = try message(spec)
        for attempt in 1...attempts {
            if attempt > 1 {
                note("not relayed, a skip the page allows: a fresh message")
                sent = try message(spec)
            }
            try send(sent, from: tester)
            let seen = try observe(for: parameters.quietPeriod) { self.sightings(of: sent, in: $0).count >= fanOut }
            if attempt == attempts || !sightings(of: sent, in: seen).isEmpty { return (sent, seen) }
        }
        preconditionFailure("unreachable: the last attempt returns")
    }
}
