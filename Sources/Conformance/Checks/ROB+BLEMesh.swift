import Foundation
import MeshNode
import MeshWire

/// ROB checks for blemesh's own formats (BLEMESH-W1 to W5, R19): the relay-only ROB checks
/// test relay's binary packets; these test chunks, envelopes and control payloads. As in ROB,
/// every bad input is followed by a liveness probe.
extension ROB {
    static let blemeshChecks = [bi11, bi12, bi13, bi14]

    /// For each input: T1 writes its units; nothing that could be a copy of `message` is
    /// relayed; the DUT still relays a fresh message.
    private static func surviveSets(_ t: CheckContext, _ inputs: [(what: String, message: ProbeMessage, units: [[UInt8]])]) throws {
        try t.connect(2)
        _ = try t.observe(for: t.parameters.answerPeriod)   // link-up ANNOUNCEs
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        for input in inputs {
            for unit in input.units { try t.write(unit, from: 1, what: "\(input.what): \(t.probe.describe(unit))") }
            let seen = try t.observe(for: t.parameters.quietPeriod)
            try t.expect(t.copies(of: input.message, in: seen).isEmpty && t.malformed(in: seen).isEmpty,
                         "relayed something after \(input.what)", expected: "the input refused: nothing relayed", seen: t.summary(seen))
            try t.expectStillRelaying(after: input.what)
        }
    }

    /// `chunk` as JSON text with some members replaced (nil: as encoded), for chunks the codec
    /// would never write. Keys in canonical order, `/` escaped as the app does.
    static func chunkText(_ c: MessageChunk, index: String? = nil, flags: String? = nil, messageID: String? = nil,
                          payload: String? = nil, total: String? = nil, extra: String = "") -> [UInt8] {
        let base64 = "\"" + Data(c.payload).base64EncodedString().replacingOccurrences(of: "/", with: "\\/") + "\""
        let members = [("chunkIndex", index ?? "\(c.chunkIndex)"), ("flags", flags ?? "\(c.flags.rawValue)"),
                       ("messageID", messageID ?? "\"\(c.messageID.uuidString)\""), ("payload", payload ?? base64),
                       ("totalChunks", total ?? "\(c.totalChunks)")]
        return Array(("{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + extra + "}").utf8)
    }

    static let bi11 = Check("ROB/BI-11", "refuses a unit over 512 bytes: a raw envelope (as the app writes its control) or an over-long chunk",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-W1", "BLEMESH-R3", "BLEMESH-R4", "BLEMESH-R19"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. The tester builds two broadcasts from S1: one written as its raw envelope JSON
        //    (over 512 bytes: app bug 1's unchunked writes), one as a single chunk carrying the
        //    whole envelope (a chunk of over 512 bytes).
        let raw = try t.message(MessageSpec(from: .stranger(1), to: nil, payload: Array(repeating: 0x72, count: 300)))
        let rawUnit = probe.envelope(of: raw, via: 1).encoded()
        let whole = try t.message(MessageSpec(from: .stranger(1), to: nil))
        let single = probe.chunks(of: whole, via: 1, pieceSize: 1 << 16)[0].encoded()
        guard rawUnit.count > t.parameters.maxUnit, single.count > t.parameters.maxUnit else {
            throw TesterError("the over-long units came out at most \(t.parameters.maxUnit) bytes")
        }
        // 2. T1 writes each; 3. neither is relayed, and the DUT still relays.
        try surviveSets(t, [("a raw \(rawUnit.count)-byte envelope", raw, [rawUnit]),
                            ("a single \(single.count)-byte chunk", whole, [single])])
    }

    static let bi12 = Check("ROB/BI-12", "refuses a chunk that is not valid (not JSON, wrong shape or types, bad UUID or base64, flags 256)",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-W1", "BLEMESH-W5", "BLEMESH-R4", "BLEMESH-R19"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. For each fault the tester takes a fresh broadcast's chunk set and breaks its last
        //    chunk: were the broken chunk taken, the set would complete and be relayed.
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let faults: [(String, (MessageChunk) -> [UInt8])] = [
            ("a last chunk that is not JSON", { _ in Array("meshconform: not json".utf8) }),
            ("a last chunk that is not UTF-8", { _ in [0x7B, 0xFF, 0xFE, 0x7D] }),
            ("a last chunk that is a JSON array", { _ in Array("[1,2,3]".utf8) }),
            ("a last chunk without payload", { c in Array(String(decoding: chunkText(c), as: UTF8.self).replacingOccurrences(of: #","payload":"[^"]*""#, with: "", options: .regularExpression).utf8) }),
            ("a last chunk whose messageID is not a UUID", { c in chunkText(c, messageID: "\"not-a-uuid\"") }),
            ("a last chunk whose payload is not base64", { c in chunkText(c, payload: "\"meshconform!\"") }),
            ("a last chunk whose chunkIndex is text", { c in chunkText(c, index: "\"\(c.chunkIndex)\"") }),
            ("a last chunk with chunkIndex 1.5", { c in chunkText(c, index: "\(c.chunkIndex).5") }),
            ("a last chunk with flags 256", { c in chunkText(c, flags: "256") }),
            ("a last chunk with a key twice", { c in chunkText(c, extra: ",\"flags\":2") }),
            ("a last chunk nested 40 deep", { c in chunkText(c, extra: ",\"x\":\(deep)") }),
        ]
        var inputs: [(what: String, message: ProbeMessage, units: [[UInt8]])] = []
        for (what, breakChunk) in faults {
            let message = try t.message(MessageSpec(from: .stranger(1), to: nil))
            let chunks = probe.chunks(of: message, via: 1)
            inputs.append((what, message, chunks.dropLast().map { $0.encoded() } + [breakChunk(chunks[chunks.count - 1])]))
        }
        // 2. T1 writes each set; 3. none completes into a relay, and the DUT still relays.
        try surviveSets(t, inputs)
    }

    static let bi13 = Check("ROB/BI-13", "refuses a chunk set that completes into an invalid envelope (ttl 256, fractional date, bad hop path ...)",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-W2", "BLEMESH-W5", "BLEMESH-R4", "BLEMESH-R19"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. For each fault the tester takes a fresh broadcast's envelope JSON, changes one
        //    member, and chunks the result under the envelope's id.
        let tester = probe.id(.tester(1)).uuidString
        let date = ISO8601Seconds.format(BLEMeshProbe.timestamp)
        let faults: [(String, (String, UInt64) -> String)] = [
            ("an envelope with ttl 256", { e, _ in e.replacingOccurrences(of: "\"ttl\":3", with: "\"ttl\":256") }),
            ("an envelope with a fractional timestamp", { e, _ in e.replacingOccurrences(of: "\"\(date)\"", with: "\"\(date.dropLast()).5Z\"") }),
            ("an envelope whose hop path holds no UUID", { e, _ in e.replacingOccurrences(of: "\"\(tester)\"", with: "\"not-a-uuid\"") }),
            ("an envelope with isGroupMessage null", { e, _ in e.replacingOccurrences(of: "\"isGroupMessage\":false", with: "\"isGroupMessage\":null") }),
            ("an envelope with sequenceNumber 2^64", { e, seq in e.replacingOccurrences(of: "\"sequenceNumber\":\(seq)", with: "\"sequenceNumber\":18446744073709551616") }),
            ("an envelope with bytes after its JSON", { e, _ in e + "x" }),
        ]
        var inputs: [(what: String, message: ProbeMessage, units: [[UInt8]])] = []
        for (what, change) in faults {
            let message = try t.message(MessageSpec(from: .stranger(1), to: nil))
            let envelope = probe.envelope(of: message, via: 1)
            let good = String(decoding: envelope.encoded(), as: UTF8.self)
            let bad = change(good, envelope.sequenceNumber)
            guard bad != good else { throw TesterError("\(what): the change did not apply to \(good)") }
            let units = BLEMeshProbe.split(Array(bad.utf8), messageID: envelope.id, pieceSize: Chunker.payloadPerChunk).map { $0.encoded() }
            inputs.append((what, message, units))
        }
        // 2. T1 writes each set; 3. none is relayed, and the DUT still relays.
        try surviveSets(t, inputs)
    }

    static let bi14 = Check("ROB/BI-14", "drops a control envelope it cannot read (unknown type GKD, bad inner message), and goes on",
                            dialects: [.blemesh], needs: [.relay, .links(2)], rules: ["BLEMESH-W3", "BLEMESH-W4", "BLEMESH-R6.3", "BLEMESH-R19"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. The tester builds control envelopes from T1 whose payload cannot be handled: the
        //    older app's GKD type, an ANNOUNCE whose inner message is not JSON, an RREQ with
        //    hopCount 300, and a payload that is not a control message at all.
        func controlEnvelope(_ payload: String) -> ProbeMessage {
            var e = probe.envelope(of: probe.control(.peerAnnounce(probe.announce(of: .tester(1))), from: .tester(1), ttl: 2))
            e.payload = Array(payload.utf8)
            return BLEMeshProbe.probeMessage(e)
        }
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        var rreq = String(decoding: probe.routeRequest(from: .tester(1), for: .stranger(2)).encoded(), as: UTF8.self)
        rreq = rreq.replacingOccurrences(of: "\"hopCount\":0", with: "\"hopCount\":300")
        let bad: [(String, ProbeMessage)] = [
            ("a control envelope of type GKD", controlEnvelope("{\"payload\":\"\(base64("{}"))\",\"type\":\"GKD\"}")),
            ("an ANNOUNCE whose inner message is not JSON", controlEnvelope("{\"payload\":\"\(base64("meshconform"))\",\"type\":\"ANNOUNCE\"}")),
            ("an RREQ with hopCount 300", controlEnvelope("{\"payload\":\"\(base64(rreq))\",\"type\":\"RREQ\"}")),
            ("a control envelope whose payload is plain text", controlEnvelope("meshconform")),
        ]
        // 2. T1 writes each; 3. the DUT relays none of them, and still relays a fresh message.
        try surviveSets(t, bad.map { ($0.0, $0.1, probe.units(of: $0.1, via: 1)) })
    }
}
