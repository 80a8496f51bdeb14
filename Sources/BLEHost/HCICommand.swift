/// HCI command opcodes the host sends (OGF << 10 | OCF), Core Vol 4 Part E section 7.
public enum HCIOpcode {
    public static let disconnect: UInt16 = 0x0406
    public static let setEventMask: UInt16 = 0x0C01
    public static let reset: UInt16 = 0x0C03
    public static let readLocalSupportedFeatures: UInt16 = 0x1003
    public static let readBufferSize: UInt16 = 0x1005
    public static let readBDADDR: UInt16 = 0x1009
    public static let leSetEventMask: UInt16 = 0x2001
    public static let leReadBufferSize: UInt16 = 0x2002
    public static let leReadLocalSupportedFeatures: UInt16 = 0x2003
    public static let leSetRandomAddress: UInt16 = 0x2005
    public static let leSetAdvertisingParameters: UInt16 = 0x2006
    public static let leSetAdvertisingData: UInt16 = 0x2008
    public static let leSetScanResponseData: UInt16 = 0x2009
    public static let leSetAdvertisingEnable: UInt16 = 0x200A
    public static let leSetScanParameters: UInt16 = 0x200B
    public static let leSetScanEnable: UInt16 = 0x200C
    public static let leCreateConnection: UInt16 = 0x200D
    public static let leCreateConnectionCancel: UInt16 = 0x200E
    public static let leConnectionUpdate: UInt16 = 0x2013
    public static let leSetAdvertisingSetRandomAddress: UInt16 = 0x2035
    public static let leSetExtendedAdvertisingParameters: UInt16 = 0x2036
    public static let leSetExtendedAdvertisingData: UInt16 = 0x2037
    public static let leSetExtendedScanResponseData: UInt16 = 0x2038
    public static let leSetExtendedAdvertisingEnable: UInt16 = 0x2039
    public static let leReadNumberOfSupportedAdvertisingSets: UInt16 = 0x203B
    public static let leSetExtendedScanParameters: UInt16 = 0x2041
    public static let leSetExtendedScanEnable: UInt16 = 0x2042
    public static let leExtendedCreateConnection: UInt16 = 0x2043
}

/// LE_Set_Advertising_Parameters (7.8.5). Intervals in 0.625 ms units.
public struct LegacyAdvertisingParameters: Hashable, Sendable {
    public var intervalMin: UInt16 = 0x0020
    public var intervalMax: UInt16 = 0x0020
    /// 0 ADV_IND, 1 ADV_DIRECT_IND (high duty), 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND, 4 ADV_DIRECT_IND (low duty).
    public var advertisingType: UInt8 = 0
    public var ownAddressType: AddressType = .random
    public var peerAddressType: AddressType = .public
    /// On-air order (little-endian), 6 bytes.
    public var peerAddress: [UInt8] = [0, 0, 0, 0, 0, 0]
    public var channelMap: UInt8 = 0x07
    public var filterPolicy: UInt8 = 0
    public init() {}
}

/// LE_Set_Scan_Parameters (7.8.10). Interval and window in 0.625 ms units.
public struct LegacyScanParameters: Hashable, Sendable {
    /// 0 passive, 1 active.
    public var scanType: UInt8 = 0
    public var interval: UInt16 = 0x0010
    public var window: UInt16 = 0x0010
    public var ownAddressType: AddressType = .random
    public var filterPolicy: UInt8 = 0
    public init() {}
}

/// The connection parameters shared by LE_Create_Connection, its extended form and LE_Connection_Update.
/// Interval in 1.25 ms units, supervision timeout in 10 ms units, CE lengths in 0.625 ms units.
public struct ConnectionParameters: Hashable, Sendable {
    public var intervalMin: UInt16 = 0x0018   // 30 ms
    public var intervalMax: UInt16 = 0x0028   // 50 ms
    public var latency: UInt16 = 0
    public var supervisionTimeout: UInt16 = 0x01F4   // 5 s
    public var minCELength: UInt16 = 0
    public var maxCELength: UInt16 = 0
    public init() {}
    public init(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    /// The ranges of Core Vol 4 Part E 7.8.12 and the rule that the supervision timeout
    /// outlasts (1 + latency) * intervalMax * 2.
    public var isValid: Bool {
        guard (0x0006...0x0C80).contains(intervalMin), (0x0006...0x0C80).contains(intervalMax), intervalMin <= intervalMax,
              latency <= 0x01F3, (0x000A...0x0C80).contains(supervisionTimeout) else { return false }
        // timeout (10 ms units) * 10 > (1 + latency) * intervalMax (1.25 ms units) * 1.25 * 2
        return Int(supervisionTimeout) * 4 > (1 + Int(latency)) * Int(intervalMax)
    }

    fileprivate func write(to w: inout HostWriter) {
        w.writeU16(intervalMin); w.writeU16(intervalMax); w.writeU16(latency)
        w.writeU16(supervisionTimeout); w.writeU16(minCELength); w.writeU16(maxCELength)
    }

    fileprivate static func read(_ r: inout HostReader) throws(HostWireError) -> ConnectionParameters {
        var p = ConnectionParameters()
        p.intervalMin = try r.readU16(); p.intervalMax = try r.readU16(); p.latency = try r.readU16()
        p.supervisionTimeout = try r.readU16(); p.minCELength = try r.readU16(); p.maxCELength = try r.readU16()
        return p
    }
}

/// LE_Create_Connection (7.8.12) and, with `extended`, LE_Extended_Create_Connection on the 1M PHY (7.8.66).
public struct CreateConnectionParameters: Hashable, Sendable {
    public var scanInterval: UInt16 = 0x0060
    public var scanWindow: UInt16 = 0x0060
    public var initiatorFilterPolicy: UInt8 = 0
    public var peer: BluetoothAddress
    public var ownAddressType: AddressType = .random
    public var connection = ConnectionParameters()
    public init(peer: BluetoothAddress) { self.peer = peer }
}

/// LE_Set_Extended_Advertising_Parameters (7.8.53), v1. Intervals are 24-bit, 0.625 ms units.
public struct ExtendedAdvertisingParameters: Hashable, Sendable {
    public var handle: UInt8 = 0
    /// Bit 0 connectable, 1 scannable, 2 directed, 3 high duty, 4 legacy PDUs, 5 anonymous, 6 include TX power.
    public var eventProperties: UInt16 = 0x0013
    public var intervalMin: UInt32 = 0x20
    public var intervalMax: UInt32 = 0x20
    public var channelMap: UInt8 = 0x07
    public var ownAddressType: AddressType = .random
    public var peerAddressType: AddressType = .public
    public var peerAddress: [UInt8] = [0, 0, 0, 0, 0, 0]
    public var filterPolicy: UInt8 = 0
    /// 0x7F: no preference.
    public var txPower: Int8 = 0x7F
    public var primaryPHY: UInt8 = 1
    public var secondaryMaxSkip: UInt8 = 0
    public var secondaryPHY: UInt8 = 1
    public var sid: UInt8 = 0
    public var scanRequestNotification: UInt8 = 0
    public init() {}
}

/// LE_Set_Extended_Scan_Parameters (7.8.64) for the 1M PHY only.
public struct ExtendedScanParameters: Hashable, Sendable {
    public var ownAddressType: AddressType = .random
    public var filterPolicy: UInt8 = 0
    public var scanType: UInt8 = 0
    public var interval: UInt16 = 0x0010
    public var window: UInt16 = 0x0010
    public init() {}
}

/// One entry of LE_Set_Extended_Advertising_Enable.
public struct AdvertisingSetEnable: Hashable, Sendable {
    public var handle: UInt8
    /// 10 ms units; 0 = until disabled.
    public var duration: UInt16
    public var maxEvents: UInt8
    public init(handle: UInt8, duration: UInt16 = 0, maxEvents: UInt8 = 0) {
        self.handle = handle; self.duration = duration; self.maxEvents = maxEvents
    }
}

/// An HCI command packet (without the H4 indicator): opcode u16, parameter length u8, parameters.
///
/// The commands the host sends are typed; any other opcode decodes to `other` so a btsnoop
/// log or a fuzz input of foreign commands still round-trips.
public enum HCICommand: Hashable, Sendable {
    case reset
    case setEventMask(UInt64)
    case readLocalSupportedFeatures
    case readBufferSize
    case readBDADDR
    case disconnect(handle: UInt16, reason: UInt8)
    case leSetEventMask(UInt64)
    case leReadBufferSize
    case leReadLocalSupportedFeatures
    /// Display-order address bytes are in `BluetoothAddress`; the command carries the random address.
    case leSetRandomAddress(BluetoothAddress)
    case leSetAdvertisingParameters(LegacyAdvertisingParameters)
    /// At most 31 bytes; the command pads to 31 on the wire.
    case leSetAdvertisingData([UInt8])
    case leSetScanResponseData([UInt8])
    case leSetAdvertisingEnable(Bool)
    case leSetScanParameters(LegacyScanParameters)
    case leSetScanEnable(enable: Bool, filterDuplicates: Bool)
    case leCreateConnection(CreateConnectionParameters)
    case leCreateConnectionCancel
    case leConnectionUpdate(handle: UInt16, ConnectionParameters)
    case leSetAdvertisingSetRandomAddress(handle: UInt8, BluetoothAddress)
    case leSetExtendedAdvertisingParameters(ExtendedAdvertisingParameters)
    /// Operation 0x03 (complete data) when the data fits one command; fragment preference 1.
    case leSetExtendedAdvertisingData(handle: UInt8, operation: UInt8, fragmentPreference: UInt8, data: [UInt8])
    case leSetExtendedScanResponseData(handle: UInt8, operation: UInt8, fragmentPreference: UInt8, data: [UInt8])
    case leSetExtendedAdvertisingEnable(enable: Bool, sets: [AdvertisingSetEnable])
    /// 7.8.58: how many advertising sets the controller keeps at once (each one a tester identity).
    case leReadNumberOfSupportedAdvertisingSets
    case leSetExtendedScanParameters(ExtendedScanParameters)
    case leSetExtendedScanEnable(enable: Bool, filterDuplicates: UInt8, duration: UInt16, period: UInt16)
    case leExtendedCreateConnection(CreateConnectionParameters)
    case other(opcode: UInt16, parameters: [UInt8])

    public var opcode: UInt16 {
        switch self {
        case .reset: HCIOpcode.reset
        case .setEventMask: HCIOpcode.setEventMask
        case .readLocalSupportedFeatures: HCIOpcode.readLocalSupportedFeatures
        case .readBufferSize: HCIOpcode.readBufferSize
        case .readBDADDR: HCIOpcode.readBDADDR
        case .disconnect: HCIOpcode.disconnect
        case .leSetEventMask: HCIOpcode.leSetEventMask
        case .leReadBufferSize: HCIOpcode.leReadBufferSize
        case .leReadLocalSupportedFeatures: HCIOpcode.leReadLocalSupportedFeatures
        case .leSetRandomAddress: HCIOpcode.leSetRandomAddress
        case .leSetAdvertisingParameters: HCIOpcode.leSetAdvertisingParameters
        case .leSetAdvertisingData: HCIOpcode.leSetAdvertisingData
        case .leSetScanResponseData: HCIOpcode.leSetScanResponseData
        case .leSetAdvertisingEnable: HCIOpcode.leSetAdvertisingEnable
        case .leSetScanParameters: HCIOpcode.leSetScanParameters
        case .leSetScanEnable: HCIOpcode.leSetScanEnable
        case .leCreateConnection: HCIOpcode.leCreateConnection
        case .leCreateConnectionCancel: HCIOpcode.leCreateConnectionCancel
        case .leConnectionUpdate: HCIOpcode.leConnectionUpdate
        case .leSetAdvertisingSetRandomAddress: HCIOpcode.leSetAdvertisingSetRandomAddress
        case .leSetExtendedAdvertisingParameters: HCIOpcode.leSetExtendedAdvertisingParameters
        case .leSetExtendedAdvertisingData: HCIOpcode.leSetExtendedAdvertisingData
        case .leSetExtendedScanResponseData: HCIOpcode.leSetExtendedScanResponseData
        case .leSetExtendedAdvertisingEnable: HCIOpcode.leSetExtendedAdvertisingEnable
        case .leReadNumberOfSupportedAdvertisingSets: HCIOpcode.leReadNumberOfSupportedAdvertisingSets
        case .leSetExtendedScanParameters: HCIOpcode.leSetExtendedScanParameters
        case .leSetExtendedScanEnable: HCIOpcode.leSetExtendedScanEnable
        case .leExtendedCreateConnection: HCIOpcode.leExtendedCreateConnection
        case .other(let op, _): op
        }
    }

    /// Parameters only (no opcode or length).
    public var parameters: [UInt8] {
        var w = HostWriter(capacity: 32)
        switch self {
        case .reset, .readLocalSupportedFeatures, .readBufferSize, .readBDADDR, .leReadBufferSize,
             .leReadLocalSupportedFeatures, .leCreateConnectionCancel, .leReadNumberOfSupportedAdvertisingSets:
            break
        case .setEventMask(let m), .leSetEventMask(let m):
            w.writeU64(m)
        case .disconnect(let h, let reason):
            w.writeU16(h); w.writeU8(reason)
        case .leSetRandomAddress(let a):
            w.write(a.littleEndianBytes)
        case .leSetAdvertisingParameters(let p):
            w.writeU16(p.intervalMin); w.writeU16(p.intervalMax); w.writeU8(p.advertisingType)
            w.writeU8(p.ownAddressType.rawValue); w.writeU8(p.peerAddressType.rawValue); w.write(p.peerAddress)
            w.writeU8(p.channelMap); w.writeU8(p.filterPolicy)
        case .leSetAdvertisingData(let d), .leSetScanResponseData(let d):
            let d = d.prefix(31); w.writeU8(UInt8(d.count)); w.write(d); w.write(repeatElement(0, count: 31 - d.count))
        case .leSetAdvertisingEnable(let e):
            w.writeU8(e ? 1 : 0)
        case .leSetScanParameters(let p):
            w.writeU8(p.scanType); w.writeU16(p.interval); w.writeU16(p.window)
            w.writeU8(p.ownAddressType.rawValue); w.writeU8(p.filterPolicy)
        case .leSetScanEnable(let e, let d):
            w.writeU8(e ? 1 : 0); w.writeU8(d ? 1 : 0)
        case .leCreateConnection(let p):
            w.writeU16(p.scanInterval); w.writeU16(p.scanWindow); w.writeU8(p.initiatorFilterPolicy)
            w.writeU8(p.peer.type.rawValue); w.write(p.peer.littleEndianBytes); w.writeU8(p.ownAddressType.rawValue)
            p.connection.write(to: &w)
        case .leConnectionUpdate(let h, let p):
            w.writeU16(h); p.write(to: &w)
        case .leSetAdvertisingSetRandomAddress(let h, let a):
            w.writeU8(h); w.write(a.littleEndianBytes)
        case .leSetExtendedAdvertisingParameters(let p):
            w.writeU8(p.handle); w.writeU16(p.eventProperties); w.writeU24(p.intervalMin); w.writeU24(p.intervalMax)
            w.writeU8(p.channelMap); w.writeU8(p.ownAddressType.rawValue); w.writeU8(p.peerAddressType.rawValue)
            w.write(p.peerAddress); w.writeU8(p.filterPolicy); w.writeI8(p.txPower); w.writeU8(p.primaryPHY)
            w.writeU8(p.secondaryMaxSkip); w.writeU8(p.secondaryPHY); w.writeU8(p.sid); w.writeU8(p.scanRequestNotification)
        case .leSetExtendedAdvertisingData(let h, let op, let frag, let d), .leSetExtendedScanResponseData(let h, let op, let frag, let d):
            let d = d.prefix(255); w.writeU8(h); w.writeU8(op); w.writeU8(frag); w.writeU8(UInt8(d.count)); w.write(d)
        case .leSetExtendedAdvertisingEnable(let e, let sets):
            let sets = sets.prefix(63); w.writeU8(e ? 1 : 0); w.writeU8(UInt8(sets.count))
            for s in sets { w.writeU8(s.handle); w.writeU16(s.duration); w.writeU8(s.maxEvents) }
        case .leSetExtendedScanParameters(let p):
            w.writeU8(p.ownAddressType.rawValue); w.writeU8(p.filterPolicy); w.writeU8(0x01)
            w.writeU8(p.scanType); w.writeU16(p.interval); w.writeU16(p.window)
        case .leSetExtendedScanEnable(let e, let d, let dur, let per):
            w.writeU8(e ? 1 : 0); w.writeU8(d); w.writeU16(dur); w.writeU16(per)
        case .leExtendedCreateConnection(let p):
            w.writeU8(p.initiatorFilterPolicy); w.writeU8(p.ownAddressType.rawValue); w.writeU8(p.peer.type.rawValue)
            w.write(p.peer.littleEndianBytes); w.writeU8(0x01)
            w.writeU16(p.scanInterval); w.writeU16(p.scanWindow); p.connection.write(to: &w)
        case .other(_, let params):
            w.write(params)
        }
        return w.bytes
    }

    /// The HCI command packet. Callers keep parameters within 255 bytes (every typed command does;
    /// `other` and the extended data commands are checked by `LEHost` before they are built).
    public func encoded() -> [UInt8] {
        let p = parameters.prefix(255)
        var w = HostWriter(capacity: 3 + p.count)
        w.writeU16(opcode); w.writeU8(UInt8(truncatingIfNeeded: p.count)); w.write(p)
        return w.bytes
    }

    public var h4: H4Packet { .command(encoded()) }

    public init(decoding bytes: ArraySlice<UInt8>) throws(HostWireError) {
        var outer = HostReader(bytes)
        let opcode = try outer.readU16()
        let length = Int(try outer.readU8())
        let params = try outer.readBytes(length)
        try outer.expectEnd()
        var r = HostReader(params)
        func bool(_ v: UInt8) throws(HostWireError) -> Bool {
            guard v <= 1 else { throw HostWireError(.badValue, "enable byte 0x\([v].hostHex)") }
            return v == 1
        }
        switch opcode {
        case HCIOpcode.reset: self = .reset
        case HCIOpcode.readLocalSupportedFeatures: self = .readLocalSupportedFeatures
        case HCIOpcode.readBufferSize: self = .readBufferSize
        case HCIOpcode.readBDADDR: self = .readBDADDR
        case HCIOpcode.leReadBufferSize: self = .leReadBufferSize
        case HCIOpcode.leReadLocalSupportedFeatures: self = .leReadLocalSupportedFeatures
        case HCIOpcode.leCreateConnectionCancel: self = .leCreateConnectionCancel
        case HCIOpcode.leReadNumberOfSupportedAdvertisingSets: self = .leReadNumberOfSupportedAdvertisingSets
        case HCIOpcode.setEventMask: self = .setEventMask(try r.readU64())
        case HCIOpcode.leSetEventMask: self = .leSetEventMask(try r.readU64())
        case HCIOpcode.disconnect:
            let h = try r.readU16()
            guard h <= 0x0EFF else { throw HostWireError(.badHandle, "handle 0x\(String(h, radix: 16))") }
            self = .disconnect(handle: h, reason: try r.readU8())
        case HCIOpcode.leSetRandomAddress:
            self = .leSetRandomAddress(try BluetoothAddress(littleEndian: try r.readBytes(6), type: .random))
        case HCIOpcode.leSetAdvertisingParameters:
            var p = LegacyAdvertisingParameters()
            p.intervalMin = try r.readU16(); p.intervalMax = try r.readU16(); p.advertisingType = try r.readU8()
            p.ownAddressType = AddressType(rawValue: try r.readU8()); p.peerAddressType = AddressType(rawValue: try r.readU8())
            p.peerAddress = try r.readArray(6); p.channelMap = try r.readU8(); p.filterPolicy = try r.readU8()
            self = .leSetAdvertisingParameters(p)
        case HCIOpcode.leSetAdvertisingData, HCIOpcode.leSetScanResponseData:
            let n = Int(try r.readU8())
            let field = try r.readBytes(31)
            guard n <= 31 else { throw HostWireError(.lengthMismatch, "data length \(n) above 31") }
            guard field.dropFirst(n).allSatisfy({ $0 == 0 }) else {
                throw HostWireError(.badValue, "non-zero padding after \(n) byte(s) of data")
            }
            let d = Array(field.prefix(n))
            self = opcode == HCIOpcode.leSetAdvertisingData ? .leSetAdvertisingData(d) : .leSetScanResponseData(d)
        case HCIOpcode.leSetAdvertisingEnable: self = .leSetAdvertisingEnable(try bool(try r.readU8()))
        case HCIOpcode.leSetScanParameters:
            var p = LegacyScanParameters()
            p.scanType = try r.readU8(); p.interval = try r.readU16(); p.window = try r.readU16()
            p.ownAddressType = AddressType(rawValue: try r.readU8()); p.filterPolicy = try r.readU8()
            self = .leSetScanParameters(p)
        case HCIOpcode.leSetScanEnable:
            self = .leSetScanEnable(enable: try bool(try r.readU8()), filterDuplicates: try bool(try r.readU8()))
        case HCIOpcode.leCreateConnection:
            let si = try r.readU16(), sw = try r.readU16(), fp = try r.readU8()
            let pt = AddressType(rawValue: try r.readU8())
            var p = CreateConnectionParameters(peer: try BluetoothAddress(littleEndian: try r.readBytes(6), type: pt))
            p.scanInterval = si; p.scanWindow = sw; p.initiatorFilterPolicy = fp
            p.ownAddressType = AddressType(rawValue: try r.readU8())
            p.connection = try ConnectionParameters.read(&r)
            self = .leCreateConnection(p)
        case HCIOpcode.leConnectionUpdate:
            let h = try r.readU16()
            guard h <= 0x0EFF else { throw HostWireError(.badHandle, "handle 0x\(String(h, radix: 16))") }
            self = .leConnectionUpdate(handle: h, try ConnectionParameters.read(&r))
        case HCIOpcode.leSetAdvertisingSetRandomAddress:
            let h = try r.readU8()
            self = .leSetAdvertisingSetRandomAddress(handle: h, try BluetoothAddress(littleEndian: try r.readBytes(6), type: .random))
        case HCIOpcode.leSetExtendedAdvertisingParameters:
            var p = ExtendedAdvertisingParameters()
            p.handle = try r.readU8(); p.eventProperties = try r.readU16(); p.intervalMin = try r.readU24(); p.intervalMax = try r.readU24()
            p.channelMap = try r.readU8(); p.ownAddressType = AddressType(rawValue: try r.readU8())
            p.peerAddressType = AddressType(rawValue: try r.readU8()); p.peerAddress = try r.readArray(6)
            p.filterPolicy = try r.readU8(); p.txPower = try r.readI8(); p.primaryPHY = try r.readU8()
            p.secondaryMaxSkip = try r.readU8(); p.secondaryPHY = try r.readU8(); p.sid = try r.readU8()
            p.scanRequestNotification = try r.readU8()
            self = .leSetExtendedAdvertisingParameters(p)
        case HCIOpcode.leSetExtendedAdvertisingData, HCIOpcode.leSetExtendedScanResponseData:
            let h = try r.readU8(), op = try r.readU8(), frag = try r.readU8()
            let n = Int(try r.readU8())
            let d = try r.readArray(n)
            self = opcode == HCIOpcode.leSetExtendedAdvertisingData
                ? .leSetExtendedAdvertisingData(handle: h, operation: op, fragmentPreference: frag, data: d)
                : .leSetExtendedScanResponseData(handle: h, operation: op, fragmentPreference: frag, data: d)
        case HCIOpcode.leSetExtendedAdvertisingEnable:
            let e = try bool(try r.readU8())
            let n = Int(try r.readU8())
            guard r.remaining == n * 4 else { throw HostWireError(.lengthMismatch, "\(n) set(s) need \(n * 4) byte(s), \(r.remaining) follow") }
            var sets: [AdvertisingSetEnable] = []
            for _ in 0..<n { sets.append(AdvertisingSetEnable(handle: try r.readU8(), duration: try r.readU16(), maxEvents: try r.readU8())) }
            self = .leSetExtendedAdvertisingEnable(enable: e, sets: sets)
        case HCIOpcode.leSetExtendedScanParameters:
            var p = ExtendedScanParameters()
            p.ownAddressType = AddressType(rawValue: try r.readU8()); p.filterPolicy = try r.readU8()
            let phys = try r.readU8()
            guard phys == 0x01 else { throw HostWireError(.badValue, "scanning PHYs 0x\([phys].hostHex); only 1M (0x01) is typed") }
            p.scanType = try r.readU8(); p.interval = try r.readU16(); p.window = try r.readU16()
            self = .leSetExtendedScanParameters(p)
        case HCIOpcode.leSetExtendedScanEnable:
            self = .leSetExtendedScanEnable(enable: try bool(try r.readU8()), filterDuplicates: try r.readU8(), duration: try r.readU16(), period: try r.readU16())
        case HCIOpcode.leExtendedCreateConnection:
            let fp = try r.readU8(), own = AddressType(rawValue: try r.readU8()), pt = AddressType(rawValue: try r.readU8())
            var p = CreateConnectionParameters(peer: try BluetoothAddress(littleEndian: try r.readBytes(6), type: pt))
            p.initiatorFilterPolicy = fp; p.ownAddressType = own
            let phys = try r.readU8()
            guard phys == 0x01 else { throw HostWireError(.badValue, "initiating PHYs 0x\([phys].hostHex); only 1M (0x01) is typed") }
            p.scanInterval = try r.readU16(); p.scanWindow = try r.readU16()
            p.connection = try ConnectionParameters.read(&r)
            self = .leExtendedCreateConnection(p)
        default:
            self = .other(opcode: opcode, parameters: Array(params))
            return
        }
        try r.expectEnd()
    }

    public init(decoding bytes: [UInt8]) throws(HostWireError) { try self.init(decoding: bytes[...]) }
}
