import MeshFuzz
import MeshWire

/// Decoders with one planted bug each: the fuzzer's proof (docs/fuzzing.md). Linked only into
/// the planted-bugs worker and the tests. Each is otherwise a careful decoder with distinct
/// errors per check, so the engine's feedback can climb toward the bug as it would in a real
/// decoder. The budgets are the executions within which `PlantedBugTests` requires the find.
public enum PlantedBugs {
    public static let all: [FuzzTarget] = [lengthTrap, markerHang, lengthAllocation]

    /// Seeds for each, as `meshconform fuzz` takes them from the vectors: valid inputs that do
    /// not trigger the bug.
    public static let seeds: [String: [[UInt8]]] = [
        "planted.length-trap": [Array("PL".utf8) + [1, 0, 3] + Array("abc".utf8), Array("hello".utf8)],
        "planted.marker-hang": [[0x48, 0x01, 0x02, 0xAA, 0xBB, 0x02, 0x01, 0xCC]],
        "planted.length-allocation": [[0x41, 0x00, 0x00, 0x00, 0x02, 0x10, 0x20]],
    ]

    /// "PL", version 1, u16 BE length, payload: the last payload byte is read at the position
    /// the length field says, unchecked. Three comparisons guard it.
    public static let lengthTrap = FuzzTarget(id: "planted.length-trap", summary: "trusts a u16 length: index out of range",
                                              decode: { bytes throws(WireError) in
        guard bytes.count >= 5 else { throw WireError(.truncated, "header") }
        guard bytes[0] == UInt8(ascii: "P") else { throw WireError(.unknownType, "first magic byte") }
        guard bytes[1] == UInt8(ascii: "L") else { throw WireError(.unknownType, "second magic byte") }
        guard bytes[2] == 1 else { throw WireError(.unknownType, "version") }
        let length = Int(bytes[3]) << 8 | Int(bytes[4])
        guard length > 0 else { throw WireError(.lengthMismatch, "empty payload") }
        let last = bytes[5 + length - 1]          // planted: no check that the payload is there
        return .object([("length", .integer(length)), ("last", .integer(last))])
    }, encode: nil)

    /// 'H', then TLVs of type u8, length u8: a TLV of length zero never advances the cursor.
    public static let markerHang = FuzzTarget(id: "planted.marker-hang", summary: "TLV walk that spins on a zero length",
                                              decode: { bytes throws(WireError) in
        guard let marker = bytes.first else { throw WireError(.truncated, "empty") }
        guard marker == UInt8(ascii: "H") else { throw WireError(.unknownType, "marker") }
        var i = 1, count = 0
        while i + 1 < bytes.count {
            let length = Int(bytes[i + 1])
            guard i + 2 + length <= bytes.count + 2 else { throw WireError(.lengthMismatch, "TLV past the end") }
            i += length                           // planted: should be 2 + length
            count += 1
        }
        return .object([("tlvs", .integer(count))])
    }, encode: nil)

    /// 'A', u32 BE count, then that many bytes: the buffer is reserved from the count before a
    /// single byte of it has been seen.
    public static let lengthAllocation = FuzzTarget(id: "planted.length-allocation", summary: "reserves a u32 length up front",
                                                    decode: { bytes throws(WireError) in
        guard bytes.count >= 5 else { throw WireError(.truncated, "header") }
        guard bytes[0] == UInt8(ascii: "A") else { throw WireError(.unknownType, "marker") }
        let count = Int(bytes[1]) << 24 | Int(bytes[2]) << 16 | Int(bytes[3]) << 8 | Int(bytes[4])
        var payload: [UInt8] = []
        payload.reserveCapacity(count)           // planted: allocation sized by the input
        guard bytes.count - 5 >= count else { throw WireError(.truncated, "payload") }
        payload.append(contentsOf: bytes[5..<(5 + count)])
        return .object([("payload", .string(Hex.encode(payload)))])
    }, encode: nil)
}
