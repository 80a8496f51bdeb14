import MeshNode
import MeshWire

/// DDP checks for the broadcast-only delivery rule (bitchat and simple deliver what everyone
/// gets, BITCHAT-R9, SIMPLE-R9) and for simple's cancellation of a waiting relay (SIMPLE-R8).
extension DDP {
    static let simpleChecks = [bv13, bv40]

    static let bv13 = Check("DDP/BV-13", "a broadcast is delivered to the app once, however often and by whichever link it arrives",
                            dialects: [.bitchat, .simple], needs: [.upperTester, .links(2)], rules: ["BITCHAT-R3", "BITCHAT-R9", "SIMPLE-R3", "SIMPLE-R9"]) { t in
        // Steps as DDP/BV-05's, with a broadcast from S1.
        try expectDeliveredOnce(t, to: nil)
    }

    static let bv40 = Check("DDP/BV-40", "a relay still waiting is cancelled when the message is heard again",
                            dialects: [.simple], needs: [.relay, .links(2)], rules: ["SIMPLE-R8", "SIMPLE-R7"]) { t in
        let probe = try t.probe(SimpleProbe.self)
        // 1. Two testers link to the DUT (two links: the DUT relays with probability 1).
        try t.connect(2)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. T1 sends a message from S1, and at once, inside the 10 ms before any relay may
        //    leave, T2 sends the copy it relayed itself (relayCount 1, lastRelay T2, ttl 4).
        let sent = try t.message(MessageSpec(from: .stranger(1), to: nil))
        let echo = probe.edited(sent) { m in
            m.ttl -= 1
            m.relayCount = 1
            m.isRelayed = true
            m.lastRelay = probe.name(of: .tester(2))
        }
        let sentAt = t.elapsed
        try t.send(sent, from: 1)
        try t.send(echo, from: 2)
        // 3. The DUT's relay was cancelled: no copy leaves on any link. (A relay sooner than the
        //    window's minimum left before the repeat could cancel it: that breaks SIMPLE-R7.)
        let seen = try t.observe(for: t.parameters.quietPeriod)
        if let early = t.sightings(of: sent, in: seen).first(where: { $0.time - sentAt < t.parameters.relayWindow.lowerBound }) {
            throw CheckFailed(reason: "relayed at once, before the repeat could cancel the relay: no jitter (SIMPLE-R7)",
                              expected: "a relay waiting \(t.parameters.relayWindow) (and then cancelled)",
                              seen: "relayed after \(CheckContext.ms(early.time - sentAt)): \(t.summary(seen))", rule: "SIMPLE-R7")
        }
        try t.expect(t.sightings(of: sent, in: seen).isEmpty, "relayed a message it heard again before its relay left",
                     expected: "the relay cancelled: nothing sent", seen: t.summary(seen))
        // 4. The DUT still relays a message heard once.
        try t.expectStillRelaying(after: "a cancelled relay")
    }
}
