import MeshNode
import MeshWire

/// ACK checks for camp's delivery confirmation (CAMP-R5, CAMP-W3) and retry (CAMP-R6).
extension ACK {
    static let campChecks = [bv30, bv31, bv32, bv33]

    static let bv30 = Check("ACK/BV-30", "confirms each copy of a message for it with a new deliveryConfirmation: fresh id, content the message id, to the sender",
                            dialects: [.camp], needs: [.acks, .links(2)], rules: ["CAMP-R5", "CAMP-W3"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends S1's message addressed to the DUT; then T2 sends the same copy again.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: .dut))
        var confirmations: [CampMessage] = []
        for tester in [1, 2] {
            try t.send(sent, from: tester)
            let seen = try t.observe(for: t.parameters.answerPeriod)
            // 3. Each copy brings a confirmation on its own link (repeats of one confirmation, by
            //    its id, count once: Robot Heart sends each message of its own twice on a link,
            //    BLEMeshManager.swift:189-200@89c928be, and receivers drop the repeat) ...
            var mine: [CampMessage] = []
            for o in seen {
                guard case .ack(_, _, .camp(let m))? = o.packet, o.link == LinkID(tester), !mine.contains(where: { $0.id == m.id }) else { continue }
                mine.append(m)
            }
            try t.expect(mine.count == 1, "copy \(tester) was not confirmed once on its link",
                         expected: "one deliveryConfirmation on L\(tester) (repeats of it allowed)", seen: t.summary(seen))
            confirmations += mine
        }
        // 4. ... from the DUT to S1, naming the message, under an id of its own, new each time.
        let dut = try t.dutAddress().campUserID, s1 = t.probe.address(of: .stranger(1)).campUserID
        for c in confirmations {
            try t.expect(c.senderID == dut && c.recipientID == s1 && c.content == sent.ackID && c.id != sent.ackID,
                         "the confirmation is not the one CAMP-R5 describes",
                         expected: "from \(dut) to \(s1), content \(sent.ackID), a fresh id",
                         seen: "from \(c.senderID) to \(c.recipientID), content \(c.content), id \(c.id)")
        }
        try t.expect(confirmations[0].id != confirmations[1].id, "both confirmations carry the same id, so the second is a duplicate and dies",
                     expected: "two ids", seen: confirmations[0].id)
    }

    static let bv31 = Check("ACK/BV-31", "relays a confirmation addressed to another user, byte for byte, to every other link",
                            dialects: [.camp], needs: [.relay, .links(3)], rules: ["CAMP-R5", "CAMP-R4"]) { t in
        let camp = try t.probe(CampProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends S1's confirmation, addressed to S2, of a message S2 sent.
        let confirmation = camp.confirmation(of: camp.newID(), to: .stranger(2), by: .stranger(1))
        try t.send(confirmation, from: 1)
        // 3. It goes out unchanged on L2 and L3, not on L1.
        let seen = try t.observe(for: t.parameters.quietPeriod)
        let relayed = seen.filter { o in
            if case .ack(_, _, .camp(let m))? = o.packet { m.id == confirmation.key } else { false }
        }
        try t.expect(relayed.compactMap(\.link).sorted() == [LinkID(2), LinkID(3)], "the confirmation was not relayed like a directed message",
                     expected: "one copy on L2 and one on L3", seen: t.summary(seen))
    }

    static let bv32 = Check("ACK/BV-32", "never confirms a confirmation addressed to it, even one for a message it never sent",
                            dialects: [.camp], needs: [.acks, .links(2)], rules: ["CAMP-R5", "CAMP-R7"]) { t in
        let camp = try t.probe(CampProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        _ = try t.dutAddress()   // needed below: NA while the DUT's own id is unknown
        // 2. T1 sends S1's confirmation, addressed to the DUT, of an id the DUT never used.
        try t.send(camp.confirmation(of: camp.newID(), to: .dut, by: .stranger(1)), from: 1)
        // 3. Nothing goes out but the DUT's own messages: no confirmation of it, no relay
        //    (it is the DUT's).
        let seen = try t.observe(for: t.parameters.answerPeriod)
        try t.expect(seen.allSatisfy { $0.packet == nil || $0.message.map(t.isOwn) == true }, "answered or relayed a confirmation addressed to it",
                     expected: "nothing sent", seen: t.summary(seen))
        // 4. The DUT still relays.
        try t.expectStillRelaying(after: "a confirmation addressed to it")
    }

    static let bv33 = Check("ACK/BV-33", "resends its unconfirmed message byte for byte 30 s, 45 s and 67.5 s apart; a confirmation stops it and tells the app",
                            dialects: [.camp], needs: [.upperTester, .links(2)], rules: ["CAMP-R6", "CAMP-R5"]) { t in
        // A resend may lag a timer that ticks once a second; none may come early.
        let slack = Duration.seconds(1) + t.parameters.quietPeriod
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. The upper tester has the DUT send a message to S2, who is no neighbour.
        try t.command(send: Array("meshconform retry probe".utf8), to: .stranger(2))
        let sentAt = t.elapsed
        let first = try t.observe(for: t.parameters.quietPeriod)
        let s2 = t.probe.address(of: .stranger(2))
        guard let original = t.ownMessages(in: first).map(\.message).first(where: { $0.destination == s2 }) else {
            throw CheckFailed(reason: "the DUT did not send the message the upper tester asked for",
                              expected: "a message from the DUT to S2", seen: t.summary(first))
        }
        // A DUT that keeps its own id names itself as the sender: S2 confirms to that id.
        t.learn(dutAddress: original.origin, how: "the message the upper tester had it send")
        // 3. Over the next 142.5 s it is resent on L1 at 30, 75 and 142.5 s, each time the
        //    very bytes of the first transmission.
        let due: [Duration] = [.seconds(30), .seconds(75), .milliseconds(142_500)]
        let seen = try t.observe(for: due[2] + slack - (t.elapsed - sentAt))
        let resends = seen.filter { $0.message?.key == original.key && $0.link == LinkID(1) }
        try t.expect(resends.count == due.count, "not resent three times in the first 142.5 s",
                     expected: "resends at 30, 75, 142.5 s", seen: t.summary(resends))
        for (copy, at) in zip(resends, due) {
            let offset = copy.time - sentAt
            try t.expect(offset >= at && offset <= at + slack, "resent off the 30 x 1.5^n schedule",
                         expected: "a resend \(at) after the first send", seen: "one \(offset) after")
            try t.expect(copy.message?.body == original.body, "the resend is not the first transmission byte for byte",
                         expected: String(decoding: original.body, as: UTF8.self),
                         seen: String(decoding: copy.message?.body ?? [], as: UTF8.self))
        }
        // 4. T1 brings S2's confirmation; the app is told the message was delivered.
        let camp = try t.probe(CampProbe.self)
        try t.send(camp.confirmation(of: original.key, to: .dut, by: .stranger(2)), from: 1)
        let afterConfirmation = try t.observe(for: t.parameters.answerPeriod)
        let told = try t.appToldAcknowledged(original.key, payload: Array("meshconform retry probe".utf8), in: afterConfirmation)
        try t.expect(told, "the app was not told its message was confirmed", expected: "acknowledged \(original.key)",
                     seen: t.summary(afterConfirmation))
        // 5. The fourth resend, due 101.25 s after the third, never comes.
        let later = try t.observe(for: .milliseconds(101_250) + slack)
        let resent = later.filter { $0.message?.key == original.key }
        try t.expect(resent.isEmpty, "resent its message after it was confirmed", expected: "no copy", seen: t.summary(resent))
    }
}
