import BLEHost
import Foundation
import MeshNode
import MeshWire

/// Runs a MeshNode reference node on its dialect's GATT binding (docs/dialects/*.md, "GATT
/// binding") in both roles, as the apps do. As peripheral: each central that connects and
/// subscribes is one link; a write to the packet characteristic is bytes received on that
/// link; the node's send is a notification. As central (`central` set): it scans for the
/// dialect's service and connects to the peers it hears (`CentralPeers` decides which and
/// when), subscribes to their packet characteristic; their notifications are bytes received,
/// the node's send is a write by the binding's write rule. One dialect packet (relay) or
/// chunk (blemesh) per value either way.
///
/// The bridge only translates: the node decides everything, the runtime does the I/O.
public final class GATTNodeBridge {
    /// What happened, for the CLI's log and for tests.
    public enum Note: Sendable, CustomStringConvertible {
        case advertising(address: BluetoothAddress, extended: Bool)
        case connected(UInt16, peer: BluetoothAddress)
        case scanning
        /// The node connected out, as central, to a peer advertising the service.
        case connectedOut(UInt16, peer: BluetoothAddress)
        /// Connecting out or setting the link up failed; the peer is tried again after `retry`.
        case centralFailed(peer: BluetoothAddress, why: String, retry: Duration)
        /// The peer is linked both ways; this connection is the one both sides drop.
        case duplicate(UInt16, peer: BluetoothAddress)
        case linkUp(LinkID, mtu: Int)
        case linkDown(LinkID, reason: UInt8)
        case received(LinkID, bytes: Int)
        case sent(LinkID, bytes: Int)
        /// A send the link could not carry (not subscribed, value above ATT_MTU - 3, queue full).
        case dropped(LinkID, bytes: Int, why: String)
        case delivered(AppMessage)
        case acknowledged(String)
        /// The last link (either role) went and the node was replaced by a fresh one (`freshNode`).
        case reset

        public var description: String {
            switch self {
            case .advertising(let a, let ext): "advertising as \(a.string) (\(ext ? "extended" : "legacy") controller)"
            case .connected(let handle, let peer): "central \(peer.string) connected (handle \(handle))"
            case .scanning: "scanning for the service's peers (central role)"
            case .connectedOut(let handle, let peer): "connected out to peripheral \(peer.string) (handle \(handle))"
            case .centralFailed(let peer, let why, let retry): "linking to \(peer.string) failed: \(why); next try in \(retry)"
            case .duplicate(let handle, let peer): "\(peer.string) is linked both ways: dropping handle \(handle)"
            case .linkUp(let l, let mtu): "\(l) up (ATT_MTU \(mtu))"
            case .linkDown(let l, let reason): "\(l) down (reason 0x\(String(reason, radix: 16)))"
            case .received(let l, let n): "\(l) -> node: \(n) bytes"
            case .sent(let l, let n): "node -> \(l): \(n) bytes"
            case .dropped(let l, let n, let why): "node -> \(l): \(n) bytes dropped: \(why)"
            case .delivered(let m): "delivered message \(m.messageID) from \(m.origin): \(m.payload.count) bytes"
            case .acknowledged(let id): "message \(id) acknowledged"
            case .reset: "no link left in either role: the node starts afresh (same identity)"
            }
        }
    }

    public let runtime: HostRuntime
    public let binding: GATTBinding
    public private(set) var node: Node
    private var service: RegisteredService?
    private var packetValueHandle: UInt16 = 0
    private var advertisedName: String?
    private var advertisingInterval: UInt16 = 0x20
    private var nodeTimers: [TimerID: Instant] = [:]
    /// Connections from centrals, by handle.
    private var connected: Set<UInt16> = []
    /// Connections the node made as central, by handle once connected.
    private var outgoing: [UInt16: Outgoing] = [:]
    /// The one connect in flight (the host makes one at a time), with its peer.
    private var connecting: (op: OperationID, peer: BluetoothAddress)?
    /// Client operations of the outgoing links' setup, by operation.
    private var setupOps: [OperationID: UInt16] = [:]
    /// Connections that are links of the node: the central subscribed to the packet
    /// characteristic or wrote it (RELAY-G1 / BLEMESH-G1). Waiting for that, rather than
    /// bringing the link up at connection, lets the node's first sends (blemesh ANNOUNCE)
    /// go out after the central's MTU exchange instead of being dropped at ATT_MTU 23.
    private var links: Set<UInt16> = []
    private let notes: (Note) -> Void
    /// When set, the node is replaced by a fresh one each time its last link (either role)
    /// goes: a test aid (`meshconform node --fresh-when-idle`) so that a crashed node comes
    /// back for over-the-air fuzzing; no real device does it.
    public var freshNode: (() -> Node)?
    /// The central role (nil: peripheral only). Set before `start`.
    public var central: CentralOptions?
    private var peers = CentralPeers()
    private var ownAddress: [UInt8] = []

    /// How the node plays central.
    public struct CentralOptions: Sendable {
        /// Outgoing links at once.
        public var maxLinks = 3
        /// One connection attempt.
        public var connectTimeout: Duration = .seconds(5)
        /// Connected to usable link: MTU exchange, discovery, subscription.
        public var setupTimeout: Duration = .seconds(10)
        /// Backoff after a failure, doubling per failure up to `maxBackoff`.
        public var backoff: Duration = .seconds(1)
        public var maxBackoff: Duration = .seconds(30)
        public init() {}
    }

    /// An outgoing link: connected, then set up step by step until subscribed.
    private struct Outgoing {
        var peer: BluetoothAddress
        /// When the setup must have finished (the link is dropped otherwise).
        var setupDeadline: ContinuousClock.Instant
        /// The peer's packet characteristic, once discovered.
        var packet: DiscoveredCharacteristic?
        var up = false
        /// Why the node is dropping it before it came up (said when the disconnection comes).
        var failure: String?
    }

    public init(runtime: HostRuntime, node: Node, binding: GATTBinding, notes: @escaping (Note) -> Void = { _ in }) {
        self.runtime = runtime
        self.node = node
        self.binding = binding
        self.notes = notes
    }

    /// The node id characteristic's value, as the dialect's binding defines it.
    public static func nodeIDValue(_ address: NodeAddress, dialect: DialectName) -> [UInt8] {
        switch dialect {
        case .blemesh: Array((address.uuid?.uuidString ?? address.description).utf8)   // 36 bytes, uppercase
        // CAMP-G1 presence: written once at registration, so no clock: timestamp 0 (2001-01-01).
        case .camp: JSONWriter.write(.object([("timestamp", .double(0)), ("userID", .string(address.campUserID)),
                                              ("userName", .string("meshconform"))]))
        case .peat: PeatDocument(version: 1, nodeID: address.peatNode).encoded()        // a document naming the node (PEAT-G1)
        default: address.bytes                                                           // 16 raw bytes
        }
    }

    /// The identity a peat node id value (a read of the document characteristic) names: a
    /// plain document's `node_id`; nil for anything else (an encrypted document needs the
    /// mesh secret).
    public static func peatAddress(fromNodeIDValue value: [UInt8]) -> NodeAddress? {
        guard case .document(let document)? = try? PeatValue(decoding: value) else { return nil }
        return NodeAddress(peatNode: document.nodeID)
    }

    /// Registers the service, powers the controller on with `randomAddress` and starts
    /// advertising the service every `interval` (0.625 ms units; 0x20 = 20 ms).
    public func start(randomAddress: BluetoothAddress, name: String? = nil, interval: UInt16 = 0x20,
                      timeout: Duration = .seconds(10)) throws(RadioError) {
        let definition = binding.serviceDefinition(nodeID: Self.nodeIDValue(node.address, dialect: node.dialect))
        let registered: RegisteredService
        do {
            registered = try runtime.registerService(definition)
        } catch {
            throw .operationFailed(command: "register the \(binding.dialect) service", .invalidParameter("\(error)"))
        }
        guard let packet = registered.characteristic(binding.packet.uuid) else {
            throw .operationFailed(command: "register the \(binding.dialect) service", .invalidParameter("no packet characteristic"))
        }
        service = registered
        advertisedName = name
        advertisingInterval = interval
        packetValueHandle = packet.valueHandle
        let info = try runtime.powerOn(randomAddress: randomAddress, timeout: timeout)
        guard let ad = AdvertisingData.forService(binding.service, name: name) else {
            throw .operationFailed(command: "advertise", .invalidParameter("the service UUID does not fit 31 bytes"))
        }
        _ = try runtime.perform(.startAdvertising(AdvertisingRequest(data: ad.encoded(), interval: interval)), until: .now + timeout)
        notes(.advertising(address: info.randomAddress, extended: info.extended))
        ownAddress = info.randomAddress.bytes
        if let central {
            peers = CentralPeers(own: ownAddress, maxLinks: central.maxLinks, base: central.backoff, cap: central.maxBackoff)
            // Passive, half duty cycle: the node only needs to hear the service UUID.
            _ = try runtime.perform(.startScanning(ScanRequest(active: false, interval: 0x40, window: 0x20)), until: .now + timeout)
            notes(.scanning)
        }
    }

    /// Serves centrals until `deadline`. Returns at the deadline; throws when the controller
    /// or transport fails.
    public func run(until deadline: ContinuousClock.Instant) throws(RadioError) {
        while ContinuousClock.now < deadline {
            let wake = nodeTimers.values.min().map { min(runtime.wallInstant(HostInstant(nanoseconds: $0.nanoseconds)), deadline) } ?? deadline
            let soonest = outgoing.values.filter { !$0.up && $0.failure == nil }.map(\.setupDeadline).min().map { min($0, wake) } ?? wake
            if let event = try runtime.nextEvent(until: soonest) {
                try handle(event)
            }
            try fireNodeTimers()
            try dropStalledSetups()
        }
    }

    /// The node's links now, by peer address and direction (for the exit summary and tests).
    public var currentLinks: [(peer: BluetoothAddress, outgoing: Bool)] {
        links.sorted().compactMap { handle in
            if let out = outgoing[handle] { return (out.peer, true) }
            return runtime.host.connection(handle).map { ($0.peer, false) }
        }
    }

    private var nodeNow: Instant { Instant(nanoseconds: runtime.now.nanoseconds) }

    private func handle(_ event: HostEvent) throws(RadioError) {
        switch event {
        case .connected(let info) where info.role == .central:
            // Ours: the completion of `connecting` follows and starts the setup.
            break
        case .connected(let info):
            connected.insert(info.handle)
            notes(.connected(info.handle, peer: info.peer))
            // Only one central at a time connects to an advertiser; advertise again for the next.
            if !runtime.host.advertising, runtime.host.connectionHandles.count < runtime.host.config.maxConnections {
                try readvertise()
            }
            try dropDuplicate(of: info.peer)
        case .advertisement(let report):
            try consider(report)
        case .completed(let op, let result):
            try advanceSetup(op, result)
        case .failed(let op, let why) where op == connecting?.op || setupOps[op] != nil:
            try setupFailed(op, "\(why)")
        case .notification(let handle, let attribute, let value, _):
            guard let link = outgoing[handle], link.up, attribute == link.packet?.valueHandle else { return }
            notes(.received(LinkID(Int(handle)), bytes: value.count))
            try step(.received(value, on: LinkID(Int(handle))))
        case .disconnected(let handle, let reason) where outgoing[handle] != nil:
            let link = outgoing.removeValue(forKey: handle)!
            setupOps = setupOps.filter { $0.value != handle }
            let retry = link.up ? peers.lost(link.peer.bytes, at: runtime.now) : peers.failed(link.peer.bytes, at: runtime.now)
            if !link.up {
                notes(.centralFailed(peer: link.peer, why: link.failure ?? "disconnected during setup (reason 0x\(String(reason, radix: 16)))", retry: retry))
            }
            if links.remove(handle) != nil {
                notes(.linkDown(LinkID(Int(handle)), reason: reason))
                try step(.linkDown(LinkID(Int(handle))))
            }
            try resetWhenIdle()
        case .disconnected(let handle, let reason):
            guard connected.remove(handle) != nil else { return }
            if links.remove(handle) != nil {
                notes(.linkDown(LinkID(Int(handle)), reason: reason))
                try step(.linkDown(LinkID(Int(handle))))
            }
            try resetWhenIdle()
            if !runtime.host.advertising { try readvertise() }
        case .subscriptionChanged(let handle, let characteristic, _, let notify, _):
            if notify, characteristic.matches(binding.packet.uuid) { try bringUp(handle) }
        case .gattWrite(let handle, let characteristic, _, let value, _):
            guard characteristic.matches(binding.packet.uuid), connected.contains(handle) else { return }
            try bringUp(handle)
            notes(.received(LinkID(Int(handle)), bytes: value.count))
            try step(.received(value, on: LinkID(Int(handle))))
        case .failed(_, let why):
            // A notification or re-advertising the host could not do: the packet is lost on that link.
            notes(.dropped(LinkID(0), bytes: 0, why: "\(why)"))
        default:
            break
        }
    }

    private func bringUp(_ handle: UInt16) throws(RadioError) {
        guard connected.contains(handle), links.insert(handle).inserted else { return }
        let mtu = runtime.host.mtu(of: handle) ?? 23
        notes(.linkUp(LinkID(Int(handle)), mtu: mtu))
        // The node notifies on this link: each value fits ATT_MTU - 3 (RELAY-G3, BLEMESH-G3).
        // At 23 the central has not exchanged the MTU yet (it may after subscribing), and no
        // blemesh chunk fits 20 bytes anyway: the node is not held to it, and `notify` drops
        // what does not fit until the exchange.
        try step(.linkUp(LinkID(Int(handle)), peer: nil, maxUnit: mtu > 23 ? GATTBinding.singlePDUValueLimit(mtu: mtu) : nil))
    }

    /// Peripheral and central both gone: the fresh-node test aid starts afresh.
    private func resetWhenIdle() throws(RadioError) {
        guard connected.isEmpty, outgoing.isEmpty, let freshNode else { return }
        node = freshNode()
        nodeTimers = [:]
        notes(.reset)
    }

    // MARK: central role

    /// Every peer the node has a connection with or is connecting to, by address bytes.
    private var linkedPeers: Set<[UInt8]> {
        var peers = Set(outgoing.values.map(\.peer.bytes))
        for handle in connected { if let c = runtime.host.connection(handle) { peers.insert(c.peer.bytes) } }
        if let connecting { peers.insert(connecting.peer.bytes) }
        return peers
    }

    /// An advertiser of the dialect's service that the node is not linked with: connect to it.
    private func consider(_ report: AdvertisementReport) throws(RadioError) {
        guard let central, report.connectable, report.address.bytes != ownAddress,
              report.ad?.serviceUUIDs.contains(where: { $0.matches(binding.service) }) == true else { return }
        peers.heard(report.address.bytes, at: runtime.now)
        guard connecting == nil,
              runtime.host.connectionHandles.count < runtime.host.config.maxConnections,
              peers.shouldConnect(report.address.bytes, at: runtime.now, linked: linkedPeers, outgoing: outgoing.count)
        else { return }
        let op = try runtime.submit(.connect(report.address, timeout: central.connectTimeout))
        connecting = (op, report.address)
    }

    /// The next setup step of an outgoing link: connected, MTU, discovery, subscription, up.
    private func advanceSetup(_ op: OperationID, _ result: OperationResult) throws(RadioError) {
        if let (connectOp, peer) = connecting, connectOp == op {
            connecting = nil
            guard case .connected(let handle) = result, let central else { return }
            outgoing[handle] = Outgoing(peer: peer, setupDeadline: .now + central.setupTimeout)
            notes(.connectedOut(handle, peer: peer))
            if try dropDuplicate(of: peer) { return }
            setupOps[try runtime.submit(.exchangeMTU(handle: handle, mtu: binding.requestedMTU))] = handle
            return
        }
        guard let handle = setupOps.removeValue(forKey: op), var link = outgoing[handle] else { return }
        switch result {
        case .mtu:
            setupOps[try runtime.submit(.discover(handle: handle, service: binding.service))] = handle
        case .service(let service):
            guard let packet = service.characteristic(binding.packet.uuid), let cccd = packet.cccdHandle else {
                return try abandon(handle, "its \(binding.dialect) service has no notifiable packet characteristic")
            }
            link.packet = packet
            outgoing[handle] = link
            setupOps[try runtime.submit(.subscribe(handle: handle, cccdHandle: cccd))] = handle
        default:
            // Subscribed: a link of the node.
            link.up = true
            outgoing[handle] = link
            peers.linked(link.peer.bytes)
            links.insert(handle)
            let mtu = runtime.host.mtu(of: handle) ?? 23
            notes(.linkUp(LinkID(Int(handle)), mtu: mtu))
            // The node writes on this link: long writes carry up to the attribute limit, unless
            // the binding writes commands only, which fit ATT_MTU - 3.
            let maxUnit = binding.writeRule == .writeCommandOnly ? GATTBinding.singlePDUValueLimit(mtu: mtu) : binding.maxValueSize
            try step(.linkUp(LinkID(Int(handle)), peer: nil, maxUnit: maxUnit))
        }
    }

    private func setupFailed(_ op: OperationID, _ why: String) throws(RadioError) {
        if let (connectOp, peer) = connecting, connectOp == op {
            connecting = nil
            notes(.centralFailed(peer: peer, why: "connect: \(why)", retry: peers.failed(peer.bytes, at: runtime.now)))
        } else if let handle = setupOps.removeValue(forKey: op) {
            try abandon(handle, why)
        }
    }

    /// Drops an outgoing link whose setup failed; its disconnection backs the peer off.
    private func abandon(_ handle: UInt16, _ why: String) throws(RadioError) {
        guard let link = outgoing[handle], !link.up, link.failure == nil else { return }
        outgoing[handle]?.failure = why   // the disconnect is under way; do not ask twice
        try runtime.submit(.disconnect(handle: handle))
    }

    private func dropStalledSetups() throws(RadioError) {
        let now = ContinuousClock.now
        for (handle, link) in outgoing where !link.up && link.failure == nil && link.setupDeadline <= now {
            try abandon(handle, "the setup did not finish within \(central?.setupTimeout ?? .zero)")
        }
    }

    /// A peer linked both ways (both nodes connected at once): drop the connection the tie-break
    /// says both sides drop. True when it dropped the outgoing one.
    @discardableResult
    private func dropDuplicate(of peer: BluetoothAddress) throws(RadioError) -> Bool {
        guard let (out, _) = outgoing.first(where: { $0.value.peer.bytes == peer.bytes }),
              let inbound = connected.first(where: { runtime.host.connection($0)?.peer.bytes == peer.bytes }) else { return false }
        if CentralPeers.keeps(central: ownAddress, peripheral: peer.bytes) {
            notes(.duplicate(inbound, peer: peer))
            try runtime.submit(.disconnect(handle: inbound))
            return false
        }
        // Up or not, the outgoing one goes: the peer keeps its own outgoing connection too.
        if outgoing[out]?.failure == nil {
            notes(.duplicate(out, peer: peer))
            outgoing[out]?.failure = "linked both ways; the peer's connection is the one kept"
            try runtime.submit(.disconnect(handle: out))
        }
        return true
    }

    private func readvertise() throws(RadioError) {
        guard let ad = AdvertisingData.forService(binding.service, name: advertisedName) else { return }
        try runtime.submit(.startAdvertising(AdvertisingRequest(data: ad.encoded(), interval: advertisingInterval)))
    }

    private func fireNodeTimers() throws(RadioError) {
        let t = nodeNow
        for (id, at) in nodeTimers.sorted(by: { $0.value < $1.value }) where at <= t {
            nodeTimers[id] = nil
            try step(.timer(id))
        }
    }

    /// A send on an outgoing link: a write by the binding's write rule (RELAY-G3 write request,
    /// long write above ATT_MTU - 3; BLEMESH-G3 write command when it fits; BITCHAT-G2 and
    /// SIMPLE-G2 write command only). Not waited for: a failure comes back as `.failed`.
    private func write(_ bytes: [UInt8], _ link: LinkID, _ handle: UInt16, _ attribute: UInt16) throws(RadioError) {
        let fits = bytes.count <= GATTBinding.singlePDUValueLimit(mtu: runtime.host.mtu(of: handle) ?? 23)
        let command: HostCommand
        switch binding.writeRule {
        case .writeCommandOnly:
            guard fits else { return notes(.dropped(link, bytes: bytes.count, why: "above ATT_MTU - 3 (write command only)")) }
            command = .writeCommand(handle: handle, attribute: attribute, value: bytes)
        case .writeCommandWhenItFits where fits:
            command = .writeCommand(handle: handle, attribute: attribute, value: bytes)
        default:
            guard bytes.count <= binding.maxValueSize else {
                return notes(.dropped(link, bytes: bytes.count, why: "above the \(binding.maxValueSize)-byte attribute limit"))
            }
            command = .write(handle: handle, attribute: attribute, value: bytes)
        }
        try runtime.submit(command)
        notes(.sent(link, bytes: bytes.count))
    }

    /// Gives the node one event and carries out its actions.
    private func step(_ event: NodeEvent) throws(RadioError) {
        for action in node.handle(event, at: nodeNow) {
            switch action {
            case .send(let bytes, let link):
                let handle = UInt16(truncatingIfNeeded: link.raw)
                guard links.contains(handle) else { continue }
                if let packet = outgoing[handle]?.packet {
                    try write(bytes, link, handle, packet.valueHandle)
                } else {
                    try notify(bytes, link, handle)
                }
                // PEAT-G1: a read returns the node's current document, the last one it wrote
                // (it writes every change, and at least every 2 s, to every link).
                if node.dialect == .peat, bytes.first.map({ !(PeatWire.frameMarkers ~= $0) || $0 == PeatWire.encryptedMarker }) == true {
                    runtime.setValue(bytes, valueHandle: packetValueHandle)
                }
            case .setTimer(let id, let at):
                nodeTimers[id] = at
            case .cancelTimer(let id):
                nodeTimers[id] = nil
            case .deliver(let message):
                notes(.delivered(message))
            case .disconnect(let link):
                try runtime.submit(.disconnect(handle: UInt16(truncatingIfNeeded: link.raw)))
            case .acknowledged(let id):
                notes(.acknowledged(id))
            }
        }
    }

    /// A send on a link the peer made: a notification, when it fits and the peer subscribed.
    private func notify(_ bytes: [UInt8], _ link: LinkID, _ handle: UInt16) throws(RadioError) {
        let mtu = runtime.host.mtu(of: handle) ?? 23
        if bytes.count > GATTBinding.singlePDUValueLimit(mtu: mtu) {
            // RELAY-G3 / BLEMESH-G3: a notification must fit ATT_MTU - 3; never truncate.
            notes(.dropped(link, bytes: bytes.count, why: "above ATT_MTU - 3 = \(mtu - 3)"))
        } else if !runtime.host.isSubscribed(handle, valueHandle: packetValueHandle) {
            notes(.dropped(link, bytes: bytes.count, why: "the central has not subscribed"))
        } else {
            try runtime.submit(.notify(handle: handle, valueHandle: packetValueHandle, value: bytes))
            notes(.sent(link, bytes: bytes.count))
        }
    }
}
