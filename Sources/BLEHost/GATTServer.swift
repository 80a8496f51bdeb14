/// A characteristic the upper layer registers on the host's GATT server.
public struct GATTCharacteristicDefinition: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    /// What reads return. Writes do not change it: the server is a message pipe for the dialect
    /// (each write goes up as an event), not storage. `LEHost.setValue` replaces it.
    public var value: [UInt8]
    /// Longest value a write (or long write) may carry; 512 is the ATT limit.
    public var maxLength: Int
    public init(uuid: BluetoothUUID, properties: CharacteristicProperties, value: [UInt8] = [], maxLength: Int = 512) {
        self.uuid = uuid; self.properties = properties; self.value = value; self.maxLength = min(max(0, maxLength), 512)
    }
    /// A CCCD is added when the characteristic can notify or indicate.
    public var hasCCCD: Bool { !properties.isDisjoint(with: [.notify, .indicate]) }
}

/// A primary service to register.
public struct GATTServiceDefinition: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var characteristics: [GATTCharacteristicDefinition]
    public init(uuid: BluetoothUUID, characteristics: [GATTCharacteristicDefinition]) {
        self.uuid = uuid; self.characteristics = characteristics
    }
}

/// The handles the server gave a registered characteristic.
public struct RegisteredCharacteristic: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    public var declarationHandle: UInt16
    public var valueHandle: UInt16
    public var cccdHandle: UInt16?
}

/// The handles the server gave a registered service.
public struct RegisteredService: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var startHandle: UInt16
    public var endHandle: UInt16
    public var characteristics: [RegisteredCharacteristic]

    public func characteristic(_ uuid: BluetoothUUID) -> RegisteredCharacteristic? {
        characteristics.first { $0.uuid.matches(uuid) }
    }
}

/// What a client did to the server that the upper layer must know.
public enum GATTServerEvent: Hashable, Sendable {
    public enum WriteKind: Hashable, Sendable { case request, command, long }
    /// A value written to a characteristic (after Execute Write for a long write).
    case write(valueHandle: UInt16, value: [UInt8], kind: WriteKind)
    /// The client wrote a characteristic's CCCD: bit 0 notifications, bit 1 indications.
    case subscription(valueHandle: UInt16, notify: Bool, indicate: Bool)
}

/// What the server keeps per connection: CCCD values, the prepared-write queue, and the values
/// reads return on this connection where they differ from the database's.
public struct GATTServerConnection: Sendable {
    /// CCCD value per characteristic value handle.
    public internal(set) var subscriptions: [UInt16: UInt16] = [:]
    /// What reads of a characteristic return on this connection, by value handle, in place of
    /// the database's value: a host playing several identities gives each its own node id
    /// (`LEHost.setValue(_:valueHandle:forLocalAddress:)`).
    public var values: [UInt16: [UInt8]] = [:]
    var prepared: [(handle: UInt16, offset: Int, value: [UInt8])] = []
    var preparedBytes = 0
    public init() {}
    public func isSubscribed(_ valueHandle: UInt16) -> Bool { (subscriptions[valueHandle] ?? 0) & 0x0001 != 0 }
    public var preparedWrites: Int { prepared.count }
}

/// The attribute table and the ATT server logic over it (Core Vol 3 Part F 3.4 and Part G 4).
/// Pure: the host passes each request with the connection's state and MTU and sends the response.
public struct GATTDatabase: Sendable {
    enum Kind: Sendable {
        case service(uuid: BluetoothUUID, end: UInt16)
        case declaration(properties: CharacteristicProperties, valueHandle: UInt16, uuid: BluetoothUUID)
        case value(GATTCharacteristicDefinition)
        case cccd(valueHandle: UInt16)
    }
    struct Attribute: Sendable {
        var handle: UInt16
        var type: BluetoothUUID
        var kind: Kind
    }

    /// Most attributes the table holds; registration beyond it fails.
    public let maxAttributes: Int
    /// Prepared writes queued per connection, and their total bytes.
    public let maxPreparedWrites: Int
    public let maxPreparedBytes: Int
    private(set) var attributes: [Attribute] = []
    public private(set) var services: [RegisteredService] = []

    public init(maxAttributes: Int = 512, maxPreparedWrites: Int = 64, maxPreparedBytes: Int = 2048) {
        self.maxAttributes = min(maxAttributes, 0xFFFE)
        self.maxPreparedWrites = maxPreparedWrites
        self.maxPreparedBytes = maxPreparedBytes
    }

    public enum RegistrationError: Error, Hashable, Sendable { case tableFull }

    /// Appends a primary service after the existing ones and returns its handles.
    public mutating func register(_ service: GATTServiceDefinition) throws(RegistrationError) -> RegisteredService {
        let needed = 1 + service.characteristics.reduce(0) { $0 + ($1.hasCCCD ? 3 : 2) }
        guard attributes.count + needed <= maxAttributes else { throw .tableFull }
        var handle = UInt16(attributes.count + 1)
        let start = handle
        let end = start + UInt16(needed - 1)
        var new: [Attribute] = [Attribute(handle: handle, type: .primaryService, kind: .service(uuid: service.uuid, end: end))]
        var chars: [RegisteredCharacteristic] = []
        for c in service.characteristics {
            let decl = handle + 1, value = handle + 2
            new.append(Attribute(handle: decl, type: .characteristic, kind: .declaration(properties: c.properties, valueHandle: value, uuid: c.uuid)))
            new.append(Attribute(handle: value, type: c.uuid, kind: .value(c)))
            handle = value
            var cccd: UInt16?
            if c.hasCCCD {
                handle += 1
                cccd = handle
                new.append(Attribute(handle: handle, type: .clientCharacteristicConfiguration, kind: .cccd(valueHandle: value)))
            }
            chars.append(RegisteredCharacteristic(uuid: c.uuid, properties: c.properties, declarationHandle: decl, valueHandle: value, cccdHandle: cccd))
        }
        attributes += new
        let registered = RegisteredService(uuid: service.uuid, startHandle: start, endHandle: end, characteristics: chars)
        services.append(registered)
        return registered
    }

    /// Replaces what reads of a characteristic return. False when `valueHandle` is not a characteristic value.
    public mutating func setValue(_ value: [UInt8], at valueHandle: UInt16) -> Bool {
        guard let i = index(of: valueHandle), case .value(var def) = attributes[i].kind else { return false }
        def.value = Array(value.prefix(512))
        attributes[i].kind = .value(def)
        return true
    }

    public func characteristic(valueHandle: UInt16) -> GATTCharacteristicDefinition? {
        guard let i = index(of: valueHandle), case .value(let def) = attributes[i].kind else { return nil }
        return def
    }

    private func index(of handle: UInt16) -> Int? {
        // Handles are 1...count in order, so the index is the handle minus one.
        let i = Int(handle) - 1
        return i >= 0 && i < attributes.count ? i : nil
    }

    private func readValue(_ a: Attribute, _ conn: GATTServerConnection) -> [UInt8] {
        switch a.kind {
        case .service(let uuid, _): return uuid.littleEndianBytes
        case .declaration(let p, let vh, let uuid): return [p.rawValue, UInt8(vh & 0xFF), UInt8(vh >> 8)] + uuid.littleEndianBytes
        case .value(let def): return conn.values[a.handle] ?? def.value
        case .cccd(let vh):
            let v = conn.subscriptions[vh] ?? 0
            return [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
    }

    private func readable(_ a: Attribute) -> Bool {
        if case .value(let def) = a.kind { return def.properties.contains(.read) }
        return true
    }

    private func range(_ start: UInt16, _ end: UInt16) -> ArraySlice<Attribute>? {
        guard start != 0, start <= end else { return nil }
        guard let first = index(of: start) else { return [] }
        let last = min(Int(end), attributes.count) - 1
        return attributes[first...last]
    }

    /// The response to one ATT PDU from a client (nil for commands and for PDUs a server does
    /// not answer), plus what the upper layer must hear.
    public func serve(_ pdu: ATTPDU, connection conn: inout GATTServerConnection, mtu: Int) -> (response: ATTPDU?, events: [GATTServerEvent]) {
        let op = pdu.opcode
        func error(_ handle: UInt16, _ code: UInt8) -> (ATTPDU?, [GATTServerEvent]) {
            (.errorResponse(request: op, handle: handle, error: code), [])
        }
        switch pdu {
        case .exchangeMTURequest:
            // The host handles MTU itself (it owns the connection's MTU); answered there.
            return (nil, [])

        case .findInformationRequest(let s, let e):
            guard let attrs = range(s, e) else { return error(s, ATTError.invalidHandle) }
            var out: [ATTHandleUUID] = []
            var room = mtu - 2
            for a in attrs {
                let u = a.type.byteCount == 2 ? a.type : BluetoothUUID(bigEndianUnchecked: a.type.expanded)
                if let first = out.first, first.uuid.byteCount != u.byteCount { break }
                let size = 2 + u.byteCount
                guard room >= size else { break }
                room -= size
                out.append(ATTHandleUUID(handle: a.handle, uuid: u))
            }
            return out.isEmpty ? error(s, ATTError.attributeNotFound) : (.findInformationResponse(out), [])

        case .findByTypeValueRequest(let s, let e, let type, let value):
            guard let attrs = range(s, e) else { return error(s, ATTError.invalidHandle) }
            var out: [ATTHandleRange] = []
            for a in attrs where a.type.uuid16 == type && readValue(a, conn) == value {
                guard (out.count + 1) * 4 <= mtu - 1 else { break }
                if case .service(_, let end) = a.kind { out.append(ATTHandleRange(start: a.handle, end: end)) }
                else { out.append(ATTHandleRange(start: a.handle, end: a.handle)) }
            }
            return out.isEmpty ? error(s, ATTError.attributeNotFound) : (.findByTypeValueResponse(out), [])

        case .readByTypeRequest(let s, let e, let type):
            guard let attrs = range(s, e) else { return error(s, ATTError.invalidHandle) }
            var out: [ATTHandleValue] = []
            var room = mtu - 2
            for a in attrs where a.type.matches(type) {
                guard readable(a) else {
                    if out.isEmpty { return error(a.handle, ATTError.readNotPermitted) }
                    break
                }
                let v = Array(readValue(a, conn).prefix(min(mtu - 4, 253)))
                if let first = out.first, first.value.count != v.count { break }
                guard room >= 2 + v.count else { break }
                room -= 2 + v.count
                out.append(ATTHandleValue(handle: a.handle, value: v))
            }
            return out.isEmpty ? error(s, ATTError.attributeNotFound) : (.readByTypeResponse(out), [])

        case .readByGroupTypeRequest(let s, let e, let type):
            guard let attrs = range(s, e) else { return error(s, ATTError.invalidHandle) }
            guard type.matches(.primaryService) || type.matches(.secondaryService) else { return error(s, ATTError.unsupportedGroupType) }
            var out: [ATTGroupValue] = []
            var room = mtu - 2
            for a in attrs where a.type.matches(type) {
                guard case .service(let uuid, let end) = a.kind else { continue }
                let v = Array(uuid.littleEndianBytes.prefix(min(mtu - 6, 251)))
                if let first = out.first, first.value.count != v.count { break }
                guard room >= 4 + v.count else { break }
                room -= 4 + v.count
                out.append(ATTGroupValue(handle: a.handle, end: end, value: v))
            }
            return out.isEmpty ? error(s, ATTError.attributeNotFound) : (.readByGroupTypeResponse(out), [])

        case .readRequest(let h):
            guard let i = index(of: h) else { return error(h, ATTError.invalidHandle) }
            guard readable(attributes[i]) else { return error(h, ATTError.readNotPermitted) }
            return (.readResponse(Array(readValue(attributes[i], conn).prefix(mtu - 1))), [])

        case .readBlobRequest(let h, let offset):
            guard let i = index(of: h) else { return error(h, ATTError.invalidHandle) }
            guard readable(attributes[i]) else { return error(h, ATTError.readNotPermitted) }
            let v = readValue(attributes[i], conn)
            guard Int(offset) <= v.count else { return error(h, ATTError.invalidOffset) }
            return (.readBlobResponse(Array(v[Int(offset)...].prefix(mtu - 1))), [])

        case .writeRequest(let h, let value), .writeCommand(let h, let value):
            let isCommand = op == 0x52
            // A write command gets no response, not even an error (Vol 3 Part F 3.4.5.3).
            func refuse(_ code: UInt8) -> (ATTPDU?, [GATTServerEvent]) { isCommand ? (nil, []) : error(h, code) }
            guard let i = index(of: h) else { return refuse(ATTError.invalidHandle) }
            switch attributes[i].kind {
            case .cccd(let vh):
                guard value.count == 2 else { return refuse(ATTError.invalidAttributeValueLength) }
                let v = UInt16(value[0]) | UInt16(value[1]) << 8
                conn.subscriptions[vh] = v & 0x0003
                return (isCommand ? nil : .writeResponse, [.subscription(valueHandle: vh, notify: v & 1 != 0, indicate: v & 2 != 0)])
            case .value(let def):
                let allowed = def.properties.contains(isCommand ? .writeWithoutResponse : .write)
                guard allowed else { return refuse(ATTError.writeNotPermitted) }
                guard value.count <= def.maxLength else { return refuse(ATTError.invalidAttributeValueLength) }
                return (isCommand ? nil : .writeResponse, [.write(valueHandle: h, value: value, kind: isCommand ? .command : .request)])
            default:
                return refuse(ATTError.writeNotPermitted)
            }

        case .prepareWriteRequest(let h, let offset, let value):
            guard let i = index(of: h) else { return error(h, ATTError.invalidHandle) }
            guard case .value(let def) = attributes[i].kind, def.properties.contains(.write) else {
                return error(h, ATTError.writeNotPermitted)
            }
            guard conn.prepared.count < maxPreparedWrites, conn.preparedBytes + value.count <= maxPreparedBytes else {
                return error(h, ATTError.prepareQueueFull)
            }
            conn.prepared.append((h, Int(offset), value))
            conn.preparedBytes += value.count
            return (.prepareWriteResponse(handle: h, offset: offset, value: value), [])

        case .executeWriteRequest(let flags):
            let queue = conn.prepared
            conn.prepared.removeAll()
            conn.preparedBytes = 0
            guard flags == 1 else { return (.executeWriteResponse, []) }
            // Assemble per handle, in the order the parts came; offsets are checked now, as the spec allows.
            var order: [UInt16] = []
            var values: [UInt16: [UInt8]] = [:]
            for part in queue {
                var v = values[part.handle] ?? { order.append(part.handle); return [] }()
                guard part.offset <= v.count else { return error(part.handle, ATTError.invalidOffset) }
                let limit = characteristic(valueHandle: part.handle)?.maxLength ?? 512
                guard part.offset + part.value.count <= limit else { return error(part.handle, ATTError.invalidAttributeValueLength) }
                v.replaceSubrange(part.offset..<min(v.count, part.offset + part.value.count), with: part.value)
                values[part.handle] = v
            }
            return (.executeWriteResponse, order.map { .write(valueHandle: $0, value: values[$0]!, kind: .long) })

        case .handleValueNotification, .handleValueIndication, .handleValueConfirmation, .errorResponse, .exchangeMTUResponse,
             .findInformationResponse, .findByTypeValueResponse, .readByTypeResponse, .readResponse, .readBlobResponse,
             .readByGroupTypeResponse, .writeResponse, .prepareWriteResponse, .executeWriteResponse:
            // Client-side PDUs: the host routes them to its client, never here.
            return (nil, [])

        case .unknown(let opcode, _):
            if ATTPDU.isCommand(opcode) { return (nil, []) }
            return (.errorResponse(request: opcode, handle: 0, error: ATTError.requestNotSupported), [])
        }
    }
}

extension BluetoothUUID {
    /// For sizes already known to be valid.
    init(bigEndianUnchecked bytes: [UInt8]) {
        self = (try? BluetoothUUID(bigEndian: bytes)) ?? BluetoothUUID(0)
    }
}
