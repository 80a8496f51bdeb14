import BLEHost
import Foundation
import MeshNode
import MeshWire

/// Runs a MeshNode reference node as a GATT peripheral of its dialect's binding
/// (docs/dialects/*.md, "GATT binding"): each central that connects is one link; a write to
/// the packet characteristic is bytes received on that link; the node's send on a link is a
/// notification on that connection, one dialect packet (relay) or chunk (blemesh) per value.
///
/// The bridge only translates: the node decides everything, the runtime does the I/O.
public final class GATTNodeBridge {
    /// What happened, for the CLI's log and for tests.
    public enum Note: Sendable, CustomStringConvertible {
        case advertising(address: BluetoothAddress, extended: Bool)
        case connected(UInt16, peer: BluetoothAddress)
        case linkUp(LinkID, mtu: Int)
        case linkDown(LinkID, reason: UInt8)
        case received(LinkID, bytes: Int)
        case sent(LinkID, bytes: Int)
        /// A send the link could not carry (not subscribed, value above ATT_MTU - 3, queue full).
        case dropped(LinkID, bytes: Int, why: String)
        case delivered(AppMessage)
        case acknowledged(String)
        /// The last central left and the node was replaced by a fresh one (`freshNode`).
        case reset

        public var description: String {
            switch self {
            case .advertising(let a, let ext): "advertising as \(a.string) (\(ext ? "extended" : "legacy") controller)"
            case .connected(let handle, let peer): "central \(peer.string) connected (handle \(handle))"
            case .linkUp(let l, let mtu): "\(l) up (ATT_MTU \(mtu))"
            case .linkDown(let l, let reason): "\(l) down (reason 0x\(String(reason, radix: 16)))"
            case .received(let l, let n): "\(l) -> node: \(n) bytes"
            case .sent(let l, let n): "node -> \(l): \(n) bytes (notification)"
            case .dropped(let l, let n, let why): "node -> \(l): \(n) bytes dropped: \(why)"
            case .delivered(let m): "delivered message \(m.messageID) from \(m.origin): \(m.payload.count) bytes"
            case .acknowledged(let id): "message \(id) acknowledged"
            case .reset: "no central left: the node starts afresh (same identity)"
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
    /// Connections that are links of the node: the central subscribed to the packet
    /// characteristic or wrote it (RELAY-G1 / BLEMESH-G1). Waiting for that, rather than
    /// bringing the link up at connection, lets the node's first sends (blemesh ANNOUNCE)
    /// go out after the central's MTU exchange instead of being dropped at ATT_MTU 23.
    private var links: Set<UInt16> = []
    private let notes: (Note) -> Void
    /// When set, the node is replaced by a fresh one each time its last central disconnects:
    /// the conformance suite runs every check on a fresh DUT, and over the air the only way
    /// to give it one is a node that forgets everything when idle (`meshconform node --fresh-when-idle`).
    public var freshNode: (() -> Node)?

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
    }

    /// Serves centrals until `deadline`. Returns at the deadline; throws when the controller
    /// or transport fails.
    public func run(until deadline: ContinuousClock.Instant) throws(RadioError) {
        while ContinuousClock.now < deadline {
            let wake = nodeTimers.values.min().map { min(runtime.wallInstant(HostInstant(nanoseconds: $0.nanoseconds)), deadline) } ?? deadline
            if let event = try runtime.nextEvent(until: wake) {
                try handle(event)
            }
            try fireNodeTimers()
        }
    }

    private var nodeNow: Instant { Instant(nanoseconds: runtime.now.nanoseconds) }

    private func handle(_ event: HostEvent) throws(RadioError) {
        switch event {
        case .connected(let info):
            connected.insert(info.handle)
            notes(.connected(info.handle, peer: info.peer))
            // Only one central at a time connects to an advertiser; advertise again for the next.
            if !runtime.host.advertising, connected.count < runtime.host.config.maxConnections {
                try readvertise()
            }
        case .disconnected(let handle, let reason):
            guard connected.remove(handle) != nil else { return }
            if links.remove(handle) != nil {
                notes(.linkDown(LinkID(Int(handle)), reason: reason))
                try step(.linkDown(LinkID(Int(handle))))
            }
            if connected.isEmpty, let freshNode {
                node = freshNode()
                nodeTimers = [:]
                notes(.reset)
            }
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
        notes(.linkUp(LinkID(Int(handle)), mtu: runtime.host.mtu(of: handle) ?? 23))
        try step(.linkUp(LinkID(Int(handle)), peer: nil))
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

    /// Gives the node one event and carries out its actions.
    private func step(_ event: NodeEvent) throws(RadioError) {
        for action in node.handle(event, at: nodeNow) {
            switch action {
            case .send(let bytes, let link):
                let handle = UInt16(truncatingIfNeeded: link.raw)
                guard links.contains(handle) else { continue }
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
}
