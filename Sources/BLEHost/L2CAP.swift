/// Fixed LE L2CAP channel ids (Core Vol 3 Part A 2.1).
public enum L2CAPChannel {
    public static let att: UInt16 = 0x0004
    public static let leSignalling: UInt16 = 0x0005
    public static let securityManager: UInt16 = 0x0006
}

/// An L2CAP basic-mode frame (B-frame): length u16, channel id u16, payload.
public struct L2CAPFrame: Hashable, Sendable {
    public var channel: UInt16
    public var payload: [UInt8]

    public init(channel: UInt16, payload: [UInt8]) {
        self.channel = channel
        self.payload = payload
    }

    /// `truncated`, `lengthMismatch` (bytes beyond the length), `badValue` (channel 0, the null identifier).
    public init(decoding bytes: ArraySlice<UInt8>) throws(HostWireError) {
        var r = HostReader(bytes)
        let length = Int(try r.readU16())
        channel = try r.readU16()
        guard channel != 0 else { throw HostWireError(.badValue, "channel id 0x0000 is the null identifier") }
        guard r.remaining >= length else { throw .truncated(need: length, have: r.remaining, at: r.offset) }
        guard r.remaining == length else { throw HostWireError(.lengthMismatch, "L2CAP length \(length), \(r.remaining) byte(s) follow") }
        payload = Array(r.readRest())
    }

    public init(decoding bytes: [UInt8]) throws(HostWireError) { try self.init(decoding: bytes[...]) }

    public func encoded() -> [UInt8] {
        var w = HostWriter(capacity: 4 + payload.count)
        let p = payload.prefix(0xFFFF)
        w.writeU16(UInt16(p.count)); w.writeU16(channel); w.write(p)
        return w.bytes
    }

    /// Cuts the frame into ACL packets of at most `maxACLDataLength` data bytes (the controller's
    /// LE buffer size: 27 on Bumble): the first marked first-non-flushable, the rest continuation.
    public func fragments(handle: UInt16, maxACLDataLength: Int) -> [HCIACLPacket] {
        let bytes = encoded()
        let size = max(1, maxACLDataLength)
        var out: [HCIACLPacket] = []
        out.reserveCapacity((bytes.count + size - 1) / size)
        var i = 0
        while i < bytes.count {
            let end = min(i + size, bytes.count)
            out.append(HCIACLPacket(handle: handle, boundary: i == 0 ? .firstNonFlushable : .continuation, data: Array(bytes[i..<end])))
            i = end
        }
        return out
    }
}

/// Rebuilds L2CAP frames from the ACL fragments of one connection.
///
/// Bounded: it holds at most one partial frame, of at most `maxFrameSize` bytes (header
/// included); a frame announcing more is refused at its first fragment and its continuations
/// are dropped. A continuation with nothing in progress is dropped (stray); a start fragment
/// while a frame is in progress drops the unfinished one (the controller flushed it).
public struct L2CAPRecombiner: Sendable {
    public enum Outcome: Hashable, Sendable {
        /// A whole frame.
        case frame(L2CAPFrame)
        /// More fragments are needed.
        case incomplete
        /// The fragment (and any partial frame it ended) was discarded; `reason` says why.
        case dropped(HostWireError)
    }

    public let maxFrameSize: Int
    private var partial: [UInt8] = []
    private var expected: Int?        // total bytes incl. the 4-byte header, once known
    private var inProgress = false
    private var skipping = false      // continuations of a refused frame

    /// The default fits the largest ATT PDU the host accepts (517 MTU) plus the L2CAP header.
    public init(maxFrameSize: Int = 4 + 517) { self.maxFrameSize = max(4, maxFrameSize) }

    /// Bytes held for a partial frame.
    public var pending: Int { partial.count }

    public mutating func add(_ packet: HCIACLPacket) -> Outcome {
        if packet.boundary.isStart {
            // An unfinished frame is abandoned: the controller only starts a new PDU after
            // flushing the old one, so its missing fragments will never come.
            reset()
            inProgress = true
            return append(packet.data)
        }
        if skipping { return .dropped(HostWireError(.tooLarge, "continuation of a refused frame")) }
        guard inProgress else { return .dropped(HostWireError(.badValue, "continuation fragment with no frame in progress")) }
        return append(packet.data)
    }

    private mutating func append(_ data: [UInt8]) -> Outcome {
        if let expected, partial.count + data.count > expected {
            reset()
            return .dropped(HostWireError(.lengthMismatch, "fragments exceed the frame length \(expected - 4)"))
        }
        guard data.count <= maxFrameSize - partial.count else {
            // Whatever the length field says, these bytes cannot belong to a frame within the bound.
            reset()
            skipping = true
            return .dropped(HostWireError(.tooLarge, "L2CAP frame above the bound \(maxFrameSize)"))
        }
        partial.append(contentsOf: data)
        if expected == nil, partial.count >= 4 {
            let total = 4 + (Int(partial[0]) | Int(partial[1]) << 8)
            guard total <= maxFrameSize else {
                reset()
                skipping = true
                return .dropped(HostWireError(.tooLarge, "L2CAP frame of \(total) bytes above the bound \(maxFrameSize)"))
            }
            guard partial.count <= total else {
                reset()
                return .dropped(HostWireError(.lengthMismatch, "fragment longer than the frame length \(total - 4)"))
            }
            expected = total
        }
        guard let expected, partial.count == expected else { return .incomplete }
        let bytes = partial
        reset()
        do {
            return .frame(try L2CAPFrame(decoding: bytes))
        } catch {
            return .dropped(error)
        }
    }

    private mutating func reset() {
        partial.removeAll(keepingCapacity: true)
        expected = nil
        inProgress = false
        skipping = false
    }
}
