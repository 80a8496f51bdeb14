import Foundation
import MeshNode
import MeshWire

/// ROB: robustness (RELAY-R12, BLEMESH-R19). Each bad input is followed by a liveness probe:
/// a fresh valid message must still be relayed. No check here depends on de-duplication.
enum ROB {
    static let checks = [bi01, bi02, bi03, bi04, bi05, bi06, bi07, bi08, bi09, bi10]

    static let bi01 = Check("ROB/BI-01", "survives truncated units",
                            needs: [.relay, .links(2)], rules: ["RELAY-W1", "RELAY-R12", "BLEMESH-W1", "BLEMESH-R19", "PEAT-W5", "PEAT-R7", "BITCHAT-W1", "BITCHAT-R11", "SIMPLE-W2", "SIMPLE-R10"]) { t in
        // 1. The tester builds a valid unit of a fresh message and cuts it short at several
        //    points: inside the type and length bytes, a quarter and half way through.
        let message = try t.message(MessageSpec(from: .stranger(3), to: t.probe.relayedDestination))
        guard let unit = t.probe.units(of: message, via: 1).first, unit.count > 8 else { throw TesterError("no unit to truncate") }
        let cuts = Set([1, 2, 3, unit.count / 4, unit.count / 2]).sorted()
        // 2. T1 writes each prefix; 3. after each the DUT still relays. (A prefix may still
        //    decode in some dialects, so whether it is relayed is not judged.)
        try survive(t, cuts.map { ("a unit cut to \($0) of \(unit.count) bytes", Array(unit.prefix($0))) }, nothingRelayed: false)
    }

    static let bi02 = Check("ROB/BI-02", "does not relay a packet over the 512-byte limit, and survives it",
                            dialects: [.relay], needs: [.relay, .links(2)], rules: ["RELAY-G3", "RELAY-R12"]) { t in
        // 1. The tester builds frames for a stranger of about 600 and 2048 bytes (a valid
        //    header, a sealed body of a long plaintext).
        var inputs: [(String, [UInt8])] = []
        for size in [600, 2048] {
            let message = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination,
                                                    payload: [UInt8](repeating: 0x6D, count: size - 160)))
            guard let unit = t.probe.units(of: message, via: 1).first, unit.count > t.parameters.maxUnit else {
                throw TesterError("the over-long frame came out at most \(t.parameters.maxUnit) bytes")
            }
            inputs.append(("a \(unit.count)-byte frame", unit))
        }
        // 2. T1 writes each; 3. nothing is relayed (a node never sends a packet over the
        //    limit), and the DUT still relays a valid frame.
        try survive(t, inputs)
    }

    static let bi03 = Check("ROB/BI-03", "refuses packets of an unknown type, and survives them",
                            dialects: [.relay], needs: [.relay, .links(2)], rules: ["RELAY-W1", "RELAY-R12"]) { t in
        // 1. The tester takes a valid frame and changes its type byte: 0x00, 'X', 'f', 0xFF.
        let frame = try validFrame(t)
        let inputs = [UInt8(0x00), 0x58, 0x66, 0xFF].map { type in ("a packet of type 0x\(Hex.encode([type]))", [type] + frame.dropFirst()) }
        // 2. T1 writes each; 3. nothing is relayed and the DUT still relays.
        try survive(t, inputs)
    }

    static let bi04 = Check("ROB/BI-04", "refuses frames whose header is not valid JSON of the right shape, and survives them",
                            dialects: [.relay], needs: [.relay, .links(2)], rules: ["RELAY-W1", "RELAY-W2", "RELAY-R12"]) { t in
        // 1. The tester builds frames for a stranger with a good body and a broken header.
        let message = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        let o = message.origin.description, d = message.destination?.description ?? "", s = message.sequence
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let headers: [(String, [UInt8])] = [
            ("a header that is not JSON", Array("hello".utf8)),
            ("a header that is not UTF-8", [0x7B, 0xFF, 0xFE, 0x7D]),
            ("a header that is not an object", Array("[1,2,3]".utf8)),
            ("a header with a key twice", Array("{\"dest\":\"\(d)\",\"origin\":\"\(o)\",\"seq\":\(s),\"ttl\":8,\"ttl\":8}".utf8)),
            ("a header with ttl 256", Array("{\"dest\":\"\(d)\",\"origin\":\"\(o)\",\"seq\":\(s),\"ttl\":256}".utf8)),
            ("a header with ttl 8.5", Array("{\"dest\":\"\(d)\",\"origin\":\"\(o)\",\"seq\":\(s),\"ttl\":8.5}".utf8)),
            ("a header with ttl null", Array("{\"dest\":\"\(d)\",\"origin\":\"\(o)\",\"seq\":\(s),\"ttl\":null}".utf8)),
            ("a header without seq", Array("{\"dest\":\"\(d)\",\"origin\":\"\(o)\",\"ttl\":8}".utf8)),
            ("a header with a negative seq", Array("{\"dest\":\"\(d)\",\"origin\":\"\(o)\",\"seq\":-\(s),\"ttl\":8}".utf8)),
            ("a header with seq 2^64", Array("{\"dest\":\"\(d)\",\"origin\":\"\(o)\",\"seq\":18446744073709551616,\"ttl\":8}".utf8)),
            ("a header nested 40 deep", Array("{\"dest\":\"\(d)\",\"origin\":\"\(o)\",\"seq\":\(s),\"ttl\":8,\"x\":\(deep)}".utf8)),
        ]
        var inputs = headers.map { ($0.0, RawRelay.packet(.frame, header: $0.1, body: message.body)) }
        // Length fields that disagree with the header: past the end, and cutting the JSON short.
        let good = Array("{\"dest\":\"\(d)\",\"origin\":\"\(o)\",\"seq\":\(s),\"ttl\":8}".utf8)
        inputs.append(("a headerLen past the end of the packet", RawRelay.packet(type: 0x46, headerLength: good.count + 200, header: good, body: [])))
        inputs.append(("a headerLen that cuts the JSON short", RawRelay.packet(type: 0x46, headerLength: good.count - 5, header: good, body: message.body)))
        // 2. T1 writes each; 3. nothing is relayed and the DUT still relays.
        try survive(t, inputs)
    }

    static let bi05 = Check("ROB/BI-05", "refuses frames whose header holds a malformed UUID, and survives them",
                            dialects: [.relay], needs: [.relay, .links(2)], rules: ["RELAY-W2", "RELAY-R12"]) { t in
        // 1. The tester builds frames with a good body and an origin or dest that is no UUID.
        let message = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        let o = message.origin.description, d = message.destination?.description ?? "", s = message.sequence
        let bad: [(String, String, String)] = [
            ("an origin that is not a UUID", "\"not-a-uuid\"", "\"\(d)\""),
            ("a dest one digit short", "\"\(o)\"", "\"\(d.dropLast())\""),
            ("an origin in braces", "\"{\(o)}\"", "\"\(d)\""),
            ("a dest with a non-hex digit", "\"\(o)\"", "\"G\(d.dropFirst())\""),
            ("an origin that is a number", "12", "\"\(d)\""),
            ("a dest without dashes", "\"\(o)\"", "\"\(d.replacingOccurrences(of: "-", with: ""))\""),
        ]
        let inputs = bad.map { what, origin, dest in
            (what, RawRelay.packet(.frame, header: Array("{\"dest\":\(dest),\"origin\":\(origin),\"seq\":\(s),\"ttl\":8}".utf8), body: message.body))
        }
        // 2. T1 writes each; 3. nothing is relayed and the DUT still relays.
        try survive(t, inputs)
    }

    static let bi06 = Check("ROB/BI-06", "a forged frame addressed to it is neither delivered nor acked, and does not pre-empt the genuine one",
                            dialects: [.relay], needs: [.relay, .acks, .links(2)], rules: ["RELAY-R4.1", "RELAY-W5", "RELAY-R12"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. The tester builds a genuine frame from a stranger to the DUT, and forgeries with
        //    the same header (same origin and seq) and a body that does not open: a broken
        //    tag, a body sealed by another stranger, a body too short for nonce and tag.
        let genuine = try t.message(MessageSpec(from: .stranger(1), to: .dut))
        guard case .relay(.frame(let header, let body)) = genuine.value else { throw TesterError("not a relay frame") }
        var broken = body
        broken[broken.count - 1] ^= 0x01
        let otherSealer = try t.message(MessageSpec(from: .stranger(4), to: .dut)).body
        let forgeries = [("a broken tag", broken), ("a body sealed by another node", otherSealer), ("a 20-byte body", Array(body.prefix(20)))]
        // 3. T1 writes each forgery: no ack, no delivery.
        for (what, forgedBody) in forgeries {
            try t.write(RelayPacket.frame(header, body: forgedBody).encoded(), from: 1, what: "forged frame with \(what)")
            let seen = try t.observe(for: t.parameters.answerPeriod)
            try t.expect(t.acks(of: genuine, in: seen).isEmpty, "acked a forged frame (\(what))", expected: "no ack", seen: t.summary(seen))
            try t.expect(try t.deliveries(of: genuine, in: seen).isEmpty && !seen.contains { if case .delivered = $0.kind { true } else { false } },
                         "delivered a forged frame (\(what))", expected: "no delivery", seen: t.summary(seen))
        }
        // 4. T1 sends the genuine frame: it is acked and (with an upper tester) delivered, as
        //    the forgeries left no cache entry.
        try t.send(genuine, from: 1)
        let seen = try t.observe(for: t.parameters.answerPeriod)
        try t.expect(t.acks(of: genuine, in: seen).contains { $0.link == LinkID(1) }, "the genuine frame was not acked after the forgeries",
                     expected: "ack \(genuine.ackID) on L1", seen: t.summary(seen))
        if t.capabilities.upperTester {
            try t.expect(try t.deliveries(of: genuine, in: seen).count == 1, "the genuine frame was not delivered after the forgeries",
                         expected: "one delivery", seen: t.summary(seen))
        }
        // 5. The DUT still relays.
        try t.expectStillRelaying(after: "forged frames")
    }

    static let bi07 = Check("ROB/BI-07", "survives a burst of seeded random garbage and mutated units",
                            needs: [.relay, .links(2)], rules: ["RELAY-R12", "BLEMESH-R19", "PEAT-R7", "BITCHAT-R11", "SIMPLE-R10"]) { t in
        var rng = SeededRandom(seed: t.seed)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. T1 writes 64 inputs from the check's seed: half random bytes of random length,
        //    half valid units with a few bytes flipped, dropped or inserted, the first of them
        //    cut in half so that every seed holds a truncated unit. Some may decode and be
        //    relayed; that is allowed.
        let base = try t.message(MessageSpec(from: .stranger(3), to: t.probe.relayedDestination))
        let units = t.probe.units(of: base, via: 1)
        guard !units.isEmpty else { throw TesterError("no unit to mutate") }
        for n in 0..<64 {
            var bytes: [UInt8]
            if n % 2 == 0 {
                bytes = (0..<Int.random(in: 1...(t.parameters.maxUnit + 88), using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else if n == 1 {
                bytes = Array(units[0].prefix(max(1, units[0].count / 2)))
            } else {
                bytes = units[Int.random(in: 0..<units.count, using: &rng)]
                for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                    let at = Int.random(in: 0..<bytes.count, using: &rng)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: bytes[at] ^= UInt8.random(in: 1...255, using: &rng)
                    case 1: bytes.remove(at: at)
                    default: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                    }
                }
                if bytes.isEmpty { bytes = [0] }
            }
            try t.write(bytes, from: 1, what: "garbage #\(n + 1) (seed \(t.seed)): \(t.probe.describe(bytes))")
            if n % 16 == 15 { _ = try t.observe(for: t.parameters.quietPeriod) }
        }
        _ = try t.observe(for: t.parameters.quietPeriod)
        // 3. The DUT still relays a valid message.
        try t.expectStillRelaying(after: "64 garbage inputs")
    }

    static let bi08 = Check("ROB/BI-08", "refuses malformed acks (wrong length, trailing bytes): not passed back, and survives them",
                            dialects: [.relay], needs: [.relay, .links(2)], rules: ["RELAY-W3", "RELAY-R7.2", "RELAY-R12"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. T1 sends a frame for a stranger; the DUT relays it to T2, so an ack naming its
        //    seq would be routable back to L1.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        try t.send(sent, from: 1)
        let first = try t.observe(for: t.parameters.quietPeriod) { !t.copies(of: sent, in: $0).isEmpty }
        try t.require(!t.copies(of: sent, in: first).isEmpty, "the frame was not relayed, so no ack for it is routable",
                      judgedBy: "RLY/BV-01", seen: t.summary(first))
        // 3. T2 writes malformed acks naming that seq: a trailing byte (the app accepts it),
        //    a 7- and a 9-byte header, a headerLen of 8 over 4 bytes.
        let id = RelayAck(seq: sent.sequence).encoded()
        let inputs: [(String, [UInt8])] = [
            ("an ack with a trailing byte", RawRelay.packet(.ack, header: id, body: [0x00])),
            ("an ack with a 7-byte header", RawRelay.packet(.ack, header: Array(id.prefix(7)))),
            ("an ack with a 9-byte header", RawRelay.packet(.ack, header: id + [0x00])),
            ("an ack cut inside its header", Array(RawRelay.packet(.ack, header: id).prefix(7))),
        ]
        for (what, bytes) in inputs {
            try t.write(bytes, from: 2, what: "\(what): \(t.probe.describe(bytes))")
            let seen = try t.observe(for: t.parameters.answerPeriod)
            // 4. No ack goes out on L1 (or anywhere).
            try t.expect(t.anyAcks(in: seen).isEmpty, "passed on \(what)", expected: "the ack refused: nothing sent", seen: t.summary(seen))
        }
        // 5. The DUT still relays.
        try t.expectStillRelaying(after: "malformed acks")
    }

    static let bi09 = Check("ROB/BI-09", "refuses a beacon sent with the frame type 0x46 (as the app does), and survives it",
                            dialects: [.relay], needs: [.relay, .links(2)], rules: ["RELAY-W4", "RELAY-R12"]) { t in
        let relay = try t.probe(RelayProbe.self)
        // 1. The tester builds a beacon from a stranger and gives it the frame type byte.
        var beacon = relay.beacon(from: .stranger(1), seqNo: 1)
        beacon[0] = RelayPacket.Kind.frame.rawValue
        // 2. T1 writes it; 3. nothing is relayed (no frame, no beacon) and the DUT still relays.
        try survive(t, [("a beacon typed 0x46", beacon)], nothingRebroadcast: relay.beaconOrigin(.stranger(1)))
    }

    static let bi10 = Check("ROB/BI-10", "a frame addressed to it from an origin whose key it lacks is dropped: no ack, no delivery",
                            dialects: [.relay], needs: [.relay, .acks, .links(2)], rules: ["RELAY-R4.1", "RELAY-R12"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. T1 sends a frame addressed to the DUT from an origin no one introduced, with a
        //    body shaped like a sealed one (nonce, 16 bytes, tag).
        // (Both the origin and the seq are this check's alone: a DUT that kept this frame from
        // an earlier run would drop it as a duplicate, and the check would prove nothing.)
        let relay = try t.probe(RelayProbe.self)
        let stranger = relay.beaconOrigin(.stranger(9))
        let dut = try t.dutAddress().uuid!
        let seq = relay.freshSeq()
        let body = (0..<(12 + 16 + 16)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let bytes = RelayPacket.frame(FrameHeader(origin: stranger, dest: dut, ttl: 8, seq: seq), body: body).encoded()
        try t.write(bytes, from: 1, what: "frame from an unknown origin to the DUT")
        // 3. No ack and no delivery.
        let seen = try t.observe(for: t.parameters.answerPeriod)
        try t.expect(t.anyAcks(in: seen).isEmpty, "acked a frame it cannot open", expected: "no ack", seen: t.summary(seen))
        try t.expect(!seen.contains { if case .delivered = $0.kind { true } else { false } }, "delivered a frame it cannot open",
                     expected: "no delivery", seen: t.summary(seen))
        // 4. The DUT still relays.
        try t.expectStillRelaying(after: "a frame from an unknown origin")
    }

    // MARK: helpers

    /// A valid frame for a stranger, as bytes.
    private static func validFrame(_ t: CheckContext) throws -> [UInt8] {
        let message = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        guard let unit = t.probe.units(of: message, via: 1).first else { throw TesterError("no unit for a frame") }
        return unit
    }

    /// Links two testers; then for each input: T1 writes it, nothing comes of it (no message
    /// relayed; no beacon from `nothingRebroadcast`), and a fresh valid message is still relayed.
    static func survive(_ t: CheckContext, _ inputs: [(String, [UInt8])], nothingRelayed: Bool = true,
                                nothingRebroadcast beaconOrigin: UUID? = nil) throws {
        try t.connect(2)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        for (what, bytes) in inputs {
            try t.write(bytes, from: 1, what: "\(what): \(t.probe.describe(bytes))")
            let seen = try t.observe(for: t.parameters.quietPeriod)
            if nothingRelayed {
                try t.expect(t.relays(in: seen).isEmpty, "relayed something after \(what)",
                             expected: "the input refused: nothing relayed", seen: t.summary(seen))
            }
            if let beaconOrigin {
                try t.expect(!t.beacons(in: seen).contains { $0.beacon.origin == beaconOrigin }, "rebroadcast \(what)",
                             expected: "the input refused: nothing rebroadcast", seen: t.summary(seen))
            }
            try t.expectStillRelaying(after: what)
        }
    }
}

/// Hand-made relay packets, for inputs the codec would never write.
enum RawRelay {
    static func packet(_ kind: RelayPacket.Kind, header: [UInt8], body: [UInt8] = []) -> [UInt8] {
        packet(type: kind.rawValue, headerLength: header.count, header: header, body: body)
    }

    /// `type | headerLength (u16 BE) | header | body`, with a length that may lie.
    static func packet(type: UInt8, headerLength: Int, header: [UInt8], body: [UInt8]) -> [UInt8] {
        [type, UInt8(truncatingIfNeeded: headerLength >> 8), UInt8(truncatingIfNeeded: headerLength)] + header + body
    }
}
