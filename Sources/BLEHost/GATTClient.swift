/// A characteristic found by discovery.
public struct DiscoveredCharacteristic: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties
    public var declarationHandle: UInt16
    public var valueHandle: UInt16
    public var descriptors: [ATTHandleUUID]
    public var cccdHandle: UInt16? { descriptors.first { $0.uuid.matches(.clientCharacteristicConfiguration) }?.handle }
}

/// A primary service found by discovery, with its characteristics and their descriptors.
public struct DiscoveredService: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var startHandle: UInt16
    public var endHandle: UInt16
    public var characteristics: [DiscoveredCharacteristic]
    public func characteristic(_ uuid: BluetoothUUID) -> DiscoveredCharacteristic? { characteristics.first { $0.uuid.matches(uuid) } }
}

/// How a host operation ended well.
public enum OperationResult: Hashable, Sendable {
    case done
    case connected(handle: UInt16)
    case mtu(Int)
    case service(DiscoveredService)
    case value([UInt8])
}

/// Why a host operation failed. Every wait ends in a result or one of these.
public enum HostFailure: Error, Hashable, Sendable {
    /// The host is not powered on (or the controller failed).
    case notReady
    /// One of these at a time (connect, power on): another is under way.
    case busy
    /// A connect to another peer or from another address while an earlier connect to `peer`,
    /// which timed out and was cancelled, has not ended yet: the controller still initiates it
    /// (Bumble's until `peer` advertises) and would refuse a second one.
    case cancelledConnectPending(peer: BluetoothAddress)
    case invalidParameter(String)
    /// The controller refused a command.
    case controllerStatus(opcode: UInt16, status: UInt8)
    /// No answer within the operation's timeout (connect, ATT transaction, HCI command).
    case timeout
    case disconnected(reason: UInt8)
    case notConnected
    /// The peer answered an ATT request with an Error Response.
    case attError(request: UInt8, handle: UInt16, code: UInt8)
    /// An earlier ATT transaction timed out: no more ATT on this connection (Vol 3 Part F 3.3.3).
    case attBearerClosed
    /// A bounded queue is full.
    case queueFull
    /// Notification refused: the client has not enabled notifications.
    case notSubscribed
    case tooLarge(size: Int, limit: Int)
    /// Discovery: the service (or the handle) is not on the peer.
    case notFound
    /// The peer's answer does not make sense (bad declaration, no progress, ...).
    case badResponse(String)
    case hardwareError(UInt8)
    /// The controller did not answer this HCI command within `LEHostConfig.commandTimeout`.
    case commandTimeout(opcode: UInt16)
    /// The host was powered on again while the operation was pending.
    case reset
}

/// One client procedure on one connection: a sequence of ATT requests, each answered before
/// the next (Vol 3 Part G 4). Pure: `LEHost` sends what it returns and feeds the responses.
struct GATTClientProcedure: Sendable {
    enum Step: Sendable {
        case send(ATTPDU)
        case done(OperationResult)
        case fail(HostFailure)
    }

    enum Kind: Sendable {
        case mtu(UInt16)
        case findService(BluetoothUUID)
        case characteristics(DiscoveredService, next: UInt16)
        case descriptors(DiscoveredService, index: Int, next: UInt16)
        case write(handle: UInt16, value: [UInt8])
        case longWrite(handle: UInt16, value: [UInt8], offset: Int, chunk: Int)
        case executing(handle: UInt16)
        case cancelling(HostFailure)
        case read(handle: UInt16, value: [UInt8])
    }

    /// Discovery bounds: a hostile peer cannot make the client collect without end.
    static let maxCharacteristics = 64
    static let maxDescriptorsPerCharacteristic = 16
    static let maxValue = 512

    var kind: Kind
    /// The request opcode awaiting its response.
    private(set) var awaiting: UInt8 = 0

    init(_ kind: Kind) { self.kind = kind }

    mutating func start(mtu: Int) -> Step {
        switch kind {
        case .mtu(let m): return send(.exchangeMTURequest(mtu: m))
        case .findService(let uuid):
            return send(.findByTypeValueRequest(start: 1, end: 0xFFFF, type: 0x2800, value: uuid.littleEndianBytes))
        case .write(let h, let v):
            guard v.count <= Self.maxValue else { return .fail(.tooLarge(size: v.count, limit: Self.maxValue)) }
            if v.count <= mtu - 3 { return send(.writeRequest(handle: h, value: v)) }
            kind = .longWrite(handle: h, value: v, offset: 0, chunk: 0)
            return nextPrepare(mtu: mtu)
        case .read(let h, _): return send(.readRequest(handle: h))
        default: return .fail(.badResponse("procedure started twice"))
        }
    }

    private mutating func send(_ pdu: ATTPDU) -> Step {
        awaiting = pdu.opcode
        return .send(pdu)
    }

    private mutating func nextPrepare(mtu: Int) -> Step {
        guard case .longWrite(let h, let v, let offset, _) = kind else { return .fail(.badResponse("not a long write")) }
        if offset >= v.count {
            kind = .executing(handle: h)
            return send(.executeWriteRequest(flags: 1))
        }
        let n = min(max(1, mtu - 5), v.count - offset)
        kind = .longWrite(handle: h, value: v, offset: offset, chunk: n)
        return send(.prepareWriteRequest(handle: h, offset: UInt16(offset), value: Array(v[offset..<offset + n])))
    }

    /// True when `pdu` answers the outstanding request (its response opcode, or an Error
    /// Response naming it); anything else is not for this procedure.
    func answers(_ pdu: ATTPDU) -> Bool {
        if case .errorResponse(let req, _, _) = pdu { return req == awaiting }
        return pdu.opcode == awaiting + 1
    }

    mutating func advance(_ pdu: ATTPDU, mtu: Int) -> Step {
        if case .errorResponse(let req, let h, let code) = pdu {
            return onError(req: req, handle: h, code: code, mtu: mtu)
        }
        switch (kind, pdu) {
        case (.mtu(let offered), .exchangeMTUResponse(let m)):
            // Core Vol 3 Part F 3.4.2.2: the ATT_MTU is the smaller of the client's and the server's.
            return .done(.mtu(Int(min(m, offered))))

        case (.findService(let uuid), .findByTypeValueResponse(let ranges)):
            let r = ranges[0]
            guard r.start != 0, r.start <= r.end else { return .fail(.badResponse("service range \(r.start)-\(r.end)")) }
            let s = DiscoveredService(uuid: uuid, startHandle: r.start, endHandle: r.end, characteristics: [])
            return discoverCharacteristics(s, from: r.start)

        case (.characteristics(var s, let next), .readByTypeResponse(let entries)):
            var last = next
            for e in entries {
                guard e.handle >= next, e.handle <= s.endHandle, e.value.count == 5 || e.value.count == 19 else {
                    return .fail(.badResponse("characteristic declaration at \(e.handle)"))
                }
                let vh = UInt16(e.value[1]) | UInt16(e.value[2]) << 8
                guard let uuid = try? BluetoothUUID(littleEndian: e.value[3...]) else { return .fail(.badResponse("characteristic UUID")) }
                guard s.characteristics.count < Self.maxCharacteristics else { return .fail(.badResponse("more than \(Self.maxCharacteristics) characteristics")) }
                s.characteristics.append(DiscoveredCharacteristic(uuid: uuid, properties: CharacteristicProperties(rawValue: e.value[0]),
                                                                  declarationHandle: e.handle, valueHandle: vh, descriptors: []))
                last = e.handle
            }
            // Every response must move forward, so a peer repeating itself cannot loop the client.
            guard last < s.endHandle else { return discoverDescriptors(s, index: 0) }
            return discoverCharacteristics(s, from: last + 1)

        case (.descriptors(var s, let i, _), .findInformationResponse(let list)):
            let end = descriptorRangeEnd(s, i)
            var last: UInt16 = 0
            for d in list {
                guard d.handle > s.characteristics[i].valueHandle, d.handle <= end, d.handle > last else {
                    return .fail(.badResponse("descriptor handle \(d.handle)"))
                }
                guard s.characteristics[i].descriptors.count < Self.maxDescriptorsPerCharacteristic else { break }
                s.characteristics[i].descriptors.append(d)
                last = d.handle
            }
            if last < end, s.characteristics[i].descriptors.count < Self.maxDescriptorsPerCharacteristic {
                kind = .descriptors(s, index: i, next: last + 1)
                return send(.findInformationRequest(start: last + 1, end: end))
            }
            return discoverDescriptors(s, index: i + 1)

        case (.write, .writeResponse):
            return .done(.done)

        case (.longWrite(let h, let v, let offset, let n), .prepareWriteResponse(let rh, let ro, let rv)):
            // The echo must match what was sent, or the server queued something else: cancel.
            guard rh == h, Int(ro) == offset, rv == Array(v[offset..<offset + n]) else {
                kind = .cancelling(.badResponse("prepare write echo differs"))
                return send(.executeWriteRequest(flags: 0))
            }
            kind = .longWrite(handle: h, value: v, offset: offset + n, chunk: 0)
            return nextPrepare(mtu: mtu)

        case (.executing, .executeWriteResponse):
            return .done(.done)

        case (.cancelling(let failure), .executeWriteResponse):
            return .fail(failure)

        case (.read(let h, var value), .readResponse(let v)), (.read(let h, var value), .readBlobResponse(let v)):
            value += v.prefix(Self.maxValue - value.count)
            // A full PDU may mean there is more: read on with Read Blob (long read).
            if v.count == mtu - 1, value.count < Self.maxValue {
                kind = .read(handle: h, value: value)
                return send(.readBlobRequest(handle: h, offset: UInt16(value.count)))
            }
            return .done(.value(value))

        default:
            return .fail(.badResponse("unexpected \(pdu.opcode) for the outstanding request"))
        }
    }

    private mutating func onError(req: UInt8, handle: UInt16, code: UInt8, mtu: Int) -> Step {
        switch kind {
        case .findService where code == ATTError.attributeNotFound:
            return .fail(.notFound)
        case .characteristics(let s, _) where code == ATTError.attributeNotFound:
            return discoverDescriptors(s, index: 0)
        case .descriptors(let s, let i, _) where code == ATTError.attributeNotFound:
            return discoverDescriptors(s, index: i + 1)
        case .read(_, let value) where req == 0x0C && (code == ATTError.attributeNotLong || code == ATTError.invalidOffset):
            return .done(.value(value))
        case .longWrite:
            // Drop what the server queued before reporting the error.
            kind = .cancelling(.attError(request: req, handle: handle, code: code))
            return send(.executeWriteRequest(flags: 0))
        case .cancelling(let failure):
            return .fail(failure)
        default:
            return .fail(.attError(request: req, handle: handle, code: code))
        }
    }

    private mutating func discoverCharacteristics(_ s: DiscoveredService, from start: UInt16) -> Step {
        kind = .characteristics(s, next: start)
        return send(.readByTypeRequest(start: start, end: s.endHandle, type: .characteristic))
    }

    private func descriptorRangeEnd(_ s: DiscoveredService, _ i: Int) -> UInt16 {
        i + 1 < s.characteristics.count ? s.characteristics[i + 1].declarationHandle &- 1 : s.endHandle
    }

    private mutating func discoverDescriptors(_ s: DiscoveredService, index: Int) -> Step {
        var i = index
        while i < s.characteristics.count {
            let start = s.characteristics[i].valueHandle &+ 1
            let end = descriptorRangeEnd(s, i)
            if start != 0, start <= end {
                kind = .descriptors(s, index: i, next: start)
                return send(.findInformationRequest(start: start, end: end))
            }
            i += 1
        }
        return .done(.service(s))
    }
}
