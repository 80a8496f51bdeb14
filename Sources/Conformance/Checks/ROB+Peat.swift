import MeshNode
import MeshWire

/// ROB for peat: values every peat decoder must refuse (PEAT-W1 to W7), each followed by the
/// liveness probe (PEAT-R7).
extension ROB {
    static let peatChecks = [bi20, bi21]

    static let bi20 = Check("ROB/BI-20", "refuses malformed peat values (a 22-byte 0xAF, envelope lengths, flags, hops and origins, oversize counts, a low-order key) and survives them",
                            dialects: [.peat], needs: [.relay, .links(2)], rules: ["PEAT-W1", "PEAT-W2", "PEAT-W5", "PEAT-W7", "PEAT-R7"]) { t in
        let probe = try t.probe(PeatProbe.self)
        // 1. The tester builds a valid envelope from S1 and breaks it, and other values, one
        //    rule at a time.
        let good = try t.message(MessageSpec(from: .stranger(1), to: nil))
        guard let unit = probe.units(of: good, via: 1).first else { throw TesterError("no envelope") }
        func patched(_ offset: Int, _ byte: UInt8) -> [UInt8] {
            var b = unit
            b[offset] = byte
            return b
        }
        var longer = unit
        longer[24] &+= 1   // payload_len one past the end
        let s1 = probe.node(.stranger(1))
        let inputs: [(String, [UInt8])] = [
            ("a 22-byte 0xAF value (the other crate's canned message, PEAT-W1)", [0xAF] + [UInt8](repeating: 0x41, count: 21)),
            ("an envelope whose payload_len runs past the end", longer),
            ("an envelope with a byte after its payload", unit + [0x00]),
            ("an envelope with undefined flag bits", patched(1, 0x06)),
            ("an envelope at hop 8 of max_hops 7", patched(18, 8)),
            ("an envelope from origin 0", unit[0..<20] + [0, 0, 0, 0] + unit[24...]),
            ("a document claiming 257 counter entries", [1, 0, 0, 0] + bytes(s1) + [0x01, 0x01, 0, 0]),
            ("a document cut inside its first counter", [1, 0, 0, 0] + bytes(s1) + [1, 0, 0, 0, 7, 0]),
            ("a key exchange with an all-zero (low-order) public key", PeatKeyExchange(sender: s1, ephemeral: false, publicKey: [UInt8](repeating: 0, count: 32)).encoded()),
        ]
        // 2. T1 writes each; 3. nothing is relayed and the DUT still relays a valid envelope.
        try survive(t, inputs)
    }

    static let bi21 = Check("ROB/BI-21", "merges nothing of a document it must refuse (a section past the end, a counter entry for node 0, out of order or repeated)",
                            dialects: [.peat], needs: [.links(1)], rules: ["PEAT-W2", "PEAT-R7", "PEAT-R5"]) { t in
        let probe = try t.probe(PeatProbe.self)
        // A merge shows in the DUT's own document: written at once after a change (PEAT-R5) and
        // at least every period anyway (PEAT-R2).
        let wait = (t.parameters.beaconPeriod ?? .seconds(2)) + t.parameters.responseWindow
        /// A document of T1 with `entries` as its counter, then `tail`.
        func document(_ entries: [(UInt32, UInt64)], tail: [UInt8] = []) -> [UInt8] {
            var w = ByteWriter(capacity: 64)
            w.writeU32LE(1)
            w.writeU32LE(probe.node(.tester(1)))
            w.writeU32LE(UInt32(entries.count))
            for (node, count) in entries {
                w.writeU32LE(node)
                w.writeU64LE(count)
            }
            w.write(tail)
            return w.bytes
        }
        /// The nodes of `nodes` that a document the DUT wrote in `seen` counts.
        func merged(_ nodes: [UInt32], in seen: [Observation]) -> [UInt32] {
            let counted = Set(seen.flatMap { o -> [UInt32] in
                guard case .state(.peatDocument(let d))? = o.packet else { return [] }
                return d.counters.map(\.node)
            })
            return nodes.filter(counted.contains)
        }
        let x = (11...16).map { probe.node(.stranger($0)) }
        let inputs: [(String, [UInt8], [UInt32])] = [
            ("a peripheral section whose data runs past the end (peat-btle stops there, keeping the counter)",
             document([(x[0], 5)], tail: [PeatWire.peripheralMarker, 0, 40, 0] + [UInt8](repeating: 0x41, count: 10)), [x[0]]),
            ("a section header cut short", document([(x[1], 5)], tail: [PeatWire.emergencyMarker, 0]), [x[1]]),
            ("a counter entry for node 0 before a valid one (peat-btle skips it)", document([(0, 5), (x[2], 5)]), [x[2]]),
            ("counter entries out of order (peat-btle ignores the order)", document([(x[4], 5), (x[3], 5)]), [x[3], x[4]]),
            ("one node twice in the counter (peat-btle lets the later win)", document([(x[5], 5), (x[5], 7)]), [x[5]]),
        ]
        // 1. One tester links to the DUT.
        try t.connect(1)
        for (what, bytes, nodes) in inputs {
            // 2. T1 writes a document PEAT-W2 refuses, counting a node nobody else counts.
            try t.write(bytes, from: 1, what: "\(what): \(probe.describe(bytes))")
            // 3. Over the next period the DUT's documents count none of its nodes (PEAT-R7: a
            //    refused value changes no state).
            let seen = try t.observe(for: wait)
            let taken = merged(nodes, in: seen)
            try t.expect(taken.isEmpty, "merged a document it must refuse: \(what)",
                         expected: "the document refused whole: no DUT document counts \(nodes.map(probe.name).joined(separator: ", "))",
                         seen: "the DUT's document counts \(taken.map(probe.name).joined(separator: ", ")): \(t.summary(seen))")
        }
        // 4. T1 writes a valid document counting another new node: the DUT merges it, so its
        //    documents show what it merges (else its refusals prove nothing).
        let control = probe.node(.stranger(17))
        try t.write(document([(control, 5)]), from: 1)
        let seen = try t.observe(for: wait)
        guard !merged([control], in: seen).isEmpty else {
            throw t.inconclusive("the DUT's documents did not count the node of a valid document within \(wait) (ACK/BV-20 and ACK/BV-21 judge merging): cannot tell a refusal from not merging")
        }
    }

    private static func bytes(_ id: UInt32) -> [UInt8] { NodeAddress(peatNode: id).bytes }
}
