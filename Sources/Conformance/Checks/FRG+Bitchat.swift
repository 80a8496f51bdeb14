import MeshNode
import MeshWire

/// FRG checks for bitchat's fragments (BITCHAT-R7, R8): fragment packets are relayed like any
/// packet; those for everyone are reassembled per (sender, fragmentID), dispatched on the
/// inner packet's own type, and forgotten 30 s after the first fragment. Reassembly is judged
/// by the app delivery of the completed message (the DUT never relays the whole frame).
extension FRG {
    static let bitchatChecks = [bv05, bv06, bv07, bi06, bi07]

    /// A broadcast from `origin` whose frame needs three fragments (1 200 bytes of payload).
    static func largeBitchat(_ t: CheckContext, from origin: Party = .stranger(1), ttl: Int? = nil) throws -> ProbeMessage {
        let text = String(repeating: "meshconform bitchat fragment probe; ", count: 34)
        return try t.message(MessageSpec(from: origin, to: nil, ttl: ttl, payload: Array(text.utf8)))
    }

    /// Tester `tester` writes fragment packets in the order given.
    static func write(_ t: CheckContext, _ packets: [BitchatPacket], from tester: Int) throws {
        for p in packets { try t.write(p.encoded(), from: tester) }
    }

    /// The app got `message` exactly once (BITCHAT-R9).
    static func expectDeliveredOnce(_ t: CheckContext, _ message: ProbeMessage, in seen: [Observation], after what: String) throws {
        let n = try t.deliveries(of: message, in: seen).count
        try t.expect(n == 1, n == 0 ? "the fragmented message was not delivered after \(what)" : "the fragmented message was delivered \(n) times after \(what)",
                     expected: "one delivery of the \(message.payload.count)-byte message", seen: t.summary(seen))
    }

    static let bv05 = Check("FRG/BV-05", "relays each fragment of a broadcast like any packet: every other link, TTL - 1, bytes as sent",
                            dialects: [.bitchat], needs: [.relay, .links(2)], rules: ["BITCHAT-R8.6", "BITCHAT-R6.4"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast from S1 as three fragment packets, ttl 5.
        let fragments = probe.fragments(of: try largeBitchat(t, ttl: 5))
        t.note("the frame is \(fragments.count) fragments")
        try write(t, fragments, from: 1)
        // 3. Each fragment is relayed once on L2, ttl 4, every other byte as sent; none on L1.
        let seen = try t.observe(for: t.parameters.quietPeriod) { RLY.heardAll(fragments, on: [LinkID(2)], in: $0) }
        for fragment in fragments { try RLY.expectRelayedAsSent(t, fragment, in: seen, on: LinkID(2), what: "a fragment") }
        // (The DUT's own packets, such as the announce a bitchat node sends on each new link,
        // are not relays.)
        try t.expect(!t.relays(in: seen).contains { $0.link == LinkID(1) }, "relayed a fragment back on its ingress link",
                     expected: "nothing on L1", seen: t.summary(seen))
    }

    static let bv06 = Check("FRG/BV-06", "reassembles fragments arriving out of order and delivers the message once, repeated fragments and all",
                            dialects: [.bitchat], needs: [.upperTester, .links(2)], rules: ["BITCHAT-R8.4", "BITCHAT-R8.5", "BITCHAT-R3", "BITCHAT-R9"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast's fragments last first; T2 then sends them all again, as a
        //    neighbour relaying them would.
        let sent = try largeBitchat(t)
        let fragments = probe.fragments(of: sent)
        try write(t, fragments.reversed(), from: 1)
        var seen = try t.observe(for: t.parameters.quietPeriod)
        try write(t, fragments, from: 2)
        seen += try t.observe(for: t.parameters.quietPeriod)
        // 3. The app got the message, whole, exactly once.
        try expectDeliveredOnce(t, sent, in: seen, after: "fragments out of order, then repeated")
    }

    static let bv07 = Check("FRG/BV-07", "reassembles per (sender, fragmentID): two senders' interleaved fragments under one fragmentID both complete",
                            dialects: [.bitchat], needs: [.upperTester, .links(2)], rules: ["BITCHAT-R8.1"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. S1 and S2 each send a broadcast of the same size, fragmented under the same
        //    fragmentID; T1 interleaves them: S1 #0, S2 #0, S1 #1, S2 #1 ...
        let id: [UInt8] = [0xF2, 0xA6, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]
        let first = try largeBitchat(t, from: .stranger(1)), second = try largeBitchat(t, from: .stranger(2))
        let a = probe.fragments(of: first, fragmentID: id), b = probe.fragments(of: second, fragmentID: id)
        try write(t, zip(a, b).flatMap { [$0, $1] }, from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod)
        // 3. Both messages reach the app, each once and whole.
        try expectDeliveredOnce(t, first, in: seen, after: "interleaving with another sender's fragments (S1's)")
        try expectDeliveredOnce(t, second, in: seen, after: "interleaving with another sender's fragments (S2's)")
    }

    static let bi06 = Check("FRG/BI-06", "dispatches a reassembled frame on its own type: an announce claimed as a message is not delivered",
                            dialects: [.bitchat], needs: [.upperTester, .links(2)], rules: ["BITCHAT-R8.4", "BITCHAT-R9"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends the fragments of an announce (type 0x01) from S1 whose fragment headers
        //    claim originalType 0x02, message.
        let announce = probe.edited(try largeBitchat(t)) { $0.type = BitchatMessageType.announce.rawValue }
        try write(t, probe.fragments(of: announce, claiming: BitchatMessageType.message.rawValue), from: 1)
        // 3. Nothing reaches the app.
        let seen = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(!seen.contains { if case .delivered = $0.kind { true } else { false } },
                     "delivered an announce because its fragments claimed it was a message",
                     expected: "no delivery (the inner type is announce)", seen: t.summary(seen))
        // 4. A genuine fragmented message from S2 is still delivered, once.
        let genuine = try largeBitchat(t, from: .stranger(2))
        try write(t, probe.fragments(of: genuine), from: 1)
        try expectDeliveredOnce(t, genuine, in: try t.observe(for: t.parameters.quietPeriod), after: "a mislabelled assembly")
    }

    static let bi07 = Check("FRG/BI-07", "discards an incomplete assembly after the reassembly lifetime: its last fragment then completes nothing",
                            dialects: [.bitchat], needs: [.upperTester, .links(2)], rules: ["BITCHAT-R8.2"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        guard let lifetime = t.parameters.reassemblyLifetime else { throw TesterError("bitchat has a reassembly lifetime") }
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast's fragments, all but the last.
        let sent = try largeBitchat(t)
        let fragments = probe.fragments(of: sent)
        try write(t, Array(fragments.dropLast()), from: 1)
        // 3. The tester waits the lifetime and as much again for a coarse sweep (INCONC past
        //    the check's budget); the fragments stay well inside the 120 s freshness limit.
        let waited = try t.observe(for: lifetime * 2)
        // 4. T1 sends the last fragment: the assembly is gone, so nothing completes.
        try write(t, [fragments[fragments.count - 1]], from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(try t.deliveries(of: sent, in: waited + seen).isEmpty, "an assembly older than the lifetime completed",
                     expected: "no delivery \(lifetime * 2) after the first fragment", seen: t.summary(seen))
        // 5. A fresh fragmented message from S2 is still delivered, once.
        let fresh = try largeBitchat(t, from: .stranger(2))
        try write(t, probe.fragments(of: fresh), from: 1)
        try expectDeliveredOnce(t, fresh, in: try t.observe(for: t.parameters.quietPeriod), after: "a stale assembly")
    }
}
