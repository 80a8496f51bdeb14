import BLEHost
import BLERadio
import Conformance
import Foundation
import HCITransport
import MeshNode

/// One tester identity on the air: link `link` of every check, played by one adapter with its
/// own random static address. The adapter connects to the DUT from that address (a central
/// link) and advertises the dialect's service from it in advertising set `set` (so a DUT that
/// connects out, as a central, reaches this identity).
public struct TesterIdentity: Hashable, Sendable {
    public var link: LinkID
    /// Index of the adapter in the driver's list (0-based).
    public var adapter: Int
    /// The advertising set; also the identity's index on its adapter.
    public var set: UInt8
    public var address: BluetoothAddress
}

/// One HCI adapter, powered on once per run, holding the dialect's GATT service and playing one
/// or several tester identities: one per advertising set on a controller with LE extended
/// advertising (up to `Options.identitiesPerAdapter`, and the controller's number of sets), one
/// on a legacy controller (one random address: docs/radio.md, "Several identities per adapter").
public final class TesterAdapter {
    /// 0-based position among the run's adapters.
    public let index: Int
    public let runtime: HostRuntime
    public let info: ControllerInfo
    let binding: GATTBinding
    let seed: UInt64
    /// Identities this adapter can play, and why that many (for the report).
    public let capacity: Int
    public let capacityReason: String
    /// The identities the link plan gave this adapter, by set.
    public internal(set) var identities: [TesterIdentity] = []
    /// The tester service's node id characteristic (value handle), where the binding has one.
    let nodeIDHandle: UInt16?
    /// Advertising interval of the tester's own service, 0.625 ms units. Slower than a node's
    /// 20 ms: a DUT connecting out is not on any check's critical path, and every advertisement
    /// costs the virtual link's CPU.
    let advertisingInterval: UInt16 = 0xA0

    init(index: Int, runtime: HostRuntime, info: ControllerInfo, binding: GATTBinding, nodeIDHandle: UInt16?, seed: UInt64, wanted: Int) {
        self.index = index
        self.runtime = runtime
        self.info = info
        self.binding = binding
        self.nodeIDHandle = nodeIDHandle
        self.seed = seed
        if info.extended {
            capacity = max(1, min(wanted, info.advertisingSets))
            capacityReason = info.advertisingSets < wanted
                ? "extended advertising; the controller keeps \(info.advertisingSets) advertising set(s)"
                : "extended advertising (\(info.advertisingSets) advertising sets); \(wanted) identities are asked for"
        } else {
            capacity = 1
            capacityReason = "no LE extended advertising: a legacy controller has one random address, so one identity"
        }
    }

    public var name: String { runtime.transport.name }

    /// Identity `set`'s address: identity 0 keeps the address one identity per adapter always had.
    public func address(ofIdentity set: Int) -> BluetoothAddress {
        set == 0 ? info.randomAddress : Self.randomStaticAddress(seed: seed, index: index + 1 + 64 * set)
    }

    /// Registers the tester's service (node id = the adapter's first tester's mesh id, until a
    /// check names its identities: `name(_:as:)`) and powers the controller on.
    static func open(transport: any HCITransport, index: Int, binding: GATTBinding, nodeID: [UInt8], seed: UInt64,
                     wanted: Int, timeout: Duration) throws(RadioError) -> TesterAdapter {
        var config = LEHostConfig()
        // A central link and a DUT-made peripheral link per identity, with room to spare.
        config.maxConnections = max(config.maxConnections, 2 * wanted + 2)
        let runtime = HostRuntime(transport: transport, config: config)
        let registered: RegisteredService
        do {
            registered = try runtime.registerService(binding.serviceDefinition(nodeID: nodeID))
        } catch {
            throw .operationFailed(command: "register the \(binding.dialect) service", .invalidParameter("\(error)"))
        }
        let info = try runtime.powerOn(randomAddress: randomStaticAddress(seed: seed, index: index + 1), timeout: timeout)
        return TesterAdapter(index: index, runtime: runtime, info: info, binding: binding,
                             nodeIDHandle: binding.nodeID.flatMap { registered.characteristic($0.uuid)?.valueHandle }, seed: seed, wanted: wanted)
    }

    /// What a DUT reading the node id characteristic through `identity` gets from now on: the
    /// id of the tester it plays in this check (`peer`; blemesh, camp and peat testers have new
    /// ids per check). The adapter's identities share one GATT database; the value is theirs
    /// each (`LEHost.setValue(_:valueHandle:forLocalAddress:)`), so a DUT that learns its
    /// neighbour from that characteristic (BLEMESH-R1, RELAY-G1) learns the right one on every link.
    func name(_ identity: TesterIdentity, as peer: NodeAddress, dialect: DialectName) {
        guard let nodeIDHandle else { return }
        runtime.setValue(GATTNodeBridge.nodeIDValue(peer, dialect: dialect), valueHandle: nodeIDHandle, forLocalAddress: identity.address)
    }

    /// The identity that owns a connection, by the address the connection uses on our side.
    func identity(at local: BluetoothAddress?) -> TesterIdentity? {
        guard let local else { return nil }
        return identities.first { $0.address.bytes == local.bytes }
    }

    private func request(_ identity: TesterIdentity) -> AdvertisingRequest? {
        guard let ad = AdvertisingData.forService(binding.service) else { return nil }
        return AdvertisingRequest(data: ad.encoded(), interval: advertisingInterval, set: identity.set,
                                  address: info.extended ? identity.address : nil)
    }

    /// Advertises the dialect's service from one identity (its own set and address), so a DUT
    /// that also plays central can connect to it.
    func advertise(_ identity: TesterIdentity, until deadline: ContinuousClock.Instant) throws(RadioError) {
        guard !runtime.host.isAdvertising(set: identity.set), let req = request(identity) else { return }
        _ = try runtime.perform(.startAdvertising(req), until: deadline)
    }

    /// The same, without waiting (after a connection to the identity ended its set's advertising).
    func readvertise(_ identity: TesterIdentity) throws(RadioError) {
        guard !runtime.host.isAdvertising(set: identity.set), let req = request(identity) else { return }
        try runtime.submit(.startAdvertising(req))
    }

    /// A random static address (Core Vol 6 Part B 1.3.2.1: two top bits set) from the run's seed.
    static func randomStaticAddress(seed: UInt64, index: Int) -> BluetoothAddress {
        var random = SeededRandom(seed: seed ^ (0x7E57_E400_0000_0000 &+ UInt64(index)))
        var bytes: [UInt8] = []
        for _ in 0..<6 {
            bytes.append(UInt8(truncatingIfNeeded: random.next()))
        }
        bytes[0] |= 0xC0
        return try! BluetoothAddress(bytes: bytes, type: .random)
    }
}
