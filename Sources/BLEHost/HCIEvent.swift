/// Return parameters of a Command Complete event, typed for the commands the host reads back.
///
/// Typed only when the bytes have exactly the documented size for the opcode; a bare status
/// byte (what controllers send for most commands, and for failures) is `status`; anything else
/// is kept as `raw`, so a surprising controller is reported, not refused, and every event
/// round-trips byte for byte.
public enum CommandReturn: Hashable, Sendable {
    case status(UInt8)
    case leBufferSize(status: UInt8, aclDataLength: UInt16, totalPackets: UInt8)
    case bufferSize(status: UInt8, aclDataLength: UInt16, scoDataLength: UInt8, totalACLPackets: UInt16, totalSCOPackets: UInt16)
    case bdAddr(status: UInt8, address: BluetoothAddress)
    case localFeatures(status: UInt8, features: UInt64)
    case leLocalFeatures(status: UInt8, features: UInt64)
    case extendedAdvertisingParameters(status: UInt8, selectedTxPower: Int8)
    case numberOfAdvertisingSets(status: UInt8, count: UInt8)
    case raw([UInt8])

    public var statusCode: UInt8? {
        switch self {
        case .status(let s), .leBufferSize(let s, _, _), .bufferSize(let s, _, _, _, _), .bdAddr(let s, _),
             .localFeatures(let s, _), .leLocalFeatures(let s, _), .extendedAdvertisingParameters(let s, _), .numberOfAdvertisingSets(let s, _): s
        case .raw(let b): b.first
        }
    }

    init(opcode: UInt16, bytes: ArraySlice<UInt8>) {
        var r = HostReader(bytes)
        func typed() throws(HostWireError) -> CommandReturn? {
            switch (opcode, bytes.count) {
            case (HCIOpcode.leReadBufferSize, 4):
                return .leBufferSize(status: try r.readU8(), aclDataLength: try r.readU16(), totalPackets: try r.readU8())
            case (HCIOpcode.readBufferSize, 8):
                return .bufferSize(status: try r.readU8(), aclDataLength: try r.readU16(), scoDataLength: try r.readU8(),
                                   totalACLPackets: try r.readU16(), totalSCOPackets: try r.readU16())
            case (HCIOpcode.readBDADDR, 7):
                let s = try r.readU8()
                return .bdAddr(status: s, address: try BluetoothAddress(littleEndian: try r.readBytes(6), type: .public))
            case (HCIOpcode.readLocalSupportedFeatures, 9):
                return .localFeatures(status: try r.readU8(), features: try r.readU64())
            case (HCIOpcode.leReadLocalSupportedFeatures, 9):
                return .leLocalFeatures(status: try r.readU8(), features: try r.readU64())
            case (HCIOpcode.leSetExtendedAdvertisingParameters, 2):
                return .extendedAdvertisingParameters(status: try r.readU8(), selectedTxPower: try r.readI8())
            case (HCIOpcode.leReadNumberOfSupportedAdvertisingSets, 2):
                return .numberOfAdvertisingSets(status: try r.readU8(), count: try r.readU8())
            case (_, 1):
                return .status(try r.readU8())
            default:
                return nil
            }
        }
        // The size checks above guarantee the reads succeed; `raw` is the fallback either way.
        self = ((try? typed()) ?? nil) ?? .raw(Array(bytes))
    }

    func write(to w: inout HostWriter) {
        switch self {
        case .status(let s): w.writeU8(s)
        case .leBufferSize(let s, let len, let n): w.writeU8(s); w.writeU16(len); w.writeU8(n)
        case .bufferSize(let s, let len, let sco, let n, let nsco): w.writeU8(s); w.writeU16(len); w.writeU8(sco); w.writeU16(n); w.writeU16(nsco)
        case .bdAddr(let s, let a): w.writeU8(s); w.write(a.littleEndianBytes)
        case .localFeatures(let s, let f), .leLocalFeatures(let s, let f): w.writeU8(s); w.writeU64(f)
        case .extendedAdvertisingParameters(let s, let p): w.writeU8(s); w.writeI8(p)
        case .numberOfAdvertisingSets(let s, let n): w.writeU8(s); w.writeU8(n)
        case .raw(let b): w.write(b)
        }
    }
}

/// Connection role byte of the connection complete events.
public enum ConnectionRole: UInt8, Hashable, Sendable {
    case central = 0
    case peripheral = 1
}

/// LE Connection Complete (0x01) or LE Enhanced Connection Complete (0x0A).
public struct LEConnectionComplete: Hashable, Sendable {
    public var status: UInt8
    public var handle: UInt16
    public var role: ConnectionRole
    public var peer: BluetoothAddress
    /// Only in the enhanced event (on-air order); all zero when unused.
    public var localResolvablePrivateAddress: [UInt8] = [0, 0, 0, 0, 0, 0]
    public var peerResolvablePrivateAddress: [UInt8] = [0, 0, 0, 0, 0, 0]
    /// 1.25 ms units.
    public var interval: UInt16
    public var latency: UInt16
    /// 10 ms units.
    public var supervisionTimeout: UInt16
    public var centralClockAccuracy: UInt8

    public init(status: UInt8, handle: UInt16, role: ConnectionRole, peer: BluetoothAddress, interval: UInt16,
                latency: UInt16, supervisionTimeout: UInt16, centralClockAccuracy: UInt8) {
        self.status = status; self.handle = handle; self.role = role; self.peer = peer; self.interval = interval
        self.latency = latency; self.supervisionTimeout = supervisionTimeout; self.centralClockAccuracy = centralClockAccuracy
    }

    static func read(_ r: inout HostReader, enhanced: Bool) throws(HostWireError) -> LEConnectionComplete {
        let status = try r.readU8()
        let handle = try HCIEvent.readHandle(&r, status: status)
        let roleByte = try r.readU8()
        guard let role = ConnectionRole(rawValue: roleByte) else { throw HostWireError(.badValue, "role 0x\([roleByte].hostHex)") }
        let type = AddressType(rawValue: try r.readU8())
        let peer = try BluetoothAddress(littleEndian: try r.readBytes(6), type: type)
        var local: [UInt8] = [0, 0, 0, 0, 0, 0], peerRPA = local
        if enhanced { local = try r.readArray(6); peerRPA = try r.readArray(6) }
        var c = LEConnectionComplete(status: status, handle: handle, role: role, peer: peer, interval: try r.readU16(),
                                     latency: try r.readU16(), supervisionTimeout: try r.readU16(), centralClockAccuracy: try r.readU8())
        c.localResolvablePrivateAddress = local
        c.peerResolvablePrivateAddress = peerRPA
        return c
    }

    func write(to w: inout HostWriter, enhanced: Bool) {
        w.writeU8(status); w.writeU16(handle); w.writeU8(role.rawValue); w.writeU8(peer.type.rawValue); w.write(peer.littleEndianBytes)
        if enhanced { w.write(localResolvablePrivateAddress.prefix(6)); w.write(peerResolvablePrivateAddress.prefix(6)) }
        w.writeU16(interval); w.writeU16(latency); w.writeU16(supervisionTimeout); w.writeU8(centralClockAccuracy)
    }
}

/// One report of an LE Advertising Report event (legacy PDUs).
public struct LegacyAdvertisingReport: Hashable, Sendable {
    /// 0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND, 4 SCAN_RSP.
    public var eventType: UInt8
    public var address: BluetoothAddress
    /// The AD bytes as received (at most 31); decode with `AdvertisingData`.
    public var data: [UInt8]
    /// dBm; 127 means not available.
    public var rssi: Int8
    public init(eventType: UInt8, address: BluetoothAddress, data: [UInt8], rssi: Int8) {
        self.eventType = eventType; self.address = address; self.data = data; self.rssi = rssi
    }
}

/// One report of an LE Extended Advertising Report event.
public struct ExtendedAdvertisingReport: Hashable, Sendable {
    /// Bit 0 connectable, 1 scannable, 2 directed, 3 scan response, 4 legacy PDU, 5-6 data status.
    public var eventType: UInt16
    public var address: BluetoothAddress
    public var primaryPHY: UInt8
    public var secondaryPHY: UInt8
    public var sid: UInt8
    public var txPower: Int8
    public var rssi: Int8
    public var periodicInterval: UInt16
    public var directAddressType: AddressType
    /// On-air order.
    public var directAddress: [UInt8]
    public var data: [UInt8]
    public init(eventType: UInt16, address: BluetoothAddress, primaryPHY: UInt8 = 1, secondaryPHY: UInt8 = 0, sid: UInt8 = 0xFF,
                txPower: Int8 = 127, rssi: Int8, periodicInterval: UInt16 = 0, directAddressType: AddressType = .public,
                directAddress: [UInt8] = [0, 0, 0, 0, 0, 0], data: [UInt8]) {
        self.eventType = eventType; self.address = address; self.primaryPHY = primaryPHY; self.secondaryPHY = secondaryPHY
        self.sid = sid; self.txPower = txPower; self.rssi = rssi; self.periodicInterval = periodicInterval
        self.directAddressType = directAddressType; self.directAddress = directAddress; self.data = data
    }
}

/// LE Meta event sub-events (event code 0x3E).
public enum LEMetaEvent: Hashable, Sendable {
    case connectionComplete(LEConnectionComplete)                       // 0x01
    case advertisingReport([LegacyAdvertisingReport])                   // 0x02
    case connectionUpdateComplete(status: UInt8, handle: UInt16, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) // 0x03
    case enhancedConnectionComplete(LEConnectionComplete)               // 0x0A
    case extendedAdvertisingReport([ExtendedAdvertisingReport])         // 0x0D
    /// 0x12 (7.7.65.18): an advertising set stopped; with status 0 because a central connected
    /// to it (`handle` is that connection, reported after its connection complete event).
    case advertisingSetTerminated(status: UInt8, set: UInt8, handle: UInt16, completedEvents: UInt8)
    case unknown(subevent: UInt8, parameters: [UInt8])

    public var subeventCode: UInt8 {
        switch self {
        case .connectionComplete: 0x01
        case .advertisingReport: 0x02
        case .connectionUpdateComplete: 0x03
        case .enhancedConnectionComplete: 0x0A
        case .extendedAdvertisingReport: 0x0D
        case .advertisingSetTerminated: 0x12
        case .unknown(let s, _): s
        }
    }
}

/// An HCI event packet (without the H4 indicator): code u8, parameter length u8, parameters.
///
/// Events the host acts on are typed; every other event code (and LE sub-event) is kept as
/// `unknown` rather than refused, because controllers send events the host did not ask about.
public enum HCIEvent: Hashable, Sendable {
    case disconnectionComplete(status: UInt8, handle: UInt16, reason: UInt8)          // 0x05
    case commandComplete(numCommandPackets: UInt8, opcode: UInt16, returned: CommandReturn) // 0x0E
    case commandStatus(status: UInt8, numCommandPackets: UInt8, opcode: UInt16)       // 0x0F
    case hardwareError(code: UInt8)                                                   // 0x10
    case numberOfCompletedPackets([CompletedPackets])          // 0x13
    case leMeta(LEMetaEvent)                                                          // 0x3E
    case unknown(code: UInt8, parameters: [UInt8])

    public var code: UInt8 {
        switch self {
        case .disconnectionComplete: 0x05
        case .commandComplete: 0x0E
        case .commandStatus: 0x0F
        case .hardwareError: 0x10
        case .numberOfCompletedPackets: 0x13
        case .leMeta: 0x3E
        case .unknown(let c, _): c
        }
    }

    /// Reads a connection handle; handles above 0x0EFF are refused when the status says success
    /// (failed events may carry anything there, and the host ignores it).
    static func readHandle(_ r: inout HostReader, status: UInt8) throws(HostWireError) -> UInt16 {
        let at = r.offset
        let h = try r.readU16()
        guard status != 0 || h <= 0x0EFF else { throw HostWireError(.badHandle, "handle 0x\(String(h, radix: 16)) at offset \(at)") }
        return h
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(HostWireError) {
        var outer = HostReader(bytes)
        let code = try outer.readU8()
        let length = Int(try outer.readU8())
        guard outer.remaining >= length else { throw .truncated(need: length, have: outer.remaining, at: outer.offset) }
        guard outer.remaining == length else {
            throw HostWireError(.lengthMismatch, "event length \(length), \(outer.remaining) byte(s) follow")
        }
        var r = HostReader(outer.readRest())
        switch code {
        case 0x05:
            let s = try r.readU8()
            self = .disconnectionComplete(status: s, handle: try Self.readHandle(&r, status: s), reason: try r.readU8())
        case 0x0E:
            let n = try r.readU8(), op = try r.readU16()
            self = .commandComplete(numCommandPackets: n, opcode: op, returned: CommandReturn(opcode: op, bytes: r.readRest()))
        case 0x0F:
            self = .commandStatus(status: try r.readU8(), numCommandPackets: try r.readU8(), opcode: try r.readU16())
        case 0x10:
            self = .hardwareError(code: try r.readU8())
        case 0x13:
            let n = Int(try r.readU8())
            guard r.remaining == n * 4 else {
                throw HostWireError(.lengthMismatch, "\(n) handle(s) need \(n * 4) byte(s), \(r.remaining) follow")
            }
            var entries: [CompletedPackets] = []
            for _ in 0..<n { entries.append(CompletedPackets(handle: try Self.readHandle(&r, status: 0), count: try r.readU16())) }
            self = .numberOfCompletedPackets(entries)
        case 0x3E:
            self = .leMeta(try Self.decodeMeta(&r))
        default:
            self = .unknown(code: code, parameters: Array(r.readRest()))
        }
        try r.expectEnd()
    }

    public init(decoding bytes: [UInt8]) throws(HostWireError) { try self.init(decoding: bytes[...]) }

    private static func decodeMeta(_ r: inout HostReader) throws(HostWireError) -> LEMetaEvent {
        let sub = try r.readU8()
        switch sub {
        case 0x01: return .connectionComplete(try LEConnectionComplete.read(&r, enhanced: false))
        case 0x0A: return .enhancedConnectionComplete(try LEConnectionComplete.read(&r, enhanced: true))
        case 0x03:
            let s = try r.readU8()
            return .connectionUpdateComplete(status: s, handle: try readHandle(&r, status: s), interval: try r.readU16(),
                                             latency: try r.readU16(), supervisionTimeout: try r.readU16())
        case 0x12:
            let s = try r.readU8(), set = try r.readU8()
            return .advertisingSetTerminated(status: s, set: set, handle: try readHandle(&r, status: s), completedEvents: try r.readU8())
        case 0x02:
            let n = Int(try r.readU8())
            // Each report needs at least 10 bytes, so the count cannot promise more than the input holds.
            guard n * 10 <= r.remaining else { throw .truncated(need: n * 10, have: r.remaining, at: r.offset) }
            var reports: [LegacyAdvertisingReport] = []
            for _ in 0..<n {
                let type = try r.readU8()
                let at = AddressType(rawValue: try r.readU8())
                let addr = try BluetoothAddress(littleEndian: try r.readBytes(6), type: at)
                let len = Int(try r.readU8())
                guard len <= 31 else { throw HostWireError(.lengthMismatch, "legacy report data length \(len) above 31") }
                let data = try r.readArray(len)
                reports.append(LegacyAdvertisingReport(eventType: type, address: addr, data: data, rssi: try r.readI8()))
            }
            return .advertisingReport(reports)
        case 0x0D:
            let n = Int(try r.readU8())
            guard n * 24 <= r.remaining else { throw .truncated(need: n * 24, have: r.remaining, at: r.offset) }
            var reports: [ExtendedAdvertisingReport] = []
            for _ in 0..<n {
                let type = try r.readU16()
                let at = AddressType(rawValue: try r.readU8())
                let addr = try BluetoothAddress(littleEndian: try r.readBytes(6), type: at)
                let p1 = try r.readU8(), p2 = try r.readU8(), sid = try r.readU8(), tx = try r.readI8(), rssi = try r.readI8()
                let pi = try r.readU16(), dt = AddressType(rawValue: try r.readU8()), da = try r.readArray(6)
                let len = Int(try r.readU8())
                let data = try r.readArray(len)
                reports.append(ExtendedAdvertisingReport(eventType: type, address: addr, primaryPHY: p1, secondaryPHY: p2, sid: sid,
                                                         txPower: tx, rssi: rssi, periodicInterval: pi, directAddressType: dt,
                                                         directAddress: da, data: data))
            }
            return .extendedAdvertisingReport(reports)
        default:
            return .unknown(subevent: sub, parameters: Array(r.readRest()))
        }
    }

    /// Parameters only (after code and length).
    public var parameters: [UInt8] {
        var w = HostWriter(capacity: 32)
        switch self {
        case .disconnectionComplete(let s, let h, let reason): w.writeU8(s); w.writeU16(h); w.writeU8(reason)
        case .commandComplete(let n, let op, let ret): w.writeU8(n); w.writeU16(op); ret.write(to: &w)
        case .commandStatus(let s, let n, let op): w.writeU8(s); w.writeU8(n); w.writeU16(op)
        case .hardwareError(let c): w.writeU8(c)
        case .numberOfCompletedPackets(let e):
            w.writeU8(UInt8(truncatingIfNeeded: e.count))
            for x in e.prefix(255) { w.writeU16(x.handle); w.writeU16(x.count) }
        case .leMeta(let m):
            w.writeU8(m.subeventCode)
            switch m {
            case .connectionComplete(let c): c.write(to: &w, enhanced: false)
            case .enhancedConnectionComplete(let c): c.write(to: &w, enhanced: true)
            case .connectionUpdateComplete(let s, let h, let i, let l, let t):
                w.writeU8(s); w.writeU16(h); w.writeU16(i); w.writeU16(l); w.writeU16(t)
            case .advertisingSetTerminated(let s, let set, let h, let n):
                w.writeU8(s); w.writeU8(set); w.writeU16(h); w.writeU8(n)
            case .advertisingReport(let reports):
                w.writeU8(UInt8(truncatingIfNeeded: reports.count))
                for rep in reports.prefix(255) {
                    w.writeU8(rep.eventType); w.writeU8(rep.address.type.rawValue); w.write(rep.address.littleEndianBytes)
                    w.writeU8(UInt8(rep.data.prefix(31).count)); w.write(rep.data.prefix(31)); w.writeI8(rep.rssi)
                }
            case .extendedAdvertisingReport(let reports):
                w.writeU8(UInt8(truncatingIfNeeded: reports.count))
                for rep in reports.prefix(255) {
                    w.writeU16(rep.eventType); w.writeU8(rep.address.type.rawValue); w.write(rep.address.littleEndianBytes)
                    w.writeU8(rep.primaryPHY); w.writeU8(rep.secondaryPHY); w.writeU8(rep.sid); w.writeI8(rep.txPower); w.writeI8(rep.rssi)
                    w.writeU16(rep.periodicInterval); w.writeU8(rep.directAddressType.rawValue); w.write(rep.directAddress.prefix(6))
                    w.writeU8(UInt8(truncatingIfNeeded: rep.data.count)); w.write(rep.data.prefix(255))
                }
            case .unknown(_, let p): w.write(p)
            }
        case .unknown(_, let p): w.write(p)
        }
        return w.bytes
    }

    /// The event packet. Events built by decoding always fit; a hand-built one whose parameters
    /// exceed 255 bytes is cut there (events are only built by hand in tests and fakes).
    public func encoded() -> [UInt8] {
        let p = parameters.prefix(255)
        return [code, UInt8(p.count)] + p
    }

    public var h4: H4Packet { .event(encoded()) }
}

/// One entry of Number Of Completed Packets: buffers freed on a connection.
public struct CompletedPackets: Hashable, Sendable {
    public var handle: UInt16
    public var count: UInt16
    public init(handle: UInt16, count: UInt16) { self.handle = handle; self.count = count }
}
