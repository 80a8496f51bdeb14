/// A point on the caller's clock, in nanoseconds from an arbitrary origin. The host never reads
/// a clock: the caller passes time with every input (MeshNode's `Instant` converts one to one).
public struct HostInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    public static let zero = HostInstant(nanoseconds: 0)
    public static func milliseconds(_ ms: Int64) -> HostInstant { HostInstant(nanoseconds: ms * 1_000_000) }
    public static func < (a: HostInstant, b: HostInstant) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: HostInstant, d: Duration) -> HostInstant {
        let (s, atto) = d.components
        return HostInstant(nanoseconds: a.nanoseconds &+ s &* 1_000_000_000 &+ atto / 1_000_000_000)
    }
    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

/// A timer the host asked for; it comes back as `.timer(id)` when due. Timers are never
/// cancelled explicitly: the host ignores a firing it no longer waits for.
public struct HostTimerID: Hashable, Sendable, CustomStringConvertible {
    public var raw: UInt64
    public init(_ raw: UInt64) { self.raw = raw }
    public var description: String { "T\(raw)" }
}

/// The caller's name for one command; the host reports its end with this id.
public struct OperationID: Hashable, Sendable, CustomStringConvertible {
    public var raw: UInt64
    public init(_ raw: UInt64) { self.raw = raw }
    public var description: String { "op\(raw)" }
}

/// What to advertise.
public struct AdvertisingRequest: Hashable, Sendable {
    /// AD bytes (see `AdvertisingData.forService`); at most 31 (legacy PDUs are used in both modes).
    public var data: [UInt8]
    public var scanResponse: [UInt8]
    public var connectable: Bool
    /// Advertising interval in 0.625 ms units (0x20 = 20 ms: HCI-NOTES pitfall 6).
    public var interval: UInt16
    /// The advertising set (extended controllers: 0 up to `ControllerInfo.advertisingSets` - 1,
    /// each advertising on its own; legacy controllers have only set 0).
    public var set: UInt8
    /// The set's random static address; nil: the power-on address. Extended controllers only
    /// (a legacy controller advertises with its one random address).
    public var address: BluetoothAddress?
    public init(data: [UInt8], scanResponse: [UInt8] = [], connectable: Bool = true, interval: UInt16 = 0x20,
                set: UInt8 = 0, address: BluetoothAddress? = nil) {
        self.data = data; self.scanResponse = scanResponse; self.connectable = connectable; self.interval = interval
        self.set = set; self.address = address
    }
}

/// How to scan.
public struct ScanRequest: Hashable, Sendable {
    public var active: Bool
    /// 0.625 ms units.
    public var interval: UInt16
    public var window: UInt16
    public var filterDuplicates: Bool
    public init(active: Bool = false, interval: UInt16 = 0x10, window: UInt16 = 0x10, filterDuplicates: Bool = false) {
        self.active = active; self.interval = interval; self.window = window; self.filterDuplicates = filterDuplicates
    }
}

/// What the upper layer asks the host to do. Each ends in `.completed(id, ...)` or `.failed(id, ...)`.
public enum HostCommand: Hashable, Sendable {
    /// Reset and initialise the controller (HCI-NOTES sequence) with this random static address.
    /// Completes with `.done` after `.ready`. Again while powered: a full restart (pending work fails with `.reset`).
    case powerOn(randomAddress: BluetoothAddress)
    /// Starts (or reconfigures) the request's advertising set; other sets keep advertising.
    case startAdvertising(AdvertisingRequest)
    /// Stops every advertising set.
    case stopAdvertising
    /// Stops one advertising set.
    case stopAdvertisingSet(UInt8)
    case startScanning(ScanRequest)
    case stopScanning
    /// Completes with `.connected(handle:)`; fails with `.timeout` after `timeout` (the host cancels the attempt).
    /// `ownAddress` (a random static address; nil: the power-on address) is the address the
    /// connection is made from: LE_Set_Random_Address goes first when it differs from the
    /// controller's current one. Another address than the power-on one needs an extended
    /// controller and no scan running (Vol 4 Part E 7.8.4 forbids changing it while scanning or
    /// legacy advertising). Whether the controller then accepts a second link to the same peer
    /// is its own choice (docs/radio.md): a refusal fails the operation with its status.
    case connect(BluetoothAddress, timeout: Duration, parameters: ConnectionParameters = ConnectionParameters(),
                 ownAddress: BluetoothAddress? = nil)
    /// Completes when the controller reports the disconnection.
    case disconnect(handle: UInt16, reason: UInt8 = 0x13)
    /// ATT client, one request outstanding per connection; queued behind earlier ones.
    case exchangeMTU(handle: UInt16, mtu: UInt16 = 517)
    /// Completes with `.service(...)`: the primary service, its characteristics and their descriptors.
    case discover(handle: UInt16, service: BluetoothUUID)
    /// Writes the CCCD (notify bit 0, indicate bit 1) with a write request.
    case subscribe(handle: UInt16, cccdHandle: UInt16, notify: Bool = true, indicate: Bool = false)
    /// Write request, or a long write (prepare + execute) when the value exceeds ATT_MTU - 3. Values up to 512 bytes.
    case write(handle: UInt16, attribute: UInt16, value: [UInt8])
    /// Write command: must fit ATT_MTU - 3. Completes when handed to the controller queue.
    case writeCommand(handle: UInt16, attribute: UInt16, value: [UInt8])
    /// Read, continued with Read Blob while responses are full (up to 512 bytes). Completes with `.value`.
    case read(handle: UInt16, attribute: UInt16)
    /// GATT server: notify a characteristic value to one client; fails unless it subscribed and the value fits ATT_MTU - 3.
    case notify(handle: UInt16, valueHandle: UInt16, value: [UInt8])
}

/// Input to the host: everything that can happen to it.
public enum HostInput: Hashable, Sendable {
    /// A whole packet from the controller (cut from the stream by `H4Deframer`).
    case controller(H4Packet)
    case command(OperationID, HostCommand)
    case timer(HostTimerID)
}

/// What the controller told the host during power on.
public struct ControllerInfo: Hashable, Sendable {
    public var publicAddress: BluetoothAddress
    public var randomAddress: BluetoothAddress
    public var leFeatures: UInt64
    public var aclDataLength: Int
    public var aclBuffers: Int
    /// Extended advertising / scanning / create connection commands are in use (LE feature bit 12).
    public var extended: Bool
    /// Advertising sets the host may use at once: LE_Read_Number_Of_Supported_Advertising_Sets
    /// on an extended controller, 1 on a legacy one.
    public var advertisingSets: Int
}

/// An advertising or scan-response report, legacy or extended, in one shape.
public struct AdvertisementReport: Hashable, Sendable {
    public var address: BluetoothAddress
    public var rssi: Int8
    public var connectable: Bool
    public var scanResponse: Bool
    /// From an extended advertising report.
    public var extended: Bool
    /// False when an extended report says more data follows or was truncated.
    public var dataComplete: Bool
    public var data: [UInt8]
    /// `data` decoded; nil when the peer's AD bytes are malformed (`adError` says how).
    public var ad: AdvertisingData?
    public var adError: HostWireError?
}

/// A new LE connection.
public struct ConnectionInfo: Hashable, Sendable {
    public var handle: UInt16
    public var peer: BluetoothAddress
    public var role: ConnectionRole
    /// 1.25 ms units.
    public var interval: UInt16
    public var latency: UInt16
    /// 10 ms units.
    public var supervisionTimeout: UInt16
    /// The address this side of the link uses: the own address of a connect, the advertising
    /// set's address for a peripheral. nil for a peripheral link on an extended controller until
    /// LE Advertising Set Terminated names the set (`connectionIdentified` follows).
    public var localAddress: BluetoothAddress?
    /// The advertising set a peripheral link came in on (nil for central links, and until known).
    public var advertisingSet: UInt8?
}

/// What the host tells the upper layer.
public enum HostEvent: Hashable, Sendable {
    case ready(ControllerInfo)
    case advertisement(AdvertisementReport)
    case connected(ConnectionInfo)
    /// A peripheral link's advertising set became known (LE Advertising Set Terminated, which
    /// follows the connection complete event on an extended controller).
    case connectionIdentified(handle: UInt16, set: UInt8, localAddress: BluetoothAddress)
    case disconnected(handle: UInt16, reason: UInt8)
    case connectionUpdated(handle: UInt16, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
    case mtuChanged(handle: UInt16, mtu: Int)
    /// A notification or indication from the peer's server (the host confirms indications itself).
    case notification(handle: UInt16, attribute: UInt16, value: [UInt8], indication: Bool)
    /// A peer wrote one of our characteristics (after Execute Write for a long write).
    case gattWrite(handle: UInt16, characteristic: BluetoothUUID, valueHandle: UInt16, value: [UInt8], kind: GATTServerEvent.WriteKind)
    /// A peer wrote one of our CCCDs.
    case subscriptionChanged(handle: UInt16, characteristic: BluetoothUUID, valueHandle: UInt16, notify: Bool, indicate: Bool)
    case completed(OperationID, OperationResult)
    case failed(OperationID, HostFailure)
    /// The controller failed (hardware error, unanswered command, refused init step, lost H4 sync):
    /// the host is in `failed` until the next `powerOn`.
    case controllerFailed(HostFailure)
    /// Bytes the host refused and dropped (a malformed event, ACL fragment, frame or PDU).
    /// Diagnostic: the link goes on.
    case malformed(layer: String, HostWireError)
}

/// What the caller must carry out, in order.
public enum HostAction: Hashable, Sendable {
    /// Write `packet.encoded()` (H4 bytes) to the controller.
    case send(H4Packet)
    /// Feed `.timer(id)` back at `at` (or later).
    case setTimer(HostTimerID, at: HostInstant)
    case event(HostEvent)
}

/// Bounds and timeouts; defaults suit a tester against Bumble or a phone.
public struct LEHostConfig: Hashable, Sendable {
    public enum ExtendedMode: Hashable, Sendable { case auto, never }
    /// Use extended advertising / scanning / create connection when the controller has them (`auto`).
    public var extended: ExtendedMode = .auto
    /// How long the controller may take to answer an HCI command.
    public var commandTimeout: Duration = .seconds(5)
    /// ATT transaction timeout (Vol 3 Part F 3.3.3: 30 s).
    public var attTimeout: Duration = .seconds(30)
    /// ATT_MTU the server accepts and the client offers by default.
    public var localMTU: UInt16 = 517
    public var maxConnections = 8
    /// HCI commands waiting behind the one in flight.
    public var maxQueuedCommands = 64
    /// ACL packets waiting for controller buffers, all connections together.
    public var maxQueuedACLPackets = 512
    /// Client operations waiting per connection.
    public var maxQueuedOperations = 32
    /// Largest L2CAP frame accepted from a peer (4-byte header included).
    public var maxL2CAPFrame = 4 + 517
    public var maxAttributes = 512
    public var maxPreparedWrites = 64
    public var maxPreparedBytes = 2048
    /// Set_Event_Mask: the default events plus LE Meta (bit 61).
    public var eventMask: UInt64 = 0x2000_1FFF_FFFF_FFFF
    /// LE_Set_Event_Mask: connection complete, advertising report, connection update complete,
    /// read remote features complete, enhanced connection complete, extended advertising report,
    /// advertising set terminated. Remote connection parameter request (bit 5) stays off so the
    /// controller answers those itself.
    public var leEventMask: UInt64 = 0x0000_0000_0002_0A0F
    public init() {}
}
