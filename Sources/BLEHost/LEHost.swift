/// A small LE host, sans-IO (quinn-proto / h11 style): `handle(input, at:)` consumes one input
/// with its time and returns the actions the caller must carry out (HCI packets to write,
/// timers to set, events for the upper layer). It does no I/O, reads no clock and draws no
/// randomness, so the same inputs give the same actions on Bumble, a real adapter or a test.
///
/// Layers, bottom up: HCI commands one at a time with a timeout; ACL flow control by the
/// controller's LE buffer count; L2CAP fragmentation and per-connection recombination; the LE
/// signalling channel (parameter updates accepted, unknown commands rejected); a minimal SMP
/// refusal; ATT server over the registered `GATTDatabase`; ATT client procedures, one request
/// outstanding per connection, each under the ATT timeout. See docs/ble-host.md.
public struct LEHost {
    public enum Phase: Hashable, Sendable { case off, initializing, ready, failed }

    enum Purpose: Hashable {
        case initStep
        /// Part of a multi-command operation; the last one completes it.
        case step(OperationID, last: Bool)
        case connect(OperationID)
        case disconnect(OperationID, handle: UInt16)
        /// Host-internal (refusing a connection, answering a parameter update, cancelling a connect).
        case housekeeping
    }

    enum TimerPurpose: Hashable {
        case command
        case connect(OperationID)
        case att(handle: UInt16, serial: UInt64)
    }

    struct ClientOp {
        var id: OperationID
        var procedure: GATTClientProcedure
    }

    struct Connection {
        var info: ConnectionInfo
        var mtu = 23
        var recombiner: L2CAPRecombiner
        var server = GATTServerConnection()
        var queue: [ClientOp] = []
        var current: ClientOp?
        var attTimer: HostTimerID?
        var attSerial: UInt64 = 0
        var attClosed = false
        var signalIdentifier: UInt8 = 0
    }

    public let config: LEHostConfig
    public private(set) var phase: Phase = .off
    public private(set) var database: GATTDatabase
    public private(set) var controller: ControllerInfo?
    /// Advertising sets the host has enabled (and the controller has not stopped on a connection).
    public private(set) var advertisingSets: Set<UInt8> = []
    public var advertising: Bool { !advertisingSets.isEmpty }
    public private(set) var scanning = false

    private var out: [HostAction] = []
    private var now = HostInstant.zero
    private var nextTimer: UInt64 = 1
    private var timers: [HostTimerID: TimerPurpose] = [:]

    // HCI command flow: one in flight, the rest queued.
    private var commandQueue: [(HCICommand, Purpose)] = []
    private var inFlight: (command: HCICommand, purpose: Purpose, timer: HostTimerID)?
    private var commandCredits = 1
    private var powerOnOp: OperationID?
    /// The power-on random address (identity 0).
    private var randomAddress: BluetoothAddress?
    /// What LE_Set_Random_Address last set (nil: unknown, set it again before relying on it).
    private var controllerRandomAddress: BluetoothAddress?
    private var supportedSets = 1
    /// Each enabled set's address, to name a peripheral link's local side.
    private var setAddresses: [UInt8: BluetoothAddress] = [:]
    /// Enabled sets a central can connect to.
    private var connectableSets: Set<UInt8> = []
    private var publicAddress: BluetoothAddress?
    private var leFeatures: UInt64 = 0

    // ACL flow control.
    private var aclDataLength = 27
    private var aclBuffers = 0
    private var aclCredits = 0
    private var aclInFlight: [UInt16: Int] = [:]
    private var aclQueue: [HCIACLPacket] = []

    private var connections: [UInt16: Connection] = [:]
    /// Connections the host is tearing down without telling the upper layer (over the limit, or after a connect timed out).
    private var refusedHandles: Set<UInt16> = []
    /// The connect under way: its target, own address and Create Connection command.
    private struct PendingConnect {
        var op: OperationID
        var peer: BluetoothAddress
        var own: BluetoothAddress?
        var timer: HostTimerID
        var command: HCICommand
        /// Taken over from a cancelled attempt still under way (no command of its own sent yet).
        var adopted = false
    }
    private var pendingConnect: PendingConnect?
    /// A connect that timed out and was cancelled, until the controller ends the attempt (LE
    /// Connection Complete: status 0x02, or a late success, which is torn down). Controllers
    /// end it at once; Bumble's acknowledges the cancel and goes on initiating until the peer
    /// advertises. Meanwhile a connect to the same peer from the same address takes the attempt
    /// over, and any other fails with `cancelledConnectPending` (the controller would refuse it).
    private var cancelledConnect: (peer: BluetoothAddress, own: BluetoothAddress?, command: HCICommand)?
    private var pendingDisconnects: [UInt16: OperationID] = [:]
    /// Values reads return on the connections whose local side is an address (its six bytes),
    /// by value handle: each identity the host plays names itself.
    private var identityValues: [[UInt8]: [UInt16: [UInt8]]] = [:]

    public init(config: LEHostConfig = LEHostConfig()) {
        self.config = config
        database = GATTDatabase(maxAttributes: config.maxAttributes, maxPreparedWrites: config.maxPreparedWrites,
                                maxPreparedBytes: config.maxPreparedBytes)
    }

    // MARK: GATT server registration (synchronous: it sends nothing)

    /// Adds a primary service to the server; peers see it from their next discovery.
    public mutating func registerService(_ service: GATTServiceDefinition) throws(GATTDatabase.RegistrationError) -> RegisteredService {
        try database.register(service)
    }

    /// Replaces what reads of a characteristic return.
    @discardableResult
    public mutating func setValue(_ value: [UInt8], valueHandle: UInt16) -> Bool { database.setValue(value, at: valueHandle) }

    /// What reads of a characteristic return on the connections whose local side is `address`
    /// (a central link from that own address, a peripheral link to the advertising set with
    /// it): one database, each identity its own value (a node id). Other connections read the
    /// database's value. False when `valueHandle` is not a characteristic value.
    @discardableResult
    public mutating func setValue(_ value: [UInt8], valueHandle: UInt16, forLocalAddress address: BluetoothAddress) -> Bool {
        guard database.characteristic(valueHandle: valueHandle) != nil else { return false }
        identityValues[address.bytes, default: [:]][valueHandle] = Array(value.prefix(512))
        return true
    }

    // MARK: Introspection for tests and drivers

    public var connectionHandles: [UInt16] { connections.keys.sorted() }
    public func mtu(of handle: UInt16) -> Int? { connections[handle]?.mtu }
    public func connection(_ handle: UInt16) -> ConnectionInfo? { connections[handle]?.info }
    public func isAdvertising(set: UInt8) -> Bool { advertisingSets.contains(set) }
    public func isSubscribed(_ handle: UInt16, valueHandle: UInt16) -> Bool { connections[handle]?.server.isSubscribed(valueHandle) ?? false }
    /// Everything the host holds, for the bounded-memory tests.
    public var queuedACLPackets: Int { aclQueue.count }
    public var aclPacketsInFlight: Int { aclInFlight.values.reduce(0, +) }
    public var queuedCommands: Int { commandQueue.count }
    public var pendingTimers: Int { timers.count }

    // MARK: The one entry point

    public mutating func handle(_ input: HostInput, at now: HostInstant) -> [HostAction] {
        self.now = now
        switch input {
        case .controller(let packet): receive(packet)
        case .command(let id, let command): perform(id, command)
        case .timer(let id): fire(id)
        }
        let actions = out
        out.removeAll()
        return actions
    }

    // MARK: Helpers

    private mutating func emit(_ e: HostEvent) { out.append(.event(e)) }
    private mutating func complete(_ id: OperationID, _ r: OperationResult = .done) { emit(.completed(id, r)) }
    private mutating func fail(_ id: OperationID, _ f: HostFailure) { emit(.failed(id, f)) }

    private mutating func startTimer(_ purpose: TimerPurpose, after d: Duration) -> HostTimerID {
        let id = HostTimerID(nextTimer)
        nextTimer += 1
        timers[id] = purpose
        out.append(.setTimer(id, at: now + d))
        return id
    }

    private var useExtended: Bool { config.extended == .auto && leFeatures & (1 << 12) != 0 }

    // MARK: Upper-layer commands

    private mutating func perform(_ id: OperationID, _ command: HostCommand) {
        if case .powerOn(let address) = command { return powerOn(id, address) }
        guard phase == .ready else { return fail(id, .notReady) }
        switch command {
        case .powerOn: break
        case .startAdvertising(let req): startAdvertising(id, req)
        case .stopAdvertising:
            enqueue(useExtended ? [.leSetExtendedAdvertisingEnable(enable: false, sets: [])] : [.leSetAdvertisingEnable(false)], op: id)
            advertisingSets.removeAll()
        case .stopAdvertisingSet(let set):
            guard useExtended else {
                guard set == 0 else { return fail(id, .invalidParameter("a legacy controller has advertising set 0 only")) }
                enqueue([.leSetAdvertisingEnable(false)], op: id)
                advertisingSets.removeAll()
                return
            }
            enqueue([.leSetExtendedAdvertisingEnable(enable: false, sets: [AdvertisingSetEnable(handle: set)])], op: id)
            advertisingSets.remove(set)
        case .startScanning(let req): startScanning(id, req)
        case .stopScanning:
            enqueue(useExtended ? [.leSetExtendedScanEnable(enable: false, filterDuplicates: 0, duration: 0, period: 0)]
                                : [.leSetScanEnable(enable: false, filterDuplicates: false)], op: id)
            scanning = false
        case .connect(let peer, let timeout, let params, let own):
            guard pendingConnect == nil else { return fail(id, .busy) }
            guard params.isValid else { return fail(id, .invalidParameter("connection parameters out of range")) }
            let from = own ?? randomAddress
            if let cancelled = cancelledConnect {
                guard cancelled.peer == peer, cancelled.own == from else { return fail(id, .cancelledConnectPending(peer: cancelled.peer)) }
                // The same connect: the attempt still under way becomes this one's.
                cancelledConnect = nil
                pendingConnect = PendingConnect(op: id, peer: peer, own: from, timer: startTimer(.connect(id), after: timeout),
                                                command: cancelled.command, adopted: true)
                return
            }
            var steps: [HCICommand] = []
            if let from, from != controllerRandomAddress {
                guard from.isRandomStatic else { return fail(id, .invalidParameter("\(from.string) is not a random static address (top two bits 11)")) }
                guard useExtended || from == randomAddress else {
                    return fail(id, .invalidParameter("a controller without extended advertising has one identity (its advertiser uses the one random address)"))
                }
                guard !scanning else { return fail(id, .invalidParameter("stop scanning before connecting from another address (Vol 4 Part E 7.8.4)")) }
                steps.append(.leSetRandomAddress(from))
            }
            var p = CreateConnectionParameters(peer: peer)
            p.connection = params
            steps.append(useExtended ? .leExtendedCreateConnection(p) : .leCreateConnection(p))
            guard commandQueue.count + steps.count <= config.maxQueuedCommands else { return fail(id, .queueFull) }
            if steps.count == 2 {
                _ = queue(steps[0], .step(id, last: false))
                controllerRandomAddress = from
            }
            _ = queue(steps[steps.count - 1], .connect(id))
            pendingConnect = PendingConnect(op: id, peer: peer, own: from, timer: startTimer(.connect(id), after: timeout),
                                            command: steps[steps.count - 1])
        case .disconnect(let handle, let reason):
            guard connections[handle] != nil else { return fail(id, .notConnected) }
            guard pendingDisconnects[handle] == nil else { return fail(id, .busy) }
            guard queue(.disconnect(handle: handle, reason: reason), .disconnect(id, handle: handle)) else { return fail(id, .queueFull) }
            pendingDisconnects[handle] = id
        case .exchangeMTU(let handle, let mtu):
            startClient(id, handle, GATTClientProcedure(.mtu(max(23, mtu))))
        case .discover(let handle, let uuid):
            startClient(id, handle, GATTClientProcedure(.findService(uuid)))
        case .subscribe(let handle, let cccd, let notify, let indicate):
            let v: UInt16 = (notify ? 1 : 0) | (indicate ? 2 : 0)
            startClient(id, handle, GATTClientProcedure(.write(handle: cccd, value: [UInt8(v), 0])))
        case .write(let handle, let attribute, let value):
            startClient(id, handle, GATTClientProcedure(.write(handle: attribute, value: value)))
        case .read(let handle, let attribute):
            startClient(id, handle, GATTClientProcedure(.read(handle: attribute, value: [])))
        case .writeCommand(let handle, let attribute, let value):
            guard let c = connections[handle] else { return fail(id, .notConnected) }
            guard !c.attClosed else { return fail(id, .attBearerClosed) }
            guard value.count <= c.mtu - 3 else { return fail(id, .tooLarge(size: value.count, limit: c.mtu - 3)) }
            guard sendATT(handle, .writeCommand(handle: attribute, value: value)) else { return fail(id, .queueFull) }
            complete(id)
        case .notify(let handle, let valueHandle, let value):
            guard let c = connections[handle] else { return fail(id, .notConnected) }
            guard database.characteristic(valueHandle: valueHandle) != nil else { return fail(id, .notFound) }
            guard c.server.isSubscribed(valueHandle) else { return fail(id, .notSubscribed) }
            guard value.count <= c.mtu - 3 else { return fail(id, .tooLarge(size: value.count, limit: c.mtu - 3)) }
            guard sendATT(handle, .handleValueNotification(handle: valueHandle, value: value)) else { return fail(id, .queueFull) }
            complete(id)
        }
    }

    private mutating func powerOn(_ id: OperationID, _ address: BluetoothAddress) {
        guard address.isRandomStatic else {
            return fail(id, .invalidParameter("\(address.string) is not a random static address (top two bits 11)"))
        }
        guard powerOnOp == nil else { return fail(id, .busy) }
        resetState(failure: .reset)
        phase = .initializing
        powerOnOp = id
        randomAddress = try? BluetoothAddress(bytes: address.bytes, type: .random)
        controllerRandomAddress = randomAddress
        supportedSets = 1
        // HCI-NOTES: Reset, event masks, features, buffer size, BD_ADDR, then the random address
        // (the link routes by random address and drops the rest).
        for c: HCICommand in [.reset, .setEventMask(config.eventMask), .leSetEventMask(config.leEventMask),
                              .leReadLocalSupportedFeatures, .leReadBufferSize, .readBDADDR, .leSetRandomAddress(address)] {
            _ = queue(c, .initStep)
        }
    }

    /// Forgets every connection and pending operation (power on again, or controller failure).
    private mutating func resetState(failure: HostFailure) {
        var failed: [OperationID] = []
        if let p = inFlight, let op = Self.op(of: p.purpose) { failed.append(op) }
        for (_, p) in commandQueue { if let op = Self.op(of: p), !failed.contains(op) { failed.append(op) } }
        if let p = pendingConnect, !failed.contains(p.op) { failed.append(p.op) }
        for h in connections.keys.sorted() {
            if let c = connections[h] {
                if let cur = c.current { failed.append(cur.id) }
                failed += c.queue.map(\.id)
            }
            if let op = pendingDisconnects[h], !failed.contains(op) { failed.append(op) }
        }
        for op in failed { fail(op, failure) }
        commandQueue.removeAll()
        inFlight = nil
        commandCredits = 1
        timers.removeAll()
        connections.removeAll()
        refusedHandles.removeAll()
        pendingConnect = nil
        cancelledConnect = nil
        pendingDisconnects.removeAll()
        aclQueue.removeAll()
        aclInFlight.removeAll()
        aclCredits = aclBuffers
        advertisingSets.removeAll()
        connectableSets.removeAll()
        setAddresses.removeAll()
        scanning = false
    }

    private static func op(of purpose: Purpose) -> OperationID? {
        switch purpose {
        case .step(let id, _), .connect(let id), .disconnect(let id, _): id
        case .initStep, .housekeeping: nil
        }
    }

    private mutating func startAdvertising(_ id: OperationID, _ req: AdvertisingRequest) {
        guard req.data.count <= 31, req.scanResponse.count <= 31 else {
            return fail(id, .invalidParameter("advertising data above 31 bytes (legacy PDUs)"))
        }
        guard (0x20...0x4000).contains(req.interval) else { return fail(id, .invalidParameter("advertising interval \(req.interval)")) }
        var cmds: [HCICommand] = []
        let set = req.set
        if useExtended {
            guard Int(set) < supportedSets, set <= 0xEF else {
                return fail(id, .invalidParameter("advertising set \(set): the controller keeps \(supportedSets) set(s)"))
            }
            if let a = req.address, !a.isRandomStatic {
                return fail(id, .invalidParameter("\(a.string) is not a random static address (top two bits 11)"))
            }
            let address = req.address ?? randomAddress
            // A set's parameters and address may change only while it is disabled (7.8.53).
            if advertisingSets.contains(set) { cmds.append(.leSetExtendedAdvertisingEnable(enable: false, sets: [AdvertisingSetEnable(handle: set)])) }
            var p = ExtendedAdvertisingParameters()
            p.handle = set
            p.sid = set & 0x0F
            // Legacy PDUs through the extended commands: any scanner hears them and data stays in one PDU.
            p.eventProperties = req.connectable ? 0x0013 : (req.scanResponse.isEmpty ? 0x0010 : 0x0012)
            p.intervalMin = UInt32(req.interval); p.intervalMax = UInt32(req.interval)
            cmds.append(.leSetExtendedAdvertisingParameters(p))
            if let address { cmds.append(.leSetAdvertisingSetRandomAddress(handle: set, address)); setAddresses[set] = address }
            cmds.append(.leSetExtendedAdvertisingData(handle: set, operation: 3, fragmentPreference: 1, data: req.data))
            if p.eventProperties & 0x2 != 0 {
                cmds.append(.leSetExtendedScanResponseData(handle: set, operation: 3, fragmentPreference: 1, data: req.scanResponse))
            }
            cmds.append(.leSetExtendedAdvertisingEnable(enable: true, sets: [AdvertisingSetEnable(handle: set)]))
        } else {
            guard set == 0, req.address == nil || req.address == randomAddress else {
                return fail(id, .invalidParameter("a controller without extended advertising has one advertising set and one address"))
            }
            if advertising { cmds.append(.leSetAdvertisingEnable(false)) }
            var p = LegacyAdvertisingParameters()
            p.intervalMin = req.interval; p.intervalMax = req.interval
            p.advertisingType = req.connectable ? 0 : (req.scanResponse.isEmpty ? 3 : 2)
            cmds += [.leSetAdvertisingParameters(p), .leSetAdvertisingData(req.data), .leSetScanResponseData(req.scanResponse),
                     .leSetAdvertisingEnable(true)]
        }
        if enqueue(cmds, op: id) {
            advertisingSets.insert(set)
            if req.connectable { connectableSets.insert(set) } else { connectableSets.remove(set) }
        }
    }

    private mutating func startScanning(_ id: OperationID, _ req: ScanRequest) {
        guard (0x4...0x4000).contains(req.interval), (0x4...0x4000).contains(req.window), req.window <= req.interval else {
            return fail(id, .invalidParameter("scan interval \(req.interval) / window \(req.window)"))
        }
        var cmds: [HCICommand] = []
        if useExtended {
            if scanning { cmds.append(.leSetExtendedScanEnable(enable: false, filterDuplicates: 0, duration: 0, period: 0)) }
            var p = ExtendedScanParameters()
            p.scanType = req.active ? 1 : 0; p.interval = req.interval; p.window = req.window
            cmds += [.leSetExtendedScanParameters(p),
                     .leSetExtendedScanEnable(enable: true, filterDuplicates: req.filterDuplicates ? 1 : 0, duration: 0, period: 0)]
        } else {
            if scanning { cmds.append(.leSetScanEnable(enable: false, filterDuplicates: false)) }
            var p = LegacyScanParameters()
            p.scanType = req.active ? 1 : 0; p.interval = req.interval; p.window = req.window
            cmds += [.leSetScanParameters(p), .leSetScanEnable(enable: true, filterDuplicates: req.filterDuplicates)]
        }
        if enqueue(cmds, op: id) { scanning = true }
    }

    /// Queues the commands of one operation; the last one's completion completes it.
    @discardableResult
    private mutating func enqueue(_ cmds: [HCICommand], op: OperationID) -> Bool {
        guard commandQueue.count + cmds.count <= config.maxQueuedCommands else {
            fail(op, .queueFull)
            return false
        }
        for (i, c) in cmds.enumerated() { _ = queue(c, .step(op, last: i == cmds.count - 1)) }
        return true
    }

    private mutating func queue(_ c: HCICommand, _ purpose: Purpose) -> Bool {
        guard commandQueue.count < config.maxQueuedCommands else { return false }
        commandQueue.append((c, purpose))
        pumpCommands()
        return true
    }

    private mutating func pumpCommands() {
        guard inFlight == nil, commandCredits > 0, !commandQueue.isEmpty else { return }
        let (c, p) = commandQueue.removeFirst()
        commandCredits -= 1
        inFlight = (c, p, startTimer(.command, after: config.commandTimeout))
        out.append(.send(c.h4))
    }

    // MARK: Timers

    private mutating func fire(_ id: HostTimerID) {
        guard let purpose = timers.removeValue(forKey: id) else { return }   // stale: what it guarded is over
        switch purpose {
        case .command:
            guard let f = inFlight, f.timer == id else { return }
            controllerFailed(.timeout, opcode: f.command.opcode)
        case .connect(let op):
            guard let p = pendingConnect, p.op == op else { return }
            pendingConnect = nil
            cancelledConnect = (p.peer, p.own, p.command)
            fail(op, .timeout)
            _ = queue(.leCreateConnectionCancel, .housekeeping)
        case .att(let handle, let serial):
            guard var c = connections[handle], c.attTimer == id, c.attSerial == serial, let cur = c.current else { return }
            // Vol 3 Part F 3.3.3: after a transaction timeout no further ATT PDUs go on this bearer.
            c.current = nil
            c.attTimer = nil
            c.attClosed = true
            let queued = c.queue
            c.queue.removeAll()
            connections[handle] = c
            fail(cur.id, .timeout)
            for q in queued { fail(q.id, .attBearerClosed) }
        }
    }

    private mutating func controllerFailed(_ f: HostFailure, opcode: UInt16? = nil) {
        let initOp = powerOnOp
        powerOnOp = nil
        resetState(failure: f)
        phase = .failed
        if let initOp { fail(initOp, f) }
        if let opcode, case .timeout = f {
            emit(.controllerFailed(.commandTimeout(opcode: opcode)))
        } else {
            emit(.controllerFailed(f))
        }
    }

    // MARK: Controller input

    private mutating func receive(_ packet: H4Packet) {
        switch packet {
        case .event(let bytes):
            do { handleEvent(try HCIEvent(decoding: bytes)) } catch { emit(.malformed(layer: "hci.event", error)) }
        case .acl(let bytes):
            do { handleACL(try HCIACLPacket(decoding: bytes)) } catch { emit(.malformed(layer: "hci.acl", error)) }
        case .command, .sco, .iso:
            emit(.malformed(layer: "h4.packet", HostWireError(.unknownPacketType, "H4 0x\([packet.indicator].hostHex) from the controller")))
        }
    }

    private mutating func handleEvent(_ event: HCIEvent) {
        switch event {
        case .commandComplete(let n, let opcode, let ret):
            commandCredits = Int(n)
            if opcode != 0 { commandDone(opcode: opcode, status: ret.statusCode ?? 0xFF, returned: ret) }
            pumpCommands()
        case .commandStatus(let status, let n, let opcode):
            commandCredits = Int(n)
            if opcode != 0 { commandDone(opcode: opcode, status: status, returned: nil) }
            pumpCommands()
        case .disconnectionComplete(let status, let handle, let reason):
            if status != 0 {
                if let op = pendingDisconnects.removeValue(forKey: handle) { fail(op, .controllerStatus(opcode: HCIOpcode.disconnect, status: status)) }
                return
            }
            disconnected(handle, reason: reason)
        case .numberOfCompletedPackets(let entries):
            for e in entries {
                // Credit only what is in flight on that handle: a confused controller cannot inflate the window.
                let inFlight = aclInFlight[e.handle] ?? 0
                let n = min(Int(e.count), inFlight)
                aclInFlight[e.handle] = inFlight - n == 0 ? nil : inFlight - n
                aclCredits = min(aclBuffers, aclCredits + n)
            }
            pumpACL()
        case .hardwareError(let code):
            controllerFailed(.hardwareError(code))
        case .leMeta(let meta):
            handleMeta(meta)
        case .unknown:
            break
        }
    }

    private mutating func commandDone(opcode: UInt16, status: UInt8, returned: CommandReturn?) {
        guard let f = inFlight, f.command.opcode == opcode else { return }   // not ours: ignore
        inFlight = nil
        timers[f.timer] = nil
        if status == 0, case .leSetRandomAddress(let a) = f.command { controllerRandomAddress = a }
        switch f.purpose {
        case .initStep:
            // A controller that cannot say how many sets it keeps is used with one.
            if opcode == HCIOpcode.leReadNumberOfSupportedAdvertisingSets, status != 0 { supportedSets = 1; break }
            guard status == 0 else { return controllerFailed(.controllerStatus(opcode: opcode, status: status)) }
            initStepDone(opcode: opcode, returned: returned)
        case .step(let op, let last):
            if status != 0 {
                commandQueue.removeAll { Self.op(of: $0.1) == op }
                switch f.command {
                case .leSetExtendedAdvertisingParameters(let p): advertisingSets.remove(p.handle)
                case .leSetExtendedAdvertisingEnable(_, let sets): sets.forEach { advertisingSets.remove($0.handle) }
                case .leSetAdvertisingEnable, .leSetAdvertisingParameters: advertisingSets.removeAll()
                case .leSetRandomAddress: controllerRandomAddress = nil
                default: break
                }
                if let p = pendingConnect, p.op == op {
                    // The own address of a connect was refused: the connect never started.
                    pendingConnect = nil
                    timers[p.timer] = nil
                }
                if opcode == HCIOpcode.leSetScanEnable || opcode == HCIOpcode.leSetExtendedScanEnable { scanning = false }
                fail(op, .controllerStatus(opcode: opcode, status: status))
            } else if last {
                complete(op)
            }
        case .connect(let op):
            if status != 0, let p = pendingConnect, p.op == op {
                pendingConnect = nil
                timers[p.timer] = nil
                fail(op, .controllerStatus(opcode: opcode, status: status))
            }
        case .disconnect(let op, let handle):
            if status != 0 {
                pendingDisconnects[handle] = nil
                fail(op, .controllerStatus(opcode: opcode, status: status))
            }
        case .housekeeping:
            if opcode == HCIOpcode.leCreateConnectionCancel, status != 0 {
                // Nothing to cancel: the attempt already ended (a Connection Complete is on its way or came).
                cancelledConnect = nil
            }
        }
    }

    private mutating func initStepDone(opcode: UInt16, returned: CommandReturn?) {
        switch (opcode, returned) {
        case (HCIOpcode.leReadLocalSupportedFeatures, .leLocalFeatures(_, let f)?):
            leFeatures = f
            // Each advertising set can be a tester identity: plan with the controller's number.
            if useExtended { commandQueue.insert((.leReadNumberOfSupportedAdvertisingSets, .initStep), at: 0) }
        case (HCIOpcode.leReadNumberOfSupportedAdvertisingSets, .numberOfAdvertisingSets(_, let n)?):
            supportedSets = max(1, Int(n))
        case (HCIOpcode.leReadBufferSize, .leBufferSize(_, let len, let n)?):
            if len == 0 || n == 0 {
                // LE shares the BR/EDR buffers: ask for those next.
                commandQueue.insert((.readBufferSize, .initStep), at: 0)
            } else {
                aclDataLength = Int(len); aclBuffers = Int(n)
            }
        case (HCIOpcode.readBufferSize, .bufferSize(_, let len, _, let n, _)?):
            guard len > 0, n > 0 else { return controllerFailed(.controllerStatus(opcode: opcode, status: 0xFF)) }
            aclDataLength = Int(len); aclBuffers = Int(n)
        case (HCIOpcode.readBDADDR, .bdAddr(_, let a)?):
            publicAddress = a
        case (HCIOpcode.leReadLocalSupportedFeatures, _), (HCIOpcode.leReadBufferSize, _), (HCIOpcode.readBufferSize, _), (HCIOpcode.readBDADDR, _):
            // A success without the documented return parameters: the controller cannot be driven.
            return controllerFailed(.controllerStatus(opcode: opcode, status: 0xFF))
        default:
            break
        }
        guard opcode == HCIOpcode.leSetRandomAddress, commandQueue.isEmpty else { return }
        aclCredits = aclBuffers
        phase = .ready
        let info = ControllerInfo(publicAddress: publicAddress ?? (try! BluetoothAddress(bytes: [0, 0, 0, 0, 0, 0], type: .public)),
                                  randomAddress: randomAddress!, leFeatures: leFeatures, aclDataLength: aclDataLength,
                                  aclBuffers: aclBuffers, extended: useExtended, advertisingSets: useExtended ? supportedSets : 1)
        controller = info
        emit(.ready(info))
        if let op = powerOnOp { powerOnOp = nil; complete(op) }
    }

    private mutating func handleMeta(_ meta: LEMetaEvent) {
        switch meta {
        case .connectionComplete(let c), .enhancedConnectionComplete(let c):
            connectionComplete(c)
        case .connectionUpdateComplete(let status, let handle, let interval, let latency, let timeout):
            guard status == 0, var c = connections[handle] else { return }
            c.info.interval = interval; c.info.latency = latency; c.info.supervisionTimeout = timeout
            connections[handle] = c
            emit(.connectionUpdated(handle: handle, interval: interval, latency: latency, supervisionTimeout: timeout))
        case .advertisingReport(let reports):
            guard phase == .ready else { return }
            for r in reports {
                report(AdvertisementReport(address: r.address, rssi: r.rssi, connectable: r.eventType == 0 || r.eventType == 1,
                                           scanResponse: r.eventType == 4, extended: false, dataComplete: true, data: r.data))
            }
        case .extendedAdvertisingReport(let reports):
            guard phase == .ready else { return }
            for r in reports {
                report(AdvertisementReport(address: r.address, rssi: r.rssi, connectable: r.eventType & 0x1 != 0,
                                           scanResponse: r.eventType & 0x8 != 0, extended: true,
                                           dataComplete: r.eventType >> 5 & 0x3 == 0, data: r.data))
            }
        case .advertisingSetTerminated(let status, let set, let handle, _):
            advertisingSets.remove(set)
            // Status 0: a central connected to this set; its connection complete came first.
            guard status == 0, var c = connections[handle], c.info.role == .peripheral, c.info.advertisingSet == nil,
                  let address = setAddresses[set] else { return }
            c.info.advertisingSet = set
            c.info.localAddress = address
            connections[handle] = c
            emit(.connectionIdentified(handle: handle, set: set, localAddress: address))
        case .unknown:
            break
        }
    }

    private mutating func report(_ r: AdvertisementReport) {
        var r = r
        do { r.ad = try AdvertisingData(decoding: r.data) } catch { r.adError = error }
        emit(.advertisement(r))
    }

    private mutating func connectionComplete(_ c: LEConnectionComplete) {
        let mine = c.role == .central ? pendingConnect : nil
        if c.status != 0 {
            if let p = mine, p.adopted, c.status == 0x02 {
                // The cancelled attempt this connect took over ended after all: start it afresh.
                pendingConnect?.adopted = false
                _ = queue(p.command, .connect(p.op))
                return
            }
            if let p = mine {
                pendingConnect = nil
                timers[p.timer] = nil
                fail(p.op, .controllerStatus(opcode: HCIOpcode.leCreateConnection, status: c.status))
            } else if c.role == .central {
                cancelledConnect = nil   // the cancelled attempt's end (status 0x02)
            } else if !useExtended {
                advertisingSets.removeAll()  // directed advertising timed out
            }
            return
        }
        // The controller stops advertising on connection: a legacy controller its one advertiser,
        // an extended one the set the central chose (LE Advertising Set Terminated says which).
        if c.role == .peripheral, !useExtended { advertisingSets.removeAll() }
        let refuse = connections.count >= config.maxConnections || (c.role == .central && mine == nil && cancelledConnect != nil)
        if c.role == .central, mine == nil { cancelledConnect = nil }
        if refuse || connections[c.handle] != nil {
            // Over the limit, or a connect the upper layer already saw fail: tear it down quietly.
            refusedHandles.insert(c.handle)
            _ = queue(.disconnect(handle: c.handle, reason: 0x13), .housekeeping)
            if let p = mine { pendingConnect = nil; timers[p.timer] = nil; fail(p.op, .queueFull) }
            return
        }
        var info = ConnectionInfo(handle: c.handle, peer: c.peer, role: c.role, interval: c.interval, latency: c.latency,
                                  supervisionTimeout: c.supervisionTimeout)
        if c.role == .central {
            info.localAddress = mine?.own ?? randomAddress
        } else if !useExtended {
            info.localAddress = randomAddress
            info.advertisingSet = 0
        } else if let set = connectableSets.intersection(advertisingSets).onlyElement {
            // One connectable set: the link came in on it (LE Advertising Set Terminated confirms it later).
            info.localAddress = setAddresses[set]
            info.advertisingSet = set
            advertisingSets.remove(set)
        }
        connections[c.handle] = Connection(info: info, recombiner: L2CAPRecombiner(maxFrameSize: config.maxL2CAPFrame))
        emit(.connected(info))
        if let p = mine {
            pendingConnect = nil
            timers[p.timer] = nil
            complete(p.op, .connected(handle: c.handle))
        }
    }

    private mutating func disconnected(_ handle: UInt16, reason: UInt8) {
        // The controller flushes what it held for the link: those buffers are free again.
        let held = aclInFlight.removeValue(forKey: handle) ?? 0
        aclCredits = min(aclBuffers, aclCredits + held)
        aclQueue.removeAll { $0.handle == handle }
        if refusedHandles.remove(handle) != nil {
            pumpACL()
            return
        }
        guard let c = connections.removeValue(forKey: handle) else { return }
        if let t = c.attTimer { timers[t] = nil }
        if let cur = c.current { fail(cur.id, .disconnected(reason: reason)) }
        for q in c.queue { fail(q.id, .disconnected(reason: reason)) }
        emit(.disconnected(handle: handle, reason: reason))
        if let op = pendingDisconnects.removeValue(forKey: handle) { complete(op) }
        pumpACL()
    }

    // MARK: ACL out, with flow control

    /// Fragments a frame to the controller's buffer size and queues it; false (nothing queued)
    /// when the bounded queue has no room for all its fragments.
    private mutating func sendL2CAP(_ handle: UInt16, _ frame: L2CAPFrame) -> Bool {
        let fragments = frame.fragments(handle: handle, maxACLDataLength: aclDataLength)
        guard aclQueue.count + fragments.count <= config.maxQueuedACLPackets else { return false }
        aclQueue += fragments
        pumpACL()
        return true
    }

    private mutating func sendATT(_ handle: UInt16, _ pdu: ATTPDU) -> Bool {
        sendL2CAP(handle, L2CAPFrame(channel: L2CAPChannel.att, payload: pdu.encoded()))
    }

    private mutating func pumpACL() {
        // Never more packets in flight than the controller has buffers (Vol 4 Part E 4.1.1).
        var sent = 0
        while aclCredits > 0, sent < aclQueue.count {
            let p = aclQueue[sent]
            sent += 1
            aclCredits -= 1
            aclInFlight[p.handle, default: 0] += 1
            out.append(.send(p.h4))
        }
        aclQueue.removeFirst(sent)
    }

    // MARK: ACL in

    private mutating func handleACL(_ packet: HCIACLPacket) {
        guard var c = connections[packet.handle] else { return }   // unknown or refused link
        let outcome = c.recombiner.add(packet)
        connections[packet.handle] = c
        switch outcome {
        case .incomplete: return
        case .dropped(let e): emit(.malformed(layer: "l2cap.frame", e))
        case .frame(let frame):
            switch frame.channel {
            case L2CAPChannel.att: handleATT(packet.handle, frame.payload)
            case L2CAPChannel.leSignalling: handleSignal(packet.handle, frame.payload)
            case L2CAPChannel.securityManager: handleSMP(packet.handle, frame.payload)
            default: break   // no dynamic channels: nothing listens there
            }
        }
    }

    private mutating func handleSignal(_ handle: UInt16, _ bytes: [UInt8]) {
        let signal: LESignal
        do { signal = try LESignal(decoding: bytes) } catch {
            emit(.malformed(layer: "l2cap.le-signal", error))
            // Answer what can be identified, so the peer's request does not hang.
            if bytes.count >= 2, bytes[1] != 0, bytes[0] != 0x01 {
                reply(handle, LESignal(identifier: bytes[1], command: .commandReject(reason: 0x0000, data: [])))
            }
            return
        }
        guard let c = connections[handle] else { return }
        switch signal.command {
        case .connectionParameterUpdateRequest(let lo, let hi, let latency, let timeout):
            guard c.info.role == .central else {
                // Only a central may accept this request (Vol 3 Part A 4.20).
                return reply(handle, LESignal(identifier: signal.identifier, command: .commandReject(reason: 0x0000, data: [])))
            }
            let params = ConnectionParameters(intervalMin: lo, intervalMax: hi, latency: latency, supervisionTimeout: timeout)
            let ok = params.isValid
            reply(handle, LESignal(identifier: signal.identifier, command: .connectionParameterUpdateResponse(result: ok ? 0 : 1)))
            if ok { _ = queue(.leConnectionUpdate(handle: handle, params), .housekeeping) }
        case .commandReject, .connectionParameterUpdateResponse:
            break   // the host sends no signalling requests, so nothing waits for these
        case .unknown:
            reply(handle, LESignal(identifier: signal.identifier, command: .commandReject(reason: 0x0000, data: [])))
        }
    }

    private mutating func reply(_ handle: UInt16, _ signal: LESignal) {
        _ = sendL2CAP(handle, L2CAPFrame(channel: L2CAPChannel.leSignalling, payload: signal.encoded()))
    }

    private mutating func handleSMP(_ handle: UInt16, _ bytes: [UInt8]) {
        // No pairing: answer Pairing Request (0x01) and Security Request (0x0B) with Pairing
        // Failed, Pairing Not Supported (0x05), so a peer that asks does not wait 30 s.
        guard let code = bytes.first, code == 0x01 || code == 0x0B else { return }
        _ = sendL2CAP(handle, L2CAPFrame(channel: L2CAPChannel.securityManager, payload: [0x05, 0x05]))
    }

    // MARK: ATT

    private mutating func handleATT(_ handle: UInt16, _ bytes: [UInt8]) {
        guard var c = connections[handle], !c.attClosed else { return }
        let pdu: ATTPDU
        do { pdu = try ATTPDU(decoding: bytes) } catch {
            emit(.malformed(layer: "att.pdu", error))
            if let op = bytes.first, ATTPDU.isRequest(op) {
                _ = sendATT(handle, .errorResponse(request: op, handle: 0, error: ATTError.invalidPDU))
            }
            return
        }
        switch pdu {
        case .exchangeMTURequest(let clientMTU):
            _ = sendATT(handle, .exchangeMTUResponse(mtu: config.localMTU))
            setMTU(handle, Int(min(clientMTU, config.localMTU)))
        case .handleValueNotification(let h, let v):
            emit(.notification(handle: handle, attribute: h, value: v, indication: false))
        case .handleValueIndication(let h, let v):
            emit(.notification(handle: handle, attribute: h, value: v, indication: true))
            _ = sendATT(handle, .handleValueConfirmation)
        case .handleValueConfirmation:
            break   // the host sends no indications
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse, .readByTypeResponse,
             .readResponse, .readBlobResponse, .readByGroupTypeResponse, .writeResponse, .prepareWriteResponse, .executeWriteResponse:
            clientResponse(handle, pdu)
        default:
            c.server.values = c.info.localAddress.flatMap { identityValues[$0.bytes] } ?? [:]
            let (response, events) = database.serve(pdu, connection: &c.server, mtu: c.mtu)
            connections[handle] = c
            if let response { _ = sendATT(handle, response) }
            for e in events {
                switch e {
                case .write(let vh, let value, let kind):
                    let uuid = database.characteristic(valueHandle: vh)?.uuid ?? BluetoothUUID(0)
                    emit(.gattWrite(handle: handle, characteristic: uuid, valueHandle: vh, value: value, kind: kind))
                case .subscription(let vh, let n, let i):
                    let uuid = database.characteristic(valueHandle: vh)?.uuid ?? BluetoothUUID(0)
                    emit(.subscriptionChanged(handle: handle, characteristic: uuid, valueHandle: vh, notify: n, indicate: i))
                }
            }
        }
    }

    private mutating func setMTU(_ handle: UInt16, _ mtu: Int) {
        guard var c = connections[handle] else { return }
        let m = max(23, mtu)
        guard m != c.mtu else { return }
        c.mtu = m
        connections[handle] = c
        emit(.mtuChanged(handle: handle, mtu: m))
    }

    private mutating func startClient(_ id: OperationID, _ handle: UInt16, _ procedure: GATTClientProcedure) {
        guard var c = connections[handle] else { return fail(id, .notConnected) }
        guard !c.attClosed else { return fail(id, .attBearerClosed) }
        guard c.queue.count < config.maxQueuedOperations else { return fail(id, .queueFull) }
        c.queue.append(ClientOp(id: id, procedure: procedure))
        connections[handle] = c
        nextClientOp(handle)
    }

    private mutating func nextClientOp(_ handle: UInt16) {
        while var c = connections[handle], c.current == nil, !c.queue.isEmpty {
            var op = c.queue.removeFirst()
            let step = op.procedure.start(mtu: c.mtu)
            c.current = op
            connections[handle] = c
            apply(step, handle)
        }
    }

    private mutating func clientResponse(_ handle: UInt16, _ pdu: ATTPDU) {
        // A response nobody asked for is dropped: the peer cannot complete someone else's operation.
        guard var c = connections[handle], var op = c.current, op.procedure.answers(pdu) else { return }
        if let t = c.attTimer { timers[t] = nil; c.attTimer = nil }
        let step = op.procedure.advance(pdu, mtu: c.mtu)
        c.current = op
        connections[handle] = c
        apply(step, handle)
    }

    private mutating func apply(_ step: GATTClientProcedure.Step, _ handle: UInt16) {
        guard var c = connections[handle], let op = c.current else { return }
        switch step {
        case .send(let pdu):
            guard sendATT(handle, pdu) else {
                c.current = nil
                connections[handle] = c
                fail(op.id, .queueFull)
                return nextClientOp(handle)
            }
            c.attSerial += 1
            c.attTimer = startTimer(.att(handle: handle, serial: c.attSerial), after: config.attTimeout)
            connections[handle] = c
        case .done(let result):
            c.current = nil
            connections[handle] = c
            if case .mtu(let settled) = result {
                let m = max(23, min(settled, Int(config.localMTU)))
                setMTU(handle, m)
                complete(op.id, .mtu(m))
            } else {
                complete(op.id, result)
            }
            nextClientOp(handle)
        case .fail(let f):
            c.current = nil
            connections[handle] = c
            fail(op.id, f)
            nextClientOp(handle)
        }
    }
}

private extension Set {
    var onlyElement: Element? { count == 1 ? first : nil }
}
