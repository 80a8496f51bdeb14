import MeshNode
import MeshWire

/// ROB for peat: values every peat decoder must refuse (PEAT-W1 to W7), each followed by the
/// liveness probe (PEAT-R7).
extension ROB {
    static let peatChecks = [bi20]

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
            ("a key exchange with an all-zero (low-order) public key", [PeatWire.keyExchangeMarker] + bytes(s1) + [0] + [UInt8](repeating: 0, count: 32)),
        ]
        // 2. T1 writes each; 3. nothing is relayed and the DUT still relays a valid envelope.
        try survive(t, inputs)
    }

    private static func bytes(_ id: UInt32) -> [UInt8] { NodeAddress(peatNode: id).bytes }
}
