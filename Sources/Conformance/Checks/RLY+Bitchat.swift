import MeshNode
import MeshWire

/// RLY checks for rules only bitchat has: the TTL cap (BITCHAT-R5) and relaying byte for byte
/// but for the TTL byte (BITCHAT-R6.4), frames read raw first (BITCHAT-W7).
extension RLY {
    static let bitchatChecks = [bv17, bv18, bv23]

    static let bv17 = Check("RLY/BV-17", "caps a received TTL at 7 before relaying: ttl 8 and ttl 200 both go out with 6",
                            dialects: [.bitchat], needs: [.relay, .links(2)], rules: ["BITCHAT-R5"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. For ttl 8, then ttl 200: T1 sends a fresh broadcast from S1 with that TTL.
        for ttl in [8, 200] {
            let sent = try t.message(MessageSpec(from: .stranger(1), to: nil, ttl: ttl))
            try t.send(sent, from: 1)
            // 3. The relay on L2 carries the cap less one, 6, and is otherwise the packet sent.
            let seen = try t.observe(for: t.parameters.quietPeriod) { t.sightings(of: sent, in: $0).contains { $0.link == LinkID(2) } }
            try expectRelayedAsSent(t, probe.packet(of: sent), in: seen, on: LinkID(2))
        }
    }

    static let bv18 = Check("RLY/BV-18", "relays byte for byte but the TTL: padding, reserved flags, signature and compressed bytes kept; pad-like endings read raw",
                            dialects: [.bitchat], needs: [.relay, .links(2)], rules: ["BITCHAT-R6.4", "BITCHAT-W2", "BITCHAT-W6", "BITCHAT-W7"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. The tester builds broadcasts from S1 that a relay could spoil: a payload ending in
        //    01 (looks like a pad), a frame padded to its bucket, a signature ending in 02 02
        //    with reserved flag bit 0x20 set, and a compressed payload.
        let text = Array("meshconform: relayed as it came".utf8)
        let repetitive = Array(String(repeating: "abcabcabc ", count: 30).utf8)
        let variants: [(String, (inout BitchatPacket) -> Void)] = [
            ("a payload ending in 01", { $0.payload = text + [0x01] }),
            ("a frame padded to its bucket", { $0 = $0.paddedToBucket() }),
            ("a signature ending in 02 02 and flag 0x20", { p in
                p.signature = [UInt8](repeating: 0x5A, count: BitchatPacket.signatureSize - 2) + [0x02, 0x02]
                p.flags.formUnion([.hasSignature, BitchatPacket.Flags(rawValue: 0x20)])
            }),
            ("a compressed payload", { p in
                p.payload = repetitive
                p.compression = BitchatPacket.Compression(format: .deflate, originalSize: repetitive.count, data: BitchatCompression.deflate(repetitive))
                p.flags.insert(.isCompressed)
            }),
        ]
        for (what, edit) in variants {
            let sent = probe.edited(try t.message(MessageSpec(from: .stranger(1), to: nil, ttl: 5)), edit)
            try t.write(probe.packet(of: sent).encoded(), from: 1, what: "\(what): \(probe.describe(probe.packet(of: sent).encoded()))", carrying: sent.key)
            // 3. Each is relayed on L2 with ttl 4 and every other byte as sent.
            let packet = probe.packet(of: sent)
            let seen = try t.observe(for: t.parameters.quietPeriod) { !t.sightings(of: sent, in: $0).filter { $0.link == LinkID(2) }.isEmpty }
            try expectRelayedAsSent(t, packet, in: seen, on: LinkID(2), what: what)
        }
    }

    static let bv23 = Check("RLY/BV-23", "takes packets stamped up to 120 s from its clock either way, and drops older or newer ones: not relayed, not delivered",
                            dialects: [.bitchat], needs: [.relay, .links(2)], rules: ["BITCHAT-R4"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        guard let window = t.parameters.freshness else { throw TesterError("bitchat has a freshness window") }
        // The tester stamps packets on the DUT's clock (the epoch it gave it, or the wall clock
        // on the air); 5 s either side of the bound leaves room for a device's clock that is a
        // little off and for the time a packet takes to arrive.
        let margin = Duration.seconds(5)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends broadcasts stamped 115 s in the past and 115 s in the future (inside the
        //    window), each from its own stranger: each is relayed on L2, and delivered.
        func stamped(_ offset: Duration, from n: Int) throws -> ProbeMessage {
            let now = Int64(probe.clock(at: t.sessionClock))
            let ms = offset.components.seconds * 1000 + offset.components.attoseconds / 1_000_000_000_000_000
            return try t.message(MessageSpec(from: .stranger(n), to: nil, sequence: UInt64(now + ms)))
        }
        for (n, offset) in [(1, .zero - (window - margin)), (2, window - margin)] {
            let sent = try stamped(offset, from: n)
            try t.send(sent, from: 1)
            let seen = try t.observe(for: t.parameters.answerPeriod) { t.sightings(of: sent, in: $0).contains { $0.link == LinkID(2) } }
            try t.expect(t.sightings(of: sent, in: seen).contains { $0.link == LinkID(2) }, "dropped a packet stamped \(offset) from its clock, inside the \(window) window",
                         expected: "a relay on L2", seen: t.summary(seen))
            if t.capabilities.upperTester {
                try t.expect(try t.deliveries(of: sent, in: seen).count == 1, "did not deliver a packet stamped \(offset) from its clock, inside the \(window) window",
                             expected: "one delivery", seen: t.summary(seen))
            }
        }
        // 3. T1 sends broadcasts stamped 125 s in the past, 125 s in the future and 10 minutes
        //    in the past: none is relayed, none delivered.
        for (n, offset) in [(3, .zero - (window + margin)), (4, window + margin), (5, Duration.seconds(-600))] {
            let sent = try stamped(offset, from: n)
            try t.send(sent, from: 1)
            let seen = try t.observe(for: t.parameters.answerPeriod)
            try t.expect(t.sightings(of: sent, in: seen).isEmpty, "relayed a packet stamped \(offset) from its clock, outside the \(window) window",
                         expected: "no relay", seen: t.summary(seen))
            if t.capabilities.upperTester {
                try t.expect(try t.deliveries(of: sent, in: seen).isEmpty, "delivered a packet stamped \(offset) from its clock, outside the \(window) window",
                             expected: "no delivery", seen: t.summary(seen))
            }
        }
    }

    /// Every one of `packets` has been heard on each of `links` (by de-duplication key): what a
    /// check owes a wait for over the air (`CheckContext.observe(for:awaiting:)`) before it
    /// judges the relays, so a fan-out that comes late is neither judged missing nor taken for
    /// an answer to the check's next step.
    static func heardAll(_ packets: [BitchatPacket], on links: [LinkID], in seen: [Observation]) -> Bool {
        packets.allSatisfy { packet in
            links.allSatisfy { link in
                seen.contains { o in
                    guard o.link == link, case .bitchat(let p)? = o.message?.value else { return false }
                    return p.dedupKey == packet.dedupKey
                }
            }
        }
    }

    /// BITCHAT-R5 / R6.4: `packet` was relayed on `link` once, with ttl min(ttl, 7) - 1 and every
    /// other byte as sent (compared by re-encoding, which mirrors decoding byte for byte).
    static func expectRelayedAsSent(_ t: CheckContext, _ packet: BitchatPacket, in seen: [Observation], on link: LinkID,
                                    what: String? = nil) throws {
        let label = what.map { " (\($0))" } ?? ""
        let expectedTTL = Int(min(packet.ttl, 7)) - 1
        let onLink = seen.filter { $0.link == link }
        try t.expect(t.sightings(ofKey: packet.dedupKey, in: onLink).count == 1, "not relayed once on \(link)\(label)", expected: "one relay on \(link)", seen: t.summary(seen))
        // A relay the tester cannot decode FAILs the wire rule it breaks (BITCHAT-W7 for junk after the frame).
        try t.expectReadable(key: packet.dedupKey, in: onLink)
        let copies = onLink.compactMap { o -> BitchatPacket? in
            guard case .bitchat(let p)? = o.message?.value, p.dedupKey == packet.dedupKey else { return nil }
            return p
        }
        try t.expect(Int(copies[0].ttl) == expectedTTL, "the relay's TTL is not the capped TTL less one\(label)",
                     expected: "ttl \(expectedTTL) for a received ttl \(packet.ttl)", seen: "ttl \(copies[0].ttl)")
        var restored = copies[0]
        restored.ttl = packet.ttl
        let sent = packet.encoded(), relayed = restored.encoded()
        let differ = zip(sent, relayed).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        try t.expect(sent == relayed, "the relay changed more than the TTL byte\(label)",
                     expected: "\(sent.count) bytes as sent, but offset 2",
                     seen: "\(relayed.count) bytes" + (differ.map { ", first difference at offset \($0)" } ?? ""))
    }
}
