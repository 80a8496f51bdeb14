/// One packet of the UART (H4) HCI transport: a one-byte indicator, then the HCI packet.
///
/// The payload keeps the HCI packet whole, header included, so the layer above
/// (`HCIEvent`, `HCIACLPacket`, `HCICommand`) decodes it and btsnoop can log it unchanged.
/// Decoding checks the HCI header's length field against the bytes, so a payload is always
/// exactly one packet.
public enum H4Packet: Hashable, Sendable {
    case command([UInt8])   // 0x01: opcode u16, length u8, parameters
    case acl([UInt8])       // 0x02: handle+flags u16, length u16, data
    case sco([UInt8])       // 0x03: handle+flags u16, length u8, data
    case event([UInt8])     // 0x04: code u8, length u8, parameters
    case iso([UInt8])       // 0x05: handle+flags u16, length u16 (14 bits), data

    public var indicator: UInt8 {
        switch self {
        case .command: 0x01
        case .acl: 0x02
        case .sco: 0x03
        case .event: 0x04
        case .iso: 0x05
        }
    }

    /// The HCI packet after the indicator.
    public var payload: [UInt8] {
        switch self {
        case .command(let p), .acl(let p), .sco(let p), .event(let p), .iso(let p): p
        }
    }

    /// Header size and where its length field sits, per indicator; nil for an unknown indicator.
    static func header(for indicator: UInt8) -> (size: Int, length: (ArraySlice<UInt8>) -> Int)? {
        switch indicator {
        case 0x01: (3, { h in Int(h[h.startIndex + 2]) })
        case 0x02: (4, { h in Int(h[h.startIndex + 2]) | Int(h[h.startIndex + 3]) << 8 })
        case 0x03: (3, { h in Int(h[h.startIndex + 2]) })
        case 0x04: (2, { h in Int(h[h.startIndex + 1]) })
        case 0x05: (4, { h in Int(h[h.startIndex + 2]) | Int(h[h.startIndex + 3] & 0x3F) << 8 })
        default: nil
        }
    }

    static func make(_ indicator: UInt8, _ payload: [UInt8]) -> H4Packet {
        switch indicator {
        case 0x01: .command(payload)
        case 0x02: .acl(payload)
        case 0x03: .sco(payload)
        case 0x05: .iso(payload)
        default: .event(payload)
        }
    }

    /// Decodes exactly one H4 packet: `unknownPacketType`, `truncated`, `lengthMismatch` (header
    /// length shorter than the bytes), never more.
    public init(decoding bytes: ArraySlice<UInt8>) throws(HostWireError) {
        var r = HostReader(bytes)
        let indicator = try r.readU8()
        guard let (size, length) = Self.header(for: indicator) else {
            throw HostWireError(.unknownPacketType, "H4 indicator 0x\([indicator].hostHex)")
        }
        let header = try r.readBytes(size)
        let n = length(header)
        guard r.remaining >= n else { throw .truncated(need: n, have: r.remaining, at: r.offset) }
        guard r.remaining == n else {
            throw HostWireError(.lengthMismatch, "header says \(n) byte(s), \(r.remaining) follow")
        }
        self = Self.make(indicator, Array(header) + Array(r.readRest()))
    }

    public init(decoding bytes: [UInt8]) throws(HostWireError) { try self.init(decoding: bytes[...]) }

    public func encoded() -> [UInt8] { [indicator] + payload }
}

/// Cuts an H4 byte stream (TCP, unix socket, UART) into packets, whatever the chunking.
///
/// Bounded: it holds at most one incomplete packet, and refuses (`tooLarge`) a packet whose
/// header announces more than `maxPacketSize` bytes. H4 has no resynchronisation marker, so
/// after an error the stream is lost: the deframer stays failed and repeats its error, and the
/// transport must be reopened.
public struct H4Deframer: Sendable {
    public let maxPacketSize: Int
    private var buffer: [UInt8] = []
    public private(set) var failure: HostWireError?

    /// `maxPacketSize` counts the indicator and header; the default admits any ACL packet a
    /// controller with a 1021-byte buffer can send, and every event.
    public init(maxPacketSize: Int = 1 + 4 + 1021) {
        self.maxPacketSize = max(maxPacketSize, 1 + 2 + 255)
    }

    /// Bytes held for an incomplete packet.
    public var pending: Int { buffer.count }

    /// Appends a chunk and returns every packet it completes, in order.
    public mutating func feed(_ chunk: some Collection<UInt8>) throws(HostWireError) -> [H4Packet] {
        if let failure { throw failure }
        var out: [H4Packet] = []
        var input = chunk[...]
        while !input.isEmpty {
            // Take only what the current packet needs, so the buffer never exceeds one packet.
            let need = try neededBytes()
            let take = min(need, input.count)
            buffer.append(contentsOf: input.prefix(take))
            input = input.dropFirst(take)
            if try neededBytes() == 0 {
                out.append(H4Packet.make(buffer[0], Array(buffer[1...])))
                buffer.removeAll(keepingCapacity: true)
            }
        }
        return out
    }

    /// How many more bytes the packet being assembled needs (the indicator counts as one).
    private mutating func neededBytes() throws(HostWireError) -> Int {
        guard let indicator = buffer.first else { return 1 }
        guard let (size, length) = H4Packet.header(for: indicator) else {
            return try fail(HostWireError(.unknownPacketType, "H4 indicator 0x\([indicator].hostHex)"))
        }
        if buffer.count < 1 + size { return 1 + size - buffer.count }
        let total = 1 + size + length(buffer[1...])
        if total > maxPacketSize {
            return try fail(HostWireError(.tooLarge, "H4 packet of \(total) bytes above the bound \(maxPacketSize)"))
        }
        return total - buffer.count
    }

    private mutating func fail(_ e: HostWireError) throws(HostWireError) -> Int {
        failure = e
        buffer.removeAll()
        throw e
    }
}
