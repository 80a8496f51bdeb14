import MeshFuzz
import MeshWire

/// Decoders with one planted bug each: the fuzzer's proof (docs/fuzzing.md). Linked only into
/// the planted-bugs worker and the tests. Each is otherwise a careful decoder with distinct
/// errors per check, so the engine's feedback can climb toward the bug as it would in a real
/// decoder. The budgets are the executions within which `PlantedBugTests` requires the find.
public enum PlantedBugs {
    public static let all: [FuzzTarget] = [lengthTrap, markerHang, lengthAllocation] + deep
    /// Bugs behind structure, found only by an engine that climbs toward them (issue 16): each
    /// refuses most of its search space with one vague error, as app code returning nil does,
    /// so the refusal's words do not lead the way; edges do.
    public static let deep: [FuzzTarget] = [jsonBatch, checksumSeek, closedChannel]

    /// Seeds for each, as `meshconform fuzz` takes them from the vectors: valid inputs that do
    /// not trigger the bug.
    public static let seeds: [String: [[UInt8]]] = [
        "planted.length-trap": [Array("PL".utf8) + [1, 0, 3] + Array("abc".utf8), Array("hello".utf8)],
        "planted.marker-hang": [[0x48, 0x01, 0x02, 0xAA, 0xBB, 0x02, 0x01, 0xCC]],
        "planted.length-allocation": [[0x41, 0x00, 0x00, 0x00, 0x02, 0x10, 0x20]],
        "planted.json-batch": [Array(#"{"type":"batch","items":[{"op":"set","count":3},{"op":"add","count":12},{"op":"repeat","count":2}]}"#.utf8)],
        // 'K', 1, length 3, payload 01 05 06 (echo); 'K', 1, length 4, payload 02 00 41 42 (seek 0); FNV-1a sums.
        "planted.checksum-seek": [[0x4B, 0x01, 0x03, 0x01, 0x05, 0x06, 0x57, 0xD8, 0xC2, 0x9B], [0x4B, 0x01, 0x04, 0x02, 0x00, 0x41, 0x42, 0x28, 0x2B, 0x8A, 0x04]],
        // open 1, write 1 "hi"; open 2, close 2.
        "planted.closed-channel": [[0x4F, 0x01, 0x01, 0x57, 0x03, 0x01, 0x68, 0x69], [0x4F, 0x01, 0x02, 0x43, 0x01, 0x02]],
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

    /// Behind a valid JSON structure: `{"type":"batch","items":[{"op":..,"count":N},...]}`. An
    /// item with `"op":"repeat"` narrows its count to 16 bits unchecked (a trap past 65535).
    /// Everything that is valid JSON but not such a batch is the one refusal "not a batch".
    public static let jsonBatch = FuzzTarget(id: "planted.json-batch", summary: "JSON batch whose repeat count is narrowed to UInt16",
                                             decode: { bytes throws(WireError) in
        let value = try JSONParser.parse(bytes[...])
        let notBatch = WireError(.wrongType, "not a batch")
        guard case .object(let message) = value, case .string("batch")? = message["type"],
              case .array(let items)? = message["items"], !items.isEmpty else { throw notBatch }
        var total = 0
        for item in items {
            guard case .object(let fields) = item, case .string(let op)? = fields["op"],
                  case .number(let text)? = fields["count"], let count = Int(text), count >= 0 else { throw notBatch }
            switch op {
            case "set": total = count
            case "add": total += min(count, 1000)
            case "repeat": total *= Int(UInt16(count))       // planted: traps past 65535
            default: throw notBatch
            }
        }
        return .object([("total", .integer(total))])
    }, encode: nil)

    /// A checksum-like relation between two fields: 'K', version 1, u8 length, payload, then
    /// the payload's 32-bit FNV-1a hash, little-endian. Behind a correct hash, command 2
    /// ("seek") reads the payload at 2 + its offset byte unchecked. A wrong hash is the one
    /// refusal "bad frame", whatever else is wrong: blind mutation of the payload almost never
    /// keeps the relation; an engine that sees the comparison's operands can.
    public static let checksumSeek = FuzzTarget(id: "planted.checksum-seek", summary: "seek offset trusted once the checksum holds",
                                                decode: { bytes throws(WireError) in
        let bad = WireError(.valueOutOfRange, "bad frame")
        guard bytes.count >= 5, bytes[0] == UInt8(ascii: "K"), bytes[1] == 1 else { throw bad }
        let length = Int(bytes[2])
        guard length >= 1, bytes.count == 3 + length + 4 else { throw bad }
        let payload = bytes[3..<(3 + length)]
        var hash: UInt32 = 0x811C_9DC5
        for byte in payload { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let stored = bytes[(3 + length)...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard hash == stored else { throw bad }
        switch payload[3] {
        case 1: return .object([("echo", .integer(length - 1))])
        case 2 where length >= 2:
            let offset = Int(payload[4])
            return .object([("seek", .integer(payload[5 + offset]))])   // planted: offset unchecked
        default: throw bad
        }
    }, encode: nil)

    /// A state reached by two inputs: a stream of records (type, u8 length, body): 'O' opens
    /// channel c, 'W' writes to an open channel, 'C' closes one. Closing removes the channel's
    /// buffer but does not shift the other channels' indices: a write to a channel opened after
    /// the closed one reaches past the buffers (open a, open b, close a, write b).
    public static let closedChannel = FuzzTarget(id: "planted.closed-channel", summary: "stale buffer index after an earlier channel closed",
                                                 decode: { bytes throws(WireError) in
        var buffers: [[UInt8]] = []
        var slot: [UInt8: Int] = [:]
        var i = 0, records = 0
        while i < bytes.count {
            guard i + 2 <= bytes.count, bytes[i + 1] >= 1, i + 2 + Int(bytes[i + 1]) <= bytes.count else { throw WireError(.truncated, "record") }
            let body = bytes[(i + 2)..<(i + 2 + Int(bytes[i + 1]))]
            let channel = body[body.startIndex]
            switch bytes[i] {
            case UInt8(ascii: "O"):
                guard slot[channel] == nil, buffers.count < 8 else { throw WireError(.valueOutOfRange, "channel") }
                slot[channel] = buffers.count
                buffers.append([])
            case UInt8(ascii: "W"):
                guard let index = slot[channel] else { throw WireError(.valueOutOfRange, "channel") }
                buffers[index].append(contentsOf: body.dropFirst())       // planted: index may be stale
            case UInt8(ascii: "C"):
                guard let index = slot[channel] else { throw WireError(.valueOutOfRange, "channel") }
                slot[channel] = nil
                buffers.remove(at: index)                                 // planted: later channels keep their old index
            default: throw WireError(.unknownType, "record type")
            }
            i += 2 + body.count
            records += 1
        }
        return .object([("records", .integer(records)), ("bytes", .integer(buffers.reduce(0) { $0 + $1.count }))])
    }, encode: nil)
}
