/// Cuts a byte stream (TCP, unix socket) into whole H4 packets. The H4 header says how long
/// each packet is; there is no resynchronisation, so an unknown indicator ends the stream.
/// Memory is bounded by one partial packet plus what the caller appends before calling
/// `next` (the largest H4 packet is 5 + 65535 bytes, an ACL or ISO packet with a 16-bit length).
struct H4Deframer {
    private var buffer: [UInt8] = []
    private var start = 0

    /// Header length and where its payload-length field sits, per indicator.
    static func header(_ indicator: UInt8) -> (length: Int, lengthAt: Int, lengthBytes: Int, mask: Int)? {
        switch H4Indicator(rawValue: indicator) {
        case .command: (4, 3, 1, 0xFF)          // opcode(2) length(1)
        case .acl: (5, 3, 2, 0xFFFF)            // handle+flags(2) length(2)
        case .sco: (4, 3, 1, 0xFF)              // handle+flags(2) length(1)
        case .event: (3, 2, 1, 0xFF)            // code(1) length(1)
        case .iso: (5, 3, 2, 0x3FFF)            // handle+flags(2) length(14 bits)
        case nil: nil
        }
    }

    /// The whole length of the packet at the start of `bytes` once its header is there, nil
    /// before that; throws for an unknown indicator.
    static func packetLength(_ bytes: ArraySlice<UInt8>) throws(H4FramingError) -> Int? {
        guard let first = bytes.first else { return nil }
        guard let h = header(first) else { throw .unknownIndicator(first) }
        guard bytes.count >= h.length else { return nil }
        let at = bytes.startIndex + h.lengthAt
        var payload = Int(bytes[at])
        if h.lengthBytes == 2 { payload |= Int(bytes[at + 1]) << 8 }
        return h.length + (payload & h.mask)
    }

    var buffered: Int { buffer.count - start }

    mutating func append(_ bytes: some Collection<UInt8>) {
        // Compact only when the consumed prefix dominates, so appends stay amortised O(n).
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole packet, or nil when more bytes are needed.
    mutating func next() throws(H4FramingError) -> [UInt8]? {
        let pending = buffer[start...]
        guard let length = try Self.packetLength(pending), pending.count >= length else { return nil }
        let packet = Array(buffer[start..<(start + length)])
        start += length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 17)
            start = 0
        }
        return packet
    }
}

enum H4FramingError: Error, Equatable, CustomStringConvertible {
    case unknownIndicator(UInt8)
    case lengthMismatch(header: Int, got: Int)

    var description: String {
        switch self {
        case .unknownIndicator(let b): "unknown H4 packet indicator 0x\(String(b, radix: 16))"
        case .lengthMismatch(let header, let got): "header says \(header) bytes, packet has \(got)"
        }
    }
}
