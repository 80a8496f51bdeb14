import MeshWire

/// peat names nodes by a u32 (PEAT-R1). On the node interface that id is a 4-byte address,
/// little-endian as on the wire, so an address and the id it stands for convert both ways.
extension NodeAddress {
    public init(peatNode id: UInt32) {
        self.init(bytes: [UInt8(truncatingIfNeeded: id), UInt8(truncatingIfNeeded: id >> 8),
                          UInt8(truncatingIfNeeded: id >> 16), UInt8(truncatingIfNeeded: id >> 24)])
    }

    /// The u32 this address stands for: its own 4 bytes, or (for the 16-byte addresses the
    /// simulator and the other dialects hand out) `PeatWire.digest32` of them. Never 0,
    /// which peat reserves for "no node".
    public var peatNode: UInt32 {
        if bytes.count == 4 {
            let id = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
            if id != 0 { return id }
        }
        let hash = PeatWire.digest32(bytes)
        return hash == 0 ? 1 : hash
    }
}
