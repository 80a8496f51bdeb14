import Foundation
import MeshNode
import MeshWire

/// ACK checks for rules only blemesh has: acks are control envelopes addressed to the origin
/// and relayed like any directed envelope (BLEMESH-R6.2, R11, R12).
extension ACK {
    static let blemeshChecks = [bv06, bv07, bv08, bv10, bv11]

    static let bv06 = Check("ACK/BV-06", "acks in a control envelope addressed to the origin, ttl = received hop path count + 1",
                            dialects: [.blemesh], needs: [.acks, .links(2)], rules: ["BLEMESH-R11", "BLEMESH-R12", "BLEMESH-R2"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a message from S1, via S2, addressed to the DUT: hopPath [S1, S2, T1].
        let sent = probe.withHopPath(try t.message(MessageSpec(from: .stranger(1), to: .dut)), [.stranger(1), .stranger(2)])
        try t.send(sent, from: 1)
        let seen = try t.observe(for: t.parameters.answerPeriod)
        // 3. The ack is a control envelope from the DUT, hopPath [DUT], addressed to S1, ttl 4;
        //    its ACK names the envelope id and the DUT as receiver (app bug 2: no destination).
        let acks = t.ackEnvelopes(of: sent, in: seen).filter { $0.link == LinkID(1) }
        try t.expect(!acks.isEmpty, "no ack naming the message on L1", expected: "an ACK of \(sent.ackID) on L1", seen: t.summary(seen))
        for a in acks {
            let e = a.envelope
            try t.expect(e.isControlMessage && e.originID == probe.id(.dut) && e.hopPath == [probe.id(.dut)]
                            && e.destinationID == probe.id(.stranger(1)) && e.ttl == 4 && a.ack.receiverID == probe.id(.dut),
                         "the ack envelope is not addressed as BLEMESH-R11 says",
                         expected: "control envelope from DUT, hopPath [DUT], to S1, ttl 4, receiverID DUT",
                         seen: BLEMeshProbe.summary(e, name: probe.name) + ", receiverID \(probe.name(a.ack.receiverID))")
        }
    }

    static let bv11 = Check("ACK/BV-11", "sends its control messages (ACK, READ receipts) in control envelopes, never in a user envelope",
                            dialects: [.blemesh], needs: [.acks, .links(2)], rules: ["BLEMESH-R12"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        let dut = try t.dutAddress().uuid
        // 2. T1 sends a message from S1 addressed to the DUT: the DUT acks it, and its app
        //    may show it and send a READ receipt.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: .dut))
        try t.send(sent, from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod)
        // 3. No user envelope from the DUT carries a control message (a tester's user envelope
        //    never does, so none is a relay).
        let misplaced = seen.compactMap { o -> (MessageEnvelope, ControlMessage, LinkID)? in
            guard case .blemesh(let e)? = o.message?.value, e.originID == dut, !e.isControlMessage, let link = o.link,
                  let control = try? ControlMessage(decoding: e.payload[...]) else { return nil }
            return (e, control, link)
        }
        if let (e, control, link) = misplaced.first {
            throw CheckFailed(reason: "sent a \(control.kind.rawValue) control message in a user envelope (isControlMessage false)",
                              expected: "every control message in an envelope with isControlMessage true",
                              seen: BLEMeshProbe.summary(e, name: probe.name) + " on \(link), payload a \(control.kind.rawValue)")
        }
        // 4. Its ACK is a control envelope (else there was nothing to judge).
        guard !t.ackEnvelopes(of: sent, in: seen).isEmpty else {
            throw t.inconclusive("the DUT sent no ACK of the message, so no control message to judge (ACK/BV-01 judges acking)")
        }
    }

    static let bv07 = Check("ACK/BV-07", "relays an ack addressed to another node as a directed control envelope, toward it only",
                            dialects: [.blemesh], needs: [.relay, .links(3)], rules: ["BLEMESH-R6.2", "BLEMESH-R7", "BLEMESH-R9", "BLEMESH-R11"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        _ = try t.dutAddress()   // needed below: NA while the DUT's own id is unknown
        // 2. T1 sends S1's ack for a message T3 sent to S1: an ACK envelope from S1 addressed
        //    to T3, via T1.
        let original = try t.message(MessageSpec(from: .tester(3), to: .stranger(1)))
        let ack = probe.ack(of: original, by: .stranger(1))
        try t.send(ack, from: 1)
        // 3. The DUT relays it on L3 alone, as a control envelope with ttl - 1 and its id
        //    appended to the hop path, the ACK inside untouched.
        let seen = try t.observe(for: t.parameters.quietPeriod)
        let relayed = t.ackEnvelopes(of: original, in: seen)
        try t.expect(relayed.map(\.link) == [LinkID(3)], "the ack was not relayed toward its destination alone",
                     expected: "one ACK of \(original.ackID) on L3", seen: t.summary(seen))
        let sentEnvelope = probe.envelope(of: ack, via: 1)
        let e = relayed[0].envelope
        try t.expect(e.id == sentEnvelope.id && e.isControlMessage && e.destinationID == sentEnvelope.destinationID
                        && e.ttl == sentEnvelope.ttl - 1 && e.hopPath == sentEnvelope.hopPath + [probe.id(.dut)] && e.payload == sentEnvelope.payload,
                     "the ack was not relayed as the same envelope with one more hop",
                     expected: BLEMeshProbe.summary(sentEnvelope, name: probe.name) + ", then ttl - 1 and DUT appended",
                     seen: BLEMeshProbe.summary(e, name: probe.name))
    }
}

extension ACK {
    static let bv08 = Check("ACK/BV-08", "retries its own unacked directed message, the same envelope, after 5-10 s; an acked one never",
                            dialects: [.blemesh], needs: [.upperTester, .links(2)], rules: ["BLEMESH-R11", "BLEMESH-R13"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 2. The upper tester has the DUT send two messages to S2, which is no neighbour.
        let payloads = [Array("meshconform ack probe: acked".utf8), Array("meshconform ack probe: lost".utf8)]
        let sentAt = t.elapsed
        for payload in payloads { try t.command(send: payload, to: .stranger(2)) }
        let first = try t.observe(for: t.parameters.quietPeriod)
        let own = payloads.map { payload in
            t.ownMessages(in: first).map(\.message).first { $0.body == payload }
        }
        guard let ackedMessage = own[0], let lostMessage = own[1], case .blemesh(let acked) = ackedMessage.value else {
            throw CheckFailed(reason: "the DUT did not send the messages the upper tester asked for",
                              expected: "two envelopes from the DUT to S2", seen: t.summary(first))
        }
        // 3. S2's ack for the first comes back through T1.
        try t.send(probe.ack(of: BLEMeshProbe.probeMessage(acked), by: .stranger(2)), from: 1)
        // 4. Over the next retry window (5-10 s, +1 s for a once-a-second check) the second
        //    message goes out again, same id and sequence; the acked one does not.
        let window = Duration.seconds(11) + t.parameters.quietPeriod
        let seen = try t.observe(for: window - (t.elapsed - sentAt))
        let resentLost = seen.filter { $0.message?.key == lostMessage.key }
        let resentAcked = seen.filter { $0.message?.key == ackedMessage.key }
        try t.expect(resentAcked.isEmpty, "retransmitted a message after it was acked",
                     expected: "no copy of \(ackedMessage.key)", seen: t.summary(resentAcked))
        let earliest = Duration.seconds(5) - t.parameters.quietPeriod
        try t.expect(!resentLost.isEmpty && resentLost.allSatisfy { $0.time - sentAt >= earliest }, "did not retry its unacked message in the retry window",
                     expected: "the same envelope again 5-11 s after the first send", seen: t.summary(seen))
    }

    static let bv10 = Check("ACK/BV-10", "gives up its unacked message 10 s after the third retry: a destination linking up later gets no copy",
                            dialects: [.blemesh], needs: [.upperTester, .links(3)], rules: ["BLEMESH-R13"]) { t in
        // BLEMESH-R13: retries 5-10 s, 10-15 s, 20-25 s apart (+1 s, the app checks once a
        // second), so the third is at most 53 s after the first send; failure 10 s after it.
        let lastRetryBy = Duration.seconds(53) + t.parameters.quietPeriod
        let ackTimeout = Duration.seconds(10)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 2. The upper tester has the DUT send a message to T3, not linked yet; nobody acks it.
        let payload = Array("meshconform give-up probe".utf8)
        let sentAt = t.elapsed
        try t.command(send: payload, to: .tester(3))
        // 3. The tester watches its first send and three retries on L1.
        var seen = try t.observe(for: t.parameters.quietPeriod)
        guard let message = t.ownMessages(in: seen).map(\.message).first(where: { $0.body == payload }) else {
            throw CheckFailed(reason: "the DUT did not send the message the upper tester asked for",
                              expected: "an envelope from the DUT to T3", seen: t.summary(seen))
        }
        func sends(_ seen: [Observation]) -> [Duration] { seen.filter { $0.message?.key == message.key && $0.link == LinkID(1) }.map(\.time) }
        while sends(seen).count < 4, t.elapsed - sentAt < lastRetryBy {
            seen += try t.observe(for: min(.seconds(1), lastRetryBy - (t.elapsed - sentAt)))
        }
        guard sends(seen).count >= 4, let third = sends(seen).last else {
            throw CheckInconclusive(reason: "fewer than three retries on L1 within \(lastRetryBy) of the first send (ACK/BV-08 judges retrying)")
        }
        // 4. The tester waits out the ack timeout after the third retry (and the response window).
        _ = try t.observe(for: third + ackTimeout + t.parameters.responseWindow - t.elapsed)
        // 5. T3, the destination, links up: the message has failed, so no copy goes to it.
        try t.linkUp(3)
        let late = try t.observe(for: t.parameters.answerPeriod)
        try t.expect(late.allSatisfy { $0.message?.key != message.key }, "still held its message more than 10 s after the third retry",
                     expected: "no copy of \(message.key) once it failed", seen: t.summary(late))
    }
}
