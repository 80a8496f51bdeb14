/// A command on the LE signalling channel (CID 0x0005, Core Vol 3 Part A 4): code u8,
/// identifier u8, length u16, data. LE allows one command per frame.
public struct LESignal: Hashable, Sendable {
    public enum Command: Hashable, Sendable {
        /// 0x01. Reason 0x0000 command not understood, 0x0001 MTU exceeded, 0x0002 invalid CID.
        case commandReject(reason: UInt16, data: [UInt8])
        /// 0x12. Units as in `ConnectionParameters`.
        case connectionParameterUpdateRequest(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16)
        /// 0x13. Result 0x0000 accepted, 0x0001 rejected.
        case connectionParameterUpdateResponse(result: UInt16)
        /// Any other code (credit-based channels, ...): the host answers with a Command Reject.
        case unknown(code: UInt8, data: [UInt8])

        public var code: UInt8 {
            switch self {
            case .commandReject: 0x01
            case .connectionParameterUpdateRequest: 0x12
            case .connectionParameterUpdateResponse: 0x13
            case .unknown(let c, _): c
            }
        }
    }

    public var identifier: UInt8
    public var command: Command

    public init(identifier: UInt8, command: Command) {
        self.identifier = identifier
        self.command = command
    }

    /// `truncated`, `lengthMismatch` (length field vs bytes, or a fixed-size command of another
    /// size), `badValue` (identifier 0, which the spec forbids).
    public init(decoding bytes: ArraySlice<UInt8>) throws(HostWireError) {
        var r = HostReader(bytes)
        let code = try r.readU8()
        identifier = try r.readU8()
        let length = Int(try r.readU16())
        guard identifier != 0 else { throw HostWireError(.badValue, "signalling identifier 0x00 is invalid") }
        guard r.remaining >= length else { throw .truncated(need: length, have: r.remaining, at: r.offset) }
        guard r.remaining == length else { throw HostWireError(.lengthMismatch, "signalling length \(length), \(r.remaining) byte(s) follow") }
        func exactly(_ n: Int) throws(HostWireError) {
            guard length == n else { throw HostWireError(.lengthMismatch, "signalling code 0x\([code].hostHex) has \(length) byte(s), expected \(n)") }
        }
        switch code {
        case 0x01:
            guard length >= 2 else { throw .truncated(need: 2, have: length, at: r.offset) }
            command = .commandReject(reason: try r.readU16(), data: Array(r.readRest()))
        case 0x12:
            try exactly(8)
            command = .connectionParameterUpdateRequest(intervalMin: try r.readU16(), intervalMax: try r.readU16(),
                                                        latency: try r.readU16(), timeout: try r.readU16())
        case 0x13:
            try exactly(2)
            command = .connectionParameterUpdateResponse(result: try r.readU16())
        default:
            command = .unknown(code: code, data: Array(r.readRest()))
        }
    }

    public init(decoding bytes: [UInt8]) throws(HostWireError) { try self.init(decoding: bytes[...]) }

    public func encoded() -> [UInt8] {
        var d = HostWriter(capacity: 8)
        switch command {
        case .commandReject(let reason, let data): d.writeU16(reason); d.write(data)
        case .connectionParameterUpdateRequest(let a, let b, let c, let t): d.writeU16(a); d.writeU16(b); d.writeU16(c); d.writeU16(t)
        case .connectionParameterUpdateResponse(let result): d.writeU16(result)
        case .unknown(_, let data): d.write(data)
        }
        let data = d.bytes.prefix(0xFFFF)
        var w = HostWriter(capacity: 4 + data.count)
        w.writeU8(command.code); w.writeU8(identifier); w.writeU16(UInt16(data.count)); w.write(data)
        return w.bytes
    }
}
