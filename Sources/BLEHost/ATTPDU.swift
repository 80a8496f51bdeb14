/// ATT error codes (Core Vol 3 Part F 3.4.1.1).
public enum ATTError {
    public static let invalidHandle: UInt8 = 0x01
    public static let readNotPermitted: UInt8 = 0x02
    public static let writeNotPermitted: UInt8 = 0x03
    public static let invalidPDU: UInt8 = 0x04
    public static let requestNotSupported: UInt8 = 0x06
    public static let invalidOffset: UInt8 = 0x07
    public static let prepareQueueFull: UInt8 = 0x09
    public static let attributeNotFound: UInt8 = 0x0A
    public static let attributeNotLong: UInt8 = 0x0B
    public static let invalidAttributeValueLength: UInt8 = 0x0D
    public static let unlikelyError: UInt8 = 0x0E
    public static let unsupportedGroupType: UInt8 = 0x10
    public static let insufficientResources: UInt8 = 0x11
}

/// One entry of a Find Information response.
public struct ATTHandleUUID: Hashable, Sendable {
    public var handle: UInt16
    public var uuid: BluetoothUUID
    public init(handle: UInt16, uuid: BluetoothUUID) { self.handle = handle; self.uuid = uuid }
}

/// One entry of a Find By Type Value response.
public struct ATTHandleRange: Hashable, Sendable {
    public var start: UInt16
    public var end: UInt16
    public init(start: UInt16, end: UInt16) { self.start = start; self.end = end }
}

/// One entry of a Read By Type response.
public struct ATTHandleValue: Hashable, Sendable {
    public var handle: UInt16
    public var value: [UInt8]
    public init(handle: UInt16, value: [UInt8]) { self.handle = handle; self.value = value }
}

/// One entry of a Read By Group Type response.
public struct ATTGroupValue: Hashable, Sendable {
    public var handle: UInt16
    public var end: UInt16
    public var value: [UInt8]
    public init(handle: UInt16, end: UInt16, value: [UInt8]) { self.handle = handle; self.end = end; self.value = value }
}

/// An ATT PDU (Core Vol 3 Part F 3.4): opcode u8, then parameters.
///
/// Opcodes the host does not implement (signed write, read multiple, ...) decode to `unknown`
/// so the server can answer Request Not Supported instead of dropping the link.
public enum ATTPDU: Hashable, Sendable {
    case errorResponse(request: UInt8, handle: UInt16, error: UInt8)             // 0x01
    case exchangeMTURequest(mtu: UInt16)                                         // 0x02
    case exchangeMTUResponse(mtu: UInt16)                                        // 0x03
    case findInformationRequest(start: UInt16, end: UInt16)                      // 0x04
    /// All UUIDs the same size (format 1: 16-bit, 2: 128-bit); at least one entry.
    case findInformationResponse([ATTHandleUUID])                                // 0x05
    case findByTypeValueRequest(start: UInt16, end: UInt16, type: UInt16, value: [UInt8]) // 0x06
    case findByTypeValueResponse([ATTHandleRange])                               // 0x07
    case readByTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID)      // 0x08
    /// All values the same length; at least one entry.
    case readByTypeResponse([ATTHandleValue])                                    // 0x09
    case readRequest(handle: UInt16)                                             // 0x0A
    case readResponse([UInt8])                                                   // 0x0B
    case readBlobRequest(handle: UInt16, offset: UInt16)                         // 0x0C
    case readBlobResponse([UInt8])                                               // 0x0D
    case readByGroupTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID) // 0x10
    case readByGroupTypeResponse([ATTGroupValue])                                // 0x11
    case writeRequest(handle: UInt16, value: [UInt8])                            // 0x12
    case writeResponse                                                           // 0x13
    case prepareWriteRequest(handle: UInt16, offset: UInt16, value: [UInt8])     // 0x16
    case prepareWriteResponse(handle: UInt16, offset: UInt16, value: [UInt8])    // 0x17
    /// Flags 0x00 cancel all prepared writes, 0x01 write them all.
    case executeWriteRequest(flags: UInt8)                                       // 0x18
    case executeWriteResponse                                                    // 0x19
    case handleValueNotification(handle: UInt16, value: [UInt8])                 // 0x1B
    case handleValueIndication(handle: UInt16, value: [UInt8])                   // 0x1D
    case handleValueConfirmation                                                 // 0x1E
    case writeCommand(handle: UInt16, value: [UInt8])                            // 0x52
    case unknown(opcode: UInt8, parameters: [UInt8])

    public var opcode: UInt8 {
        switch self {
        case .errorResponse: 0x01
        case .exchangeMTURequest: 0x02
        case .exchangeMTUResponse: 0x03
        case .findInformationRequest: 0x04
        case .findInformationResponse: 0x05
        case .findByTypeValueRequest: 0x06
        case .findByTypeValueResponse: 0x07
        case .readByTypeRequest: 0x08
        case .readByTypeResponse: 0x09
        case .readRequest: 0x0A
        case .readResponse: 0x0B
        case .readBlobRequest: 0x0C
        case .readBlobResponse: 0x0D
        case .readByGroupTypeRequest: 0x10
        case .readByGroupTypeResponse: 0x11
        case .writeRequest: 0x12
        case .writeResponse: 0x13
        case .prepareWriteRequest: 0x16
        case .prepareWriteResponse: 0x17
        case .executeWriteRequest: 0x18
        case .executeWriteResponse: 0x19
        case .handleValueNotification: 0x1B
        case .handleValueIndication: 0x1D
        case .handleValueConfirmation: 0x1E
        case .writeCommand: 0x52
        case .unknown(let op, _): op
        }
    }

    /// Requests expect exactly one response; the client keeps one outstanding (Vol 3 Part F 3.3.2).
    public static func isRequest(_ opcode: UInt8) -> Bool {
        [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20].contains(opcode)
    }

    /// Commands (bit 6 set) get no response, not even an error.
    public static func isCommand(_ opcode: UInt8) -> Bool { opcode & 0x40 != 0 }

    /// `truncated`, `trailingBytes` (after a fixed-size PDU), `lengthMismatch` (a list that is not
    /// a whole number of entries, an empty list, a type UUID that is not 2 or 16 bytes),
    /// `badValue` (Find Information format other than 1 or 2, entry length too short for its
    /// handles, Execute Write flags above 1).
    public init(decoding bytes: ArraySlice<UInt8>) throws(HostWireError) {
        var r = HostReader(bytes)
        let opcode = try r.readU8()
        func typeUUID() throws(HostWireError) -> BluetoothUUID {
            let rest = r.readRest()
            guard rest.count == 2 || rest.count == 16 else {
                throw HostWireError(.lengthMismatch, "attribute type of \(rest.count) byte(s); ATT allows 2 or 16")
            }
            return try BluetoothUUID(littleEndian: rest)
        }
        func entryLength(min: Int) throws(HostWireError) -> Int {
            let n = Int(try r.readU8())
            guard n >= min else { throw HostWireError(.badValue, "entry length \(n) below \(min)") }
            guard r.remaining > 0, r.remaining % n == 0 else {
                throw HostWireError(.lengthMismatch, "\(r.remaining) byte(s) is not a non-empty list of \(n)-byte entries")
            }
            return n
        }
        switch opcode {
        case 0x01: self = .errorResponse(request: try r.readU8(), handle: try r.readU16(), error: try r.readU8())
        case 0x02: self = .exchangeMTURequest(mtu: try r.readU16())
        case 0x03: self = .exchangeMTUResponse(mtu: try r.readU16())
        case 0x04: self = .findInformationRequest(start: try r.readU16(), end: try r.readU16())
        case 0x05:
            let format = try r.readU8()
            guard format == 1 || format == 2 else { throw HostWireError(.badValue, "Find Information format \(format)") }
            let size = format == 1 ? 2 : 16
            guard r.remaining > 0, r.remaining % (2 + size) == 0 else {
                throw HostWireError(.lengthMismatch, "\(r.remaining) byte(s) is not a non-empty list of \(2 + size)-byte entries")
            }
            var out: [ATTHandleUUID] = []
            while !r.isAtEnd { out.append(ATTHandleUUID(handle: try r.readU16(), uuid: try BluetoothUUID(littleEndian: try r.readBytes(size)))) }
            self = .findInformationResponse(out)
            return
        case 0x06:
            self = .findByTypeValueRequest(start: try r.readU16(), end: try r.readU16(), type: try r.readU16(), value: Array(r.readRest()))
        case 0x07:
            guard r.remaining > 0, r.remaining % 4 == 0 else {
                throw HostWireError(.lengthMismatch, "\(r.remaining) byte(s) is not a non-empty list of 4-byte entries")
            }
            var out: [ATTHandleRange] = []
            while !r.isAtEnd { out.append(ATTHandleRange(start: try r.readU16(), end: try r.readU16())) }
            self = .findByTypeValueResponse(out)
        case 0x08: self = .readByTypeRequest(start: try r.readU16(), end: try r.readU16(), type: try typeUUID())
        case 0x09:
            let n = try entryLength(min: 2)
            var out: [ATTHandleValue] = []
            while !r.isAtEnd { out.append(ATTHandleValue(handle: try r.readU16(), value: try r.readArray(n - 2))) }
            self = .readByTypeResponse(out)
        case 0x0A: self = .readRequest(handle: try r.readU16())
        case 0x0B: self = .readResponse(Array(r.readRest()))
        case 0x0C: self = .readBlobRequest(handle: try r.readU16(), offset: try r.readU16())
        case 0x0D: self = .readBlobResponse(Array(r.readRest()))
        case 0x10: self = .readByGroupTypeRequest(start: try r.readU16(), end: try r.readU16(), type: try typeUUID())
        case 0x11:
            let n = try entryLength(min: 4)
            var out: [ATTGroupValue] = []
            while !r.isAtEnd { out.append(ATTGroupValue(handle: try r.readU16(), end: try r.readU16(), value: try r.readArray(n - 4))) }
            self = .readByGroupTypeResponse(out)
        case 0x12: self = .writeRequest(handle: try r.readU16(), value: Array(r.readRest()))
        case 0x13: self = .writeResponse
        case 0x16: self = .prepareWriteRequest(handle: try r.readU16(), offset: try r.readU16(), value: Array(r.readRest()))
        case 0x17: self = .prepareWriteResponse(handle: try r.readU16(), offset: try r.readU16(), value: Array(r.readRest()))
        case 0x18:
            let f = try r.readU8()
            guard f <= 1 else { throw HostWireError(.badValue, "Execute Write flags 0x\([f].hostHex)") }
            self = .executeWriteRequest(flags: f)
        case 0x19: self = .executeWriteResponse
        case 0x1B: self = .handleValueNotification(handle: try r.readU16(), value: Array(r.readRest()))
        case 0x1D: self = .handleValueIndication(handle: try r.readU16(), value: Array(r.readRest()))
        case 0x1E: self = .handleValueConfirmation
        case 0x52: self = .writeCommand(handle: try r.readU16(), value: Array(r.readRest()))
        default: self = .unknown(opcode: opcode, parameters: Array(r.readRest()))
        }
        try r.expectEnd()
    }

    public init(decoding bytes: [UInt8]) throws(HostWireError) { try self.init(decoding: bytes[...]) }

    /// Hand-built lists must keep the shape the decoder demands (same UUID size, same value
    /// length); the server and client build them that way.
    public func encoded() -> [UInt8] {
        var w = HostWriter(capacity: 24)
        w.writeU8(opcode)
        switch self {
        case .errorResponse(let req, let h, let e): w.writeU8(req); w.writeU16(h); w.writeU8(e)
        case .exchangeMTURequest(let m), .exchangeMTUResponse(let m): w.writeU16(m)
        case .findInformationRequest(let s, let e): w.writeU16(s); w.writeU16(e)
        case .findInformationResponse(let list):
            w.writeU8(list.first?.uuid.byteCount == 2 ? 1 : 2)
            for x in list { w.writeU16(x.handle); w.write(x.uuid.littleEndianBytes) }
        case .findByTypeValueRequest(let s, let e, let t, let v): w.writeU16(s); w.writeU16(e); w.writeU16(t); w.write(v)
        case .findByTypeValueResponse(let list): for x in list { w.writeU16(x.start); w.writeU16(x.end) }
        case .readByTypeRequest(let s, let e, let t), .readByGroupTypeRequest(let s, let e, let t):
            w.writeU16(s); w.writeU16(e); w.write(t.littleEndianBytes)
        case .readByTypeResponse(let list):
            w.writeU8(UInt8(truncatingIfNeeded: 2 + (list.first?.value.count ?? 0)))
            for x in list { w.writeU16(x.handle); w.write(x.value) }
        case .readByGroupTypeResponse(let list):
            w.writeU8(UInt8(truncatingIfNeeded: 4 + (list.first?.value.count ?? 0)))
            for x in list { w.writeU16(x.handle); w.writeU16(x.end); w.write(x.value) }
        case .readRequest(let h): w.writeU16(h)
        case .readResponse(let v), .readBlobResponse(let v): w.write(v)
        case .readBlobRequest(let h, let o): w.writeU16(h); w.writeU16(o)
        case .writeRequest(let h, let v), .writeCommand(let h, let v), .handleValueNotification(let h, let v), .handleValueIndication(let h, let v):
            w.writeU16(h); w.write(v)
        case .prepareWriteRequest(let h, let o, let v), .prepareWriteResponse(let h, let o, let v):
            w.writeU16(h); w.writeU16(o); w.write(v)
        case .executeWriteRequest(let f): w.writeU8(f)
        case .writeResponse, .executeWriteResponse, .handleValueConfirmation: break
        case .unknown(_, let p): w.write(p)
        }
        return w.bytes
    }
}
