import MeshNode
import MeshWire

/// FRG checks for bitchat's fragments (BITCHAT-R7, R8): fragment packets are relayed like any
/// packet; those for everyone are reassembled per (sender, fragmentID), dispatched on the
/// inner packet's own type, and forgotten 30 s after the first fragment. Reassembly is judged
/// by the app delivery of the completed message (the DUT never relays the whole frame).
extension FRG {
    static let bitchatChecks = [bv05, bv06, bv07, bv09, bi06, bi07, bi08]

    /// A broadcast from `origin` whose frame needs `pieces` fragments (the last one partly
    /// filled: 200 bytes of payload past the others' slices). Its text names the origin, so two
    /// origins' messages differ (an app may take the same text again within a second for a
    /// repeat).
    static func largeBitchat(_ t: CheckContext, from origin: Party = .stranger(1), ttl: Int? = nil, pieces: Int = 3) throws -> ProbeMessage {
        let length = (pieces - 1) * BitchatProbe.fragmentChunk + 200
        let text = String(repeating: "meshconform bitchat fragment probe from \(origin); ", count: length / 36 + 1)
        return try t.message(MessageSpec(from: origin, to: nil, ttl: ttl, payload: Array(text.utf8.prefix(length))))
    }

    /// Tester `tester` writes fragment packets in the order given.
    static func write(_ t: CheckContext, _ packets: [BitchatPacket], from tester: Int) throws {
        for p in packets { try t.write(p.encoded(), from: tester, carrying: p.dedupKey) }
    }

    /// The app got `message` exactly once (BITCHAT-R9).
    static func expectDeliveredOnce(_ t: CheckContext, _ message: ProbeMessage, in seen: [Observation], after what: String) throws {
        let n = try t.deliveries(of: message, in: seen).count
        try t.expect(n == 1, n == 0 ? "the fragmented message was not delivered after \(what)" : "the fragmented message was delivered \(n) times after \(what)",
                     expected: "one delivery of the \(message.payload.count)-byte message", seen: t.summary(seen))
    }

    static let bv05 = Check("FRG/BV-05", "relays each fragment of a broadcast like any packet: every other link, TTL - 1, the packet as sent",
                            dialects: [.bitchat], needs: [.relay, .links(2)], rules: ["BITCHAT-R8.6", "BITCHAT-R6.4"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast from S1 as three fragment packets, ttl 5.
        let fragments = probe.fragments(of: try largeBitchat(t, ttl: 5))
        t.note("the frame is \(fragments.count) fragments")
        try write(t, fragments, from: 1)
        // 3. Each fragment is relayed once on L2, ttl 4, the packet as sent (re-encoding
        //    allowed, RLY/BV-18); none on L1.
        let seen = try t.observe(for: t.parameters.quietPeriod) { RLY.heardAll(fragments, on: [LinkID(2)], in: $0) }
        for fragment in fragments { try RLY.expectRelayedAsSent(t, fragment, in: seen, on: LinkID(2), what: "a fragment") }
        // (The DUT's own packets, such as the announce a bitchat node sends on each new link,
        // are not relays.)
        try t.expect(!t.relays(in: seen).contains { $0.link == LinkID(1) }, "relayed a fragment back on its ingress link",
                     expected: "nothing on L1", seen: t.summary(seen))
    }

    static let bv06 = Check("FRG/BV-06", "reassembles fragments arriving out of order and delivers the message once, repeated fragments and all; a repeated index with other bytes keeps the piece held",
                            dialects: [.bitchat], needs: [.upperTester, .links(2)], rules: ["BITCHAT-R8.4", "BITCHAT-R8.5", "BITCHAT-R3", "BITCHAT-R9"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a broadcast's fragments last first, and right after the middle one a
        //    second fragment with the middle index and other bytes (its data in capitals: the
        //    frame it would make still decodes, with another payload).
        let sent = try largeBitchat(t)
        let fragments = probe.fragments(of: sent)
        let forged = try forgedPiece(probe, sent, fragments[1])
        try write(t, [fragments[2], fragments[1], forged, fragments[0]], from: 1)
        var seen = try t.observe(for: t.parameters.quietPeriod)
        // 3. T2 then sends them all again, as a neighbour relaying them would.
        try write(t, fragments, from: 2)
        seen += try t.observe(for: t.parameters.quietPeriod)
        // 4. The app got the message as first pieced, whole, exactly once: nothing of the
        //    repeated index's other bytes (BITCHAT-R8.5 keeps the piece already held).
        let mixed = seen.compactMap { o -> AppMessage? in
            guard case .delivered(let m) = o.kind, m.payload != sent.payload, m.payload.count == sent.payload.count else { return nil }
            return m
        }
        try t.expect(mixed.isEmpty, "a repeated fragment index with other bytes replaced the piece already held: BITCHAT-R8.5 keeps the first (stricter than bitchat iOS and Android, which let the last win: BLEFragmentAssemblyBuffer.swift:114-115@9b84b361, FragmentManager.kt:256@09b481f1)",
                     expected: "the message as its first fragments made it (\(sent.payload.count) bytes)",
                     seen: mixed.map { "a delivery of \($0.payload.count) bytes holding the repeated piece's: \(String(decoding: $0.payload.prefix(60), as: UTF8.self))..." }.joined(separator: "; "))
        try expectDeliveredOnce(t, sent, in: seen, after: "fragments out of order, a repeated index with other bytes, then all repeated")
    }

    /// `piece` (a fragment packet of `message`) with the same fragmentID and index and its data
    /// in capitals: a second piece for the same place, whose frame still decodes.
    static func forgedPiece(_ probe: BitchatProbe, _ message: ProbeMessage, _ piece: BitchatPacket) throws -> BitchatPacket {
        let f = try BitchatFragment(decoding: piece.payload[...])
        let upper = f.data.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
        return probe.fragmentPacket(of: probe.packet(of: message),
                                    BitchatFragment(fragmentID: f.fragmentID, index: f.index, total: f.total, originalType: f.originalType, data: upper))
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

    /// A short broadcast from `origin` as two fragment packets (a fresh fragment id each time).
    static func twoPieces(_ t: CheckContext, _ probe: BitchatProbe, from origin: Party, _ n: Int) throws -> (ProbeMessage, [BitchatPacket]) {
        let message = try t.message(MessageSpec(from: origin, to: nil, ttl: nil, payload: Array("meshconform bitchat assembly \(n) from \(origin)".utf8)))
        let frame = probe.packet(of: message).encoded()
        return (message, probe.fragments(of: message, chunk: (frame.count + 1) / 2))
    }

    static let bv09 = Check("FRG/BV-09", "holds 128 incomplete assemblies and still starts a new one, evicting the oldest: the next set completes",
                            dialects: [.bitchat], needs: [.upperTester, .links(2)], rules: ["BITCHAT-R8.3"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        guard let held = t.parameters.reassemblyCapacity else { throw TesterError("bitchat has a reassembly capacity") }
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends the first of two fragments of 128 (bitchat.reassembly.max) short
        //    broadcasts from S1, each under its own fragment id: 128 assemblies open, none
        //    complete.
        for n in 0..<held { try write(t, [try twoPieces(t, probe, from: .stranger(1), n).1[0]], from: 1) }
        let opened = try t.observe(for: t.parameters.quietPeriod)
        // 3. T1 sends both fragments of one more broadcast, from S2.
        let (last, pieces) = try twoPieces(t, probe, from: .stranger(2), held)
        try write(t, pieces, from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod)
        // 4. The app got it once: the new assembly was started (the oldest giving way), not refused.
        let n = try t.deliveries(of: last, in: opened + seen).count
        try t.expect(n == 1, n == 0 ? "a new assembly beyond \(held) incomplete ones was refused: BITCHAT-R8.3 evicts the oldest (bitchat Android refuses a new set beyond 64: FragmentManager.kt:206-212@09b481f1)" : "the fragmented message after \(held) open sets was delivered \(n) times",
                     expected: "one delivery of the message whose set began after \(held) incomplete ones", seen: t.summary(seen))
    }

    static let bi08 = Check("FRG/BI-08", "ignores a fragment whose total or originalType disagrees with its set, and the set still completes",
                            dialects: [.bitchat], needs: [.upperTester, .links(2)], rules: ["BITCHAT-R8.5"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends fragments #0 and #1 of a three-piece broadcast from S1; then #2's data
        //    under a header claiming 4 fragments, and under one claiming type announce (the
        //    data as the set's own, so a node that takes the header anyway still pieces the
        //    message right); then the genuine #2.
        let sent = try largeBitchat(t)
        let fragments = probe.fragments(of: sent)
        let frame = probe.packet(of: sent)
        let last = try BitchatFragment(decoding: fragments[2].payload[...])
        func variant(total: Int, type: UInt8) -> BitchatPacket {
            probe.fragmentPacket(of: frame, BitchatFragment(fragmentID: last.fragmentID, index: last.index, total: total, originalType: type, data: last.data))
        }
        try write(t, [fragments[0], fragments[1], variant(total: 4, type: last.originalType),
                      variant(total: last.total, type: BitchatMessageType.announce.rawValue), fragments[2]], from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod)
        // 3. The app got the message once: the disagreeing fragments were set aside and the set
        //    they named was kept (bitchat Android drops the set: FragmentManager.kt:198-203@09b481f1).
        let n = try t.deliveries(of: sent, in: seen).count
        try t.expect(n == 1, n == 0 ? "the set was lost after fragments that disagreed with its total and type: BITCHAT-R8.5 ignores such a fragment and keeps the set (bitchat Android drops the set: FragmentManager.kt:198-203@09b481f1)" : "the fragmented message was delivered \(n) times",
                     expected: "one delivery of the \(sent.payload.count)-byte message", seen: t.summary(seen))
    }

    static let bi06 = Check("FRG/BI-06", "dispatches a reassembled frame on its own type and drops one whose type differs from its fragments' claim: neither an announce claimed as a message nor a message claimed as an announce is delivered",
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
        // 4. T1 sends the fragments of a message from S3 whose headers claim originalType 0x01,
        //    announce: the claim and the frame disagree, so the assembly is dropped (BITCHAT-R8.4;
        //    bitchat iOS handles it by its own type and delivers it: meshconform is stricter).
        let message = try largeBitchat(t, from: .stranger(3))
        try write(t, probe.fragments(of: message, claiming: BitchatMessageType.announce.rawValue), from: 1)
        let claimed = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(try t.deliveries(of: message, in: claimed).isEmpty,
                     "delivered a message whose fragments claimed it was an announce: BITCHAT-R8.4 drops an assembly whose type differs from the claim (stricter than bitchat iOS and Android, which handle it by its own type: BLEFragmentHandler.swift:59-72@9b84b361, FragmentManager.kt:270-275@09b481f1)",
                     expected: "no delivery", seen: t.summary(claimed))
        // 5. A genuine fragmented message from S2 is still delivered, once.
        let genuine = try largeBitchat(t, from: .stranger(2))
        try write(t, probe.fragments(of: genuine), from: 1)
        try expectDeliveredOnce(t, genuine, in: try t.observe(for: t.parameters.quietPeriod), after: "mislabelled assemblies")
    }

    static let bi07 = Check("FRG/BI-07", "discards an incomplete assembly after the reassembly lifetime: its last fragment then completes nothing",
                            dialects: [.bitchat], needs: [.upperTester, .links(2)], rules: ["BITCHAT-R8.2"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        guard let lifetime = t.parameters.reassemblyLifetime else { throw TesterError("bitchat has a reassembly lifetime") }
        try t.requireTime(lifetime * 2 + t.parameters.quietPeriod * 2, for: "waiting out the reassembly lifetime twice")
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends two broadcasts' fragments, all but the last: 2 of 3 and 3 of 4 (75 %; a
        //    node may keep a nearly complete set past its lifetime, and must not).
        let sets = [try largeBitchat(t, pieces: 3), try largeBitchat(t, pieces: 4)].map { ($0, probe.fragments(of: $0)) }
        for (_, fragments) in sets { try write(t, Array(fragments.dropLast()), from: 1) }
        // 3. The tester waits the lifetime and as much again for a coarse sweep (INCONC past
        //    the check's budget); the fragments stay well inside the 120 s freshness limit.
        let waited = try t.observe(for: lifetime * 2)
        // 4. T1 sends each set's last fragment: the assemblies are gone, so nothing completes.
        for (_, fragments) in sets { try write(t, [fragments[fragments.count - 1]], from: 1) }
        let seen = try t.observe(for: t.parameters.quietPeriod)
        for (sent, fragments) in sets {
            try t.expect(try t.deliveries(of: sent, in: waited + seen).isEmpty,
                         "an assembly older than the lifetime completed (\(fragments.count - 1) of \(fragments.count) fragments held)",
                         expected: "no delivery \(lifetime * 2) after the first fragment", seen: t.summary(seen))
        }
        // 5. A fresh fragmented message from S2 is still delivered, once.
        let fresh = try largeBitchat(t, from: .stranger(2))
        try write(t, probe.fragments(of: fresh), from: 1)
        try expectDeliveredOnce(t, fresh, in: try t.observe(for: t.parameters.quietPeriod), after: "a stale assembly")
    }
}
