import MeshNode
import MeshWire

/// ACK: acknowledgements (RELAY-R4, R7, R8; BLEMESH-R11). None of these checks depends on the
/// DUT's de-duplication: a duplicate is sent only to see it re-acked, and only the ack counts.
enum ACK {
    static let checks = [bv01, bv02, bv03, bv04, bv05, bv09, bi01]

    static let bv01 = Check("ACK/BV-01", "acks a message addressed to it, naming it, on the ingress link, within the response window",
                            dialects: [.relay, .blemesh, .camp], needs: [.acks, .links(2)], rules: ["RELAY-R4.1", "RELAY-R7.1", "BLEMESH-R11"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a message from a stranger addressed to the DUT.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: .dut))
        let sentAt = t.elapsed
        try t.send(sent, from: 1)
        let seen = try t.observe(for: t.parameters.answerPeriod) { t.acks(of: sent, in: $0).contains { $0.link == LinkID(1) } }
        // 3. An ack naming the message goes out on L1, within the response window.
        let acks = t.acks(of: sent, in: seen)
        let onIngress = acks.filter { $0.link == LinkID(1) }
        try t.expect(!onIngress.isEmpty, "no ack naming the message on the ingress link",
                     expected: "ack \(sent.ackID) on L1", seen: t.summary(seen))
        try t.expectOnTime(onIngress[0].time - sentAt, within: \.responseWindow, "acked late")
        // 4. Where the dialect addresses acks, this one is addressed to the message's origin;
        //    no ack goes out on L2.
        for ack in acks {
            if let destination = ack.destination {
                try t.expect(destination == sent.origin, "the ack is not addressed to the origin",
                             expected: "to \(sent.origin)", seen: "to \(destination)")
            }
        }
        try t.expect(acks.allSatisfy { $0.link == LinkID(1) }, "acked on a link the message did not come by",
                     expected: "acks on L1 only", seen: t.summary(seen))
    }

    static let bv02 = Check("ACK/BV-02", "acks a duplicate again, on the link that copy came by",
                            dialects: [.relay, .blemesh, .camp], needs: [.acks, .links(2)], rules: ["RELAY-R4.2", "BLEMESH-R11"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a message addressed to the DUT; it is acked on L1.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: .dut))
        try t.send(sent, from: 1)
        let first = try t.observe(for: t.parameters.answerPeriod) { t.acks(of: sent, in: $0).contains { $0.link == LinkID(1) } }
        try t.require(t.acks(of: sent, in: first).contains { $0.link == LinkID(1) }, "the first copy was not acked, so re-acking cannot be seen",
                      judgedBy: "ACK/BV-01", seen: t.summary(first))
        // 3. T2 sends the same message again, as if the first ack had been lost.
        try t.send(sent, from: 2)
        let second = try t.observe(for: t.parameters.answerPeriod) { t.acks(of: sent, in: $0).contains { $0.link == LinkID(2) } }
        // 4. The DUT acks it again, on L2. (Whether the app saw it twice is DDP/BV-05's business.)
        try t.expect(t.acks(of: sent, in: second).contains { $0.link == LinkID(2) }, "the duplicate was not acked again on its link",
                     expected: "ack \(sent.ackID) on L2", seen: t.summary(second))
    }

    static let bv03 = Check("ACK/BV-03", "never acks a message not addressed to it (relay: for another node; blemesh: a broadcast)",
                            dialects: [.relay, .blemesh, .camp], needs: [.relay, .links(2)], rules: ["RELAY-R7", "BLEMESH-R11"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a message the DUT must relay, not ack.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        try t.send(sent, from: 1)
        let seen = try t.observe(for: t.parameters.answerPeriod) { !t.copies(of: sent, in: $0).isEmpty }
        // 3. It is relayed (the DUT is alive and took it) ...
        try t.require(!t.copies(of: sent, in: seen).isEmpty, "the message was not relayed",
                      judgedBy: "RLY/BV-01", seen: t.summary(seen))
        // 4. ... and no ack of anything goes out.
        try t.expect(t.anyAcks(in: seen).isEmpty, "acked a message not addressed to it",
                     expected: "no ack", seen: t.summary(seen))
    }

    static let bv04 = Check("ACK/BV-04", "passes an ack back along the ingress link of the frame it relayed, and nowhere else",
                            dialects: [.relay], needs: [.relay, .links(3)], rules: ["RELAY-R7.2", "RELAY-R7.4"]) { t in
        let relay = try t.probe(RelayProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends a frame for a stranger; the DUT relays it to T2 and T3.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        try t.send(sent, from: 1)
        let first = try t.observe(for: t.parameters.quietPeriod) { t.copies(of: sent, in: $0).count >= 2 }
        try t.require(!t.copies(of: sent, in: first).isEmpty, "the frame was not relayed, so ack routing cannot be seen",
                      judgedBy: "RLY/BV-01", seen: t.summary(first))
        // 3. T2 sends the destination's ack for it.
        try t.write(relay.ack(for: sent), from: 2)
        let sentAt = t.elapsed
        let second = try t.observe(for: t.parameters.answerPeriod)
        // 4. The ack goes out on L1 (the frame's ingress) within the window, not on L2 or L3.
        let acks = t.acks(of: sent, in: second)
        try t.expect(acks.map(\.link) == [LinkID(1)], "the ack did not travel back along the frame's path only",
                     expected: "one ack \(sent.ackID) on L1", seen: t.summary(second))
        try t.expectOnTime(acks[0].time - sentAt, within: \.relayWindow.upperBound, "passed the ack back late")
    }

    static let bv05 = Check("ACK/BV-05", "on the ack for its own message: tells the app, stops retransmitting, does not forward the ack",
                            dialects: [.relay], needs: [.upperTester, .links(3)], rules: ["RELAY-R7.3", "RELAY-R8"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. The upper tester has the DUT send a message to a stranger; it goes out on L1, L2.
        try t.command(send: Array("meshconform ack probe".utf8), to: .stranger(2))
        let sentOut = try t.observe(for: t.parameters.quietPeriod)
        let s2 = t.probe.address(of: .stranger(2))
        guard let frame = t.ownMessages(in: sentOut).map(\.message).first(where: { $0.destination == s2 }),
              case .relay(.frame(let header, _)) = frame.value else {
            throw CheckFailed(reason: "the DUT did not send the message the upper tester asked for",
                              expected: "a frame from the DUT", seen: t.summary(sentOut))
        }
        // 3. T2 sends the destination's ack for it.
        try t.write(RelayPacket.ack(RelayAck(seq: header.seq)).encoded(), from: 2)
        let afterAck = try t.observe(for: t.parameters.answerPeriod)
        // 4. The app is told (the id is the seq in decimal, as for deliveries) and the ack
        //    goes no further.
        let told = try t.appToldAcknowledged(String(header.seq), payload: Array("meshconform ack probe".utf8), in: afterAck)
        try t.expect(told, "the app was not told its message was acknowledged",
                     expected: "acked \(header.seq)", seen: t.summary(afterAck))
        try t.expect(t.anyAcks(in: afterAck).isEmpty, "forwarded the ack for its own message",
                     expected: "no ack sent", seen: t.summary(afterAck))
        // 5. T3 links up: a DUT may resend unacked messages to a new neighbour, but this one
        //    was acked, so it must not reach L3 (nor go out again anywhere).
        try t.linkUp(3)
        let afterLink = try t.observe(for: t.parameters.answerPeriod)
        let resent = afterLink.compactMap { o -> LinkID? in
            guard let m = o.message, m.key == frame.key else { return nil }
            return o.link
        }
        try t.expect(resent.isEmpty, "retransmitted its message after it was acked",
                     expected: "no copy of seq \(header.seq)", seen: t.summary(afterLink))
    }

    static let bv09 = Check("ACK/BV-09", "resends its unacked message only byte for byte (ttl unchanged), and never once it is 300 s old",
                            dialects: [.relay], needs: [.upperTester, .links(4)], rules: ["RELAY-R8"]) { t in
        // RELAY-R8: a retransmission MUST NOT go out more than 300 s after the frame was made.
        let lifetime = Duration.seconds(300)
        // 1. One tester links to the DUT.
        try t.connect(1)
        // 2. The upper tester has the DUT send a message to a stranger; it goes out on L1 and
        //    is never acked.
        try t.command(send: Array("meshconform retry probe".utf8), to: .stranger(2))
        let made = t.elapsed
        let sentOut = try t.observe(for: t.parameters.quietPeriod)
        let s2 = t.probe.address(of: .stranger(2))
        guard let original = t.ownMessages(in: sentOut).map(\.message).first(where: { $0.destination == s2 }) else {
            throw CheckFailed(reason: "the DUT did not send the message the upper tester asked for",
                              expected: "a frame from the DUT", seen: t.summary(sentOut))
        }
        func copies(_ seen: [Observation]) -> [HeardMessage] { seen.compactMap(\.message).filter { $0.key == original.key } }
        // 3. T2, then T3 link up. The DUT may resend the message to each new neighbour (a MAY);
        //    every copy repeats the original byte for byte, ttl included, however often it resends.
        for tester in [2, 3] {
            try t.linkUp(tester)
            let seen = try t.observe(for: t.parameters.answerPeriod)
            for copy in copies(seen) {
                try t.expect(copy.ttl == original.ttl && copy.body == original.body, "resent its message changed",
                             expected: "ttl \(original.ttl) and the body as first sent", seen: "ttl \(copy.ttl), \(copy.body.count)-byte body: \(t.summary(seen))")
            }
        }
        // 4. The tester waits until the message is 300 s old (INCONC past the check's budget).
        _ = try t.observe(for: lifetime - (t.elapsed - made))
        // 5. T4 links up: the message is too old to go anywhere.
        try t.linkUp(4)
        let late = try t.observe(for: t.parameters.answerPeriod)
        try t.expect(copies(late).isEmpty, "resent its message more than 300 s after making it",
                     expected: "no copy of its message on L4", seen: t.summary(late))
    }

    static let bi01 = Check("ACK/BI-01", "drops an ack for a seq it never relayed, and keeps relaying",
                            dialects: [.relay], needs: [.relay, .links(3)], rules: ["RELAY-R7.2", "RELAY-R12"]) { t in
        let relay = try t.probe(RelayProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. T1 sends an ack for a seq the DUT has never seen.
        try t.write(relay.ack(seq: relay.freshSeq()), from: 1, what: "ack for a seq the DUT never saw")
        // 3. The DUT sends no ack anywhere.
        let seen = try t.observe(for: t.parameters.answerPeriod)
        try t.expect(t.anyAcks(in: seen).isEmpty, "forwarded an ack it could not match",
                     expected: "no ack", seen: t.summary(seen))
        // 4. It still relays frames.
        try t.expectStillRelaying(after: "an ack for an unknown seq")
    }
}
