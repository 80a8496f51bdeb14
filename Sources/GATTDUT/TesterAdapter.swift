import BLEHost
import BLERadio
import Conformance
import Foundation
import HCITransport
import MeshNode

/// One tester identity on the air: one HCI adapter, powered on once per run with its own
/// random static address, holding the dialect's GATT service (so a DUT that connects out, as
/// a central, can write to the tester) and playing link `link` of every check.
public final class TesterAdapter {
    public let link: LinkID
    public let runtime: HostRuntime
    public let address: BluetoothAddress
    public let info: ControllerInfo
    let binding: GATTBinding
    /// Advertising interval of the tester's own service, 0.625 ms units. Slower than a node's
    /// 20 ms: a DUT connecting out is not on any check's critical path, and every advertisement
    /// costs the virtual link's CPU.
    let advertisingInterval: UInt16 = 0xA0

    init(link: LinkID, runtime: HostRuntime, address: BluetoothAddress, info: ControllerInfo, binding: GATTBinding) {
        self.link = link
        self.runtime = runtime
        self.address = address
        self.info = info
        self.binding = binding
    }

    /// Registers the tester's service (node id = tester `n`'s mesh id) and powers the controller on.
    static func open(transport: any HCITransport, link: LinkID, binding: GATTBinding, nodeID: [UInt8], seed: UInt64,
                     timeout: Duration) throws(RadioError) -> TesterAdapter {
        let runtime = HostRuntime(transport: transport)
        do {
            _ = try runtime.registerService(binding.serviceDefinition(nodeID: nodeID))
        } catch {
            throw .operationFailed(command: "register the \(binding.dialect) service", .invalidParameter("\(error)"))
        }
        let address = randomStaticAddress(seed: seed, index: link.raw)
        let info = try runtime.powerOn(randomAddress: address, timeout: timeout)
        return TesterAdapter(link: link, runtime: runtime, address: address, info: info, binding: binding)
    }

    /// Advertises the dialect's service, so a DUT that also plays central can connect to the tester.
    func advertise(until deadline: ContinuousClock.Instant) throws(RadioError) {
        guard !runtime.host.advertising, let ad = AdvertisingData.forService(binding.service) else { return }
        _ = try runtime.perform(.startAdvertising(AdvertisingRequest(data: ad.encoded(), interval: advertisingInterval)), until: deadline)
    }

    /// The same, without waiting (after a DUT that had connected to the tester leaves).
    func readvertise() throws(RadioError) {
        guard !runtime.host.advertising, let ad = AdvertisingData.forService(binding.service) else { return }
        try runtime.submit(.startAdvertising(AdvertisingRequest(data: ad.encoded(), interval: advertisingInterval)))
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
