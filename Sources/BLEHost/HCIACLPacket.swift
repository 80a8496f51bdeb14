/// Packet boundary flag of an ACL packet (Core Vol 4 Part E 5.4.2).
public enum PacketBoundary: UInt8, Hashable, Sendable {
    /// Host to controller: first fragment of a non-flushable L2CAP PDU (what LE hosts send).
    case firstNonFlushable = 0b00
    case continuation = 0b01
    /// Controller to host on LE: first fragment.
    case firstFlushable = 0b10
    /// Complete, automatically flushable (BR/EDR loopback only); kept so such packets round-trip.
    case completeFlushable = 0b11

    public var isStart: Bool { self != .continuation }
}

/// An HCI ACL data packet (without the H4 indicator): handle (12 bits) + PB (2) + BC (2), length u16, data.
public struct HCIACLPacket: Hashable, Sendable {
    public var handle: UInt16
    public var boundary: PacketBoundary
    /// Broadcast flag; 0 on LE. 0b11 is reserved and refused.
    public var broadcast: UInt8
    public var data: [UInt8]

    public init(handle: UInt16, boundary: PacketBoundary, broadcast: UInt8 = 0, data: [UInt8]) {
        self.handle = handle; self.boundary = boundary; self.broadcast = broadcast; self.data = data
    }

    /// `truncated`, `lengthMismatch` (bytes after the data), `badHandle` (above 0x0EFF), `reservedBits` (BC 0b11).
    public init(decoding bytes: ArraySlice<UInt8>) throws(HostWireError) {
        var r = HostReader(bytes)
        let word = try r.readU16()
        let length = Int(try r.readU16())
        handle = word & 0x0FFF
        guard handle <= 0x0EFF else { throw HostWireError(.badHandle, "ACL handle 0x\(String(handle, radix: 16))") }
        boundary = PacketBoundary(rawValue: UInt8(word >> 12 & 0x3))!
        broadcast = UInt8(word >> 14)
        guard broadcast != 0b11 else { throw HostWireError(.reservedBits, "ACL broadcast flag 0b11 is reserved") }
        guard r.remaining >= length else { throw .truncated(need: length, have: r.remaining, at: r.offset) }
        guard r.remaining == length else { throw HostWireError(.lengthMismatch, "ACL length \(length), \(r.remaining) byte(s) follow") }
        data = Array(r.readRest())
    }

    public init(decoding bytes: [UInt8]) throws(HostWireError) { try self.init(decoding: bytes[...]) }

    public func encoded() -> [UInt8] {
        var w = HostWriter(capacity: 4 + data.count)
        w.writeU16(handle & 0x0FFF | UInt16(boundary.rawValue) << 12 | UInt16(broadcast & 0x3) << 14)
        let d = data.prefix(0xFFFF)
        w.writeU16(UInt16(d.count)); w.write(d)
        return w.bytes
    }

    public var h4: H4Packet { .acl(encoded()) }
}
