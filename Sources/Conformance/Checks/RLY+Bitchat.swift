import MeshNode
import MeshWire

/// RLY checks for rules only bitchat has: the TTL cap (BITCHAT-R5) and relaying the packet
/// received but for the TTL (BITCHAT-R6.4), frames read raw first (BITCHAT-W7).
extension RLY {
    static let bitchatChecks = [bv17, bv18, bv23, bv24]

    /// The fewest of `n` other links a real app relays a broadcast to: bitchat iOS's subset,
    /// min(n, b + 1) with b the bit length of n - 1 (BLEFanoutSelector.swift:71-89, 205-223@9b84b361).
    static func fewestAppLinks(of n: Int) -> Int { n < 4 ? n : min(n, (Int.bitWidth - (n - 1).leadingZeroBitCount) + 1) }

    static let bv24 = Check("RLY/BV-24", "at six links relays a broadcast to at least as many other links as bitchat iOS's fan-out subset (4 of 5), TTL within the apps' clamps, within the window",
                            dialects: [.bitchat], needs: [.relay, .links(6)], rules: ["BITCHAT-R5", "BITCHAT-R6.4"]) { t in
        // 1. Six testers link to the DUT: degree 6, where bitchat iOS clamps the relay TTL to
        //    4 and fans a broadcast out to a subset of its links.
        try t.connect(6)
        // 2. T3 sends a broadcast from S1 with the default TTL.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: nil))
        let sentAt = t.elapsed
        try t.send(sent, from: 3)
        let others = [1, 2, 4, 5, 6].map(LinkID.init)
        let fewest = fewestAppLinks(of: others.count)
        let seen = try t.observe(for: t.parameters.quietPeriod) { o in Set(t.sightings(of: sent, in: o).map(\.link)).count >= others.count }
        let sightings = t.sightings(of: sent, in: seen)
        // 3. None comes back on L3; at least `fewest` other links get one copy each.
        try t.expect(!sightings.contains { $0.link == LinkID(3) }, "relayed back on the ingress link", expected: "nothing on L3", seen: t.summary(seen))
        let links = Set(sightings.map(\.link))
        try t.expect(links.count >= fewest && sightings.count == links.count,
                     links.count < fewest ? "relayed to fewer links than any bitchat app does" : "relayed more than once on a link",
                     expected: "one copy each on at least \(fewest) of L1, L2, L4, L5, L6 (bitchat iOS's subset; every link is conforming too)",
                     seen: t.summary(seen))
        // 4. Each copy decodes, with a TTL from 4 (iOS at six links) to 6 (capped TTL - 1), and
        //    leaves within the window.
        try t.expectReadable(sent, in: seen)
        for c in t.copies(of: sent, in: seen) {
            try t.expect((lowestAppRelayTTL...(sent.ttl - 1)).contains(c.message.ttl), "the relay's TTL is outside what the apps send at six links",
                         expected: "ttl \(lowestAppRelayTTL) to \(sent.ttl - 1)", seen: "ttl \(c.message.ttl) on \(c.link)")
        }
        if let last = sightings.map(\.time).max() {
            try t.expectOnTime(last - sentAt, within: \.relayWindow.upperBound, "a relay at six links came after the jitter window")
        }
    }

    static let bv17 = Check("RLY/BV-17", "caps a received TTL at 7 before relaying: ttl 8 and ttl 200 both go out with 6 (or bitchat iOS's lower clamp by degree, down to 4)",
                            dialects: [.bitchat], needs: [.relay, .links(2)], rules: ["BITCHAT-R5"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. For ttl 8, then ttl 200: T1 sends a fresh broadcast from S1 with that TTL.
        for ttl in [8, 200] {
            let sent = try t.message(MessageSpec(from: .stranger(1), to: nil, ttl: ttl))
            try t.send(sent, from: 1)
            // 3. The relay on L2 carries the cap less one, 6 (4 or 5 from a node that clamps by
            //    degree as bitchat iOS does), and is otherwise the packet sent.
            let seen = try t.observe(for: t.parameters.quietPeriod) { t.sightings(of: sent, in: $0).contains { $0.link == LinkID(2) } }
            try expectRelayedAsSent(t, probe.packet(of: sent), in: seen, on: LinkID(2))
        }
    }

    static let bv18 = Check("RLY/BV-18", "relays the packet it received but for the TTL: fields, payload, signature and defined flags kept (re-encoding allowed); pad-like endings read raw",
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
            // 3. Each is relayed on L2 with ttl 4 and otherwise as sent: byte for byte, or
            //    re-encoded as bitchat iOS does (a new pad, reserved bits dropped, the payload
            //    re-compressed), with every field, the payload and the signature unchanged.
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

    /// The lowest relay TTL a real app sends for a capped TTL of 6 or more: bitchat iOS at 6
    /// links or more (min(capped, 5) - 1, RelayController.swift:74-84@9b84b361). The tester
    /// cannot count a device's links on the air, so any degree is allowed for.
    static let lowestAppRelayTTL = 4

    /// BITCHAT-R5 / R6.4: `packet` was relayed on `link` once, with ttl min(ttl, 7) - 1 (or as
    /// low as bitchat iOS's degree clamp takes it), and otherwise the packet sent: version,
    /// type, timestamp, ids, route, payload (decompressed), signature and the flags the page
    /// defines. The bytes may differ (bitchat iOS re-encodes every relay: BLEService.swift:6093-6094@9b84b361):
    /// reserved flag bits may be dropped, the pad and the compressed bytes redone.
    static func expectRelayedAsSent(_ t: CheckContext, _ packet: BitchatPacket, in seen: [Observation], on link: LinkID,
                                    what: String? = nil) throws {
        let label = what.map { " (\($0))" } ?? ""
        let expectedTTL = Int(min(packet.ttl, 7)) - 1
        let lowest = min(expectedTTL, lowestAppRelayTTL)
        let onLink = seen.filter { $0.link == link }
        try t.expect(t.sightings(ofKey: packet.dedupKey, in: onLink).count == 1, "not relayed once on \(link)\(label)", expected: "one relay on \(link)", seen: t.summary(seen))
        // A relay the tester cannot decode FAILs the wire rule it breaks (BITCHAT-W7 for junk after the frame).
        try t.expectReadable(key: packet.dedupKey, in: onLink)
        let copies = onLink.compactMap { o -> BitchatPacket? in
            guard case .bitchat(let p)? = o.message?.value, p.dedupKey == packet.dedupKey else { return nil }
            return p
        }
        let relay = copies[0]
        try t.expect((lowest...expectedTTL).contains(Int(relay.ttl)), "the relay's TTL is not the capped TTL less one\(label)",
                     expected: "ttl \(expectedTTL) for a received ttl \(packet.ttl)" + (lowest < expectedTTL ? " (or down to \(lowest), bitchat iOS's clamp at 6 links or more)" : ""),
                     seen: "ttl \(relay.ttl)")
        // 0x08 is the route flag in v2 only: a v1 relay may drop it like a reserved bit.
        let defined = BitchatPacket.Flags(rawValue: packet.version == 2 ? 0x1F : 0x17)
        var differences: [String] = []
        if relay.version != packet.version { differences.append("version \(relay.version), sent \(packet.version)") }
        if relay.type != packet.type { differences.append("type 0x\(Hex.encode([relay.type])), sent 0x\(Hex.encode([packet.type]))") }
        if relay.timestamp != packet.timestamp { differences.append("timestamp \(relay.timestamp), sent \(packet.timestamp)") }
        if relay.senderID != packet.senderID || relay.recipientID != packet.recipientID { differences.append("sender or recipient id") }
        if relay.route != packet.route { differences.append("route") }
        if relay.payload != packet.payload {
            let at = zip(relay.payload, packet.payload).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            differences.append("payload \(relay.payload.count) bytes, sent \(packet.payload.count)" + (at.map { ", first difference at byte \($0)" } ?? ""))
        }
        if relay.signature != packet.signature { differences.append(relay.signature == nil ? "signature dropped" : "signature changed") }
        if relay.flags.intersection(defined) != packet.flags.intersection(defined) {
            differences.append("flags 0x\(Hex.encode([relay.flags.rawValue])), sent 0x\(Hex.encode([packet.flags.rawValue]))")
        }
        if relay.flags.rawValue & ~defined.rawValue & ~packet.flags.rawValue != 0 { differences.append("reserved flag bits set that were clear") }
        try t.expect(differences.isEmpty, "the relay changed more than the TTL\(label)",
                     expected: "the packet as sent but its TTL (re-encoding, a new pad and dropped reserved bits allowed, as bitchat iOS relays)",
                     seen: differences.joined(separator: "; "))
        if relay.encoded() != { var p = packet; p.ttl = relay.ttl; return p.encoded() }() {
            t.note("the relay\(label) was re-encoded (\(relay.padding) pad bytes, flags 0x\(Hex.encode([relay.flags.rawValue])), sent \(packet.padding) and 0x\(Hex.encode([packet.flags.rawValue]))), as bitchat iOS relays")
        }
    }
}
