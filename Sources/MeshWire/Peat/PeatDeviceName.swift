/// The BLE local name a peat node advertises: `PEAT_<meshId>-<nodeId as %08X>`, e.g.
/// `PEAT_DEMO-12345678`. Receivers take the mesh id from it before connecting (PEAT-G2), so it
/// is a wire format like any other: UTF-8 bytes, read both ways.
public struct PeatDeviceName: WireFormat, NeutralForm {
    public static let formatID: FormatID = "peat.device-name"
    public static let prefix = Array("PEAT_".utf8)
    /// A complete local name in a legacy advertisement: 31 bytes minus the AD length and type.
    public static let maxSize = 29
    public static let defaultMeshID = "DEMO"

    public var meshID: String
    public var nodeID: UInt32

    public init(meshID: String, nodeID: UInt32) {
        self.meshID = meshID
        self.nodeID = nodeID
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        guard bytes.count <= Self.maxSize else {
            throw WireError(.tooLarge, "device name is \(bytes.count) bytes, above \(Self.maxSize)")
        }
        guard bytes.starts(with: Self.prefix) else { throw WireError(.badName, "device name does not start with \"PEAT_\"") }
        let rest = bytes.dropFirst(Self.prefix.count)
        // The node id is always the last 9 bytes, so the split does not depend on the mesh id.
        guard rest.count >= 10 else { throw WireError(.badName, "device name has no room for <mesh>-<8 hex digits>") }
        let mesh = rest.dropLast(9), tail = rest.suffix(9)
        guard tail.first == UInt8(ascii: "-") else { throw WireError(.badName, "no '-' before the last 8 characters") }
        var id: UInt32 = 0
        for c in tail.dropFirst() {
            guard let d = Self.hexValue(c) else { throw WireError(.badName, "node id \"\(String(decoding: tail.dropFirst(), as: UTF8.self))\" is not 8 hex digits") }
            id = id << 4 | UInt32(d)
        }
        try Self.checkMesh(mesh)
        meshID = String(decoding: mesh, as: UTF8.self)
        nodeID = id
    }

    /// Mesh ids are letters and digits: `-` would move the split, `_` and the rest are not used by peat.
    static func checkMesh<C: Collection<UInt8>>(_ mesh: C) throws(WireError) {
        guard !mesh.isEmpty else { throw WireError(.badName, "empty mesh id") }
        for c in mesh where !((0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)) {
            throw WireError(.badName, "mesh id holds byte 0x\(String(c, radix: 16)); only A-Z a-z 0-9")
        }
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10   // accepted; written uppercase
        default: nil
        }
    }

    public func encoded() -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        let hex = (0..<8).reversed().map { digits[Int(nodeID >> (4 * UInt32($0)) & 0xF)] }
        return Self.prefix + Array(meshID.utf8) + [UInt8(ascii: "-")] + hex
    }

    public init(neutral: JSONValue) throws(WireError) {
        let f = try JSONFields(neutral, context: "DeviceName")
        self.init(meshID: try f.string("meshId"), nodeID: try f.peatNode("nodeId"))
        _ = try PeatDeviceName(decoding: encoded())
    }

    public var neutral: JSONValue { .object([("meshId", .string(meshID)), ("nodeId", .integer(nodeID))]) }
}
