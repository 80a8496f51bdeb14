import BLEHost
import CHCISocket
#if canImport(Glibc)
import Glibc
#endif

/// One local HCI adapter as the kernel describes it (HCIGETDEVINFO).
public struct LocalAdapter: Sendable, Hashable {
    public enum State: Sendable, Hashable, CustomStringConvertible {
        /// Up under the kernel's stack: it must be powered off before meshconform can use it.
        case up
        /// Down, and its user channel could be opened just now: usable.
        case free
        /// Down, but another program has its user channel.
        case inUse
        /// Down, and opening its user channel failed for another reason.
        case unavailable(String)

        public var description: String {
            switch self {
            case .up: "up (kernel stack): power it off to use it"
            case .free: "down, free: usable"
            case .inUse: "down, in use by another program"
            case .unavailable(let why): "down, unavailable: \(why)"
            }
        }
    }

    public var index: UInt16
    public var name: String
    public var address: String
    public var state: State
}

public enum LocalAdapters {
    /// The machine's HCI adapters. Throws `.kernelWithoutBluetooth` when the kernel has no
    /// Bluetooth. For an adapter that is down, whether it is free is found by opening its user
    /// channel and closing it again (which briefly initialises the controller).
    public static func list() throws(TransportError) -> [LocalAdapter] {
        let ctl = mc_hci_open_control()
        guard ctl >= 0 else { throw userChannelError(errno, adapter: "hci", call: "socket") }
        defer { sysClose(ctl) }
        var ids = [UInt16](repeating: 0, count: Int(MC_HCI_MAX_ADAPTERS))
        let count = mc_hci_adapter_ids(ctl, &ids, Int32(ids.count))
        guard count >= 0 else { throw .system("hci", call: "ioctl(HCIGETDEVLIST)", errno: errno) }
        var adapters: [LocalAdapter] = []
        for id in ids.prefix(Int(count)) {
            var info = mc_hci_adapter()
            guard mc_hci_adapter_info(ctl, id, &info) == 0 else { continue }   // unplugged meanwhile
            let name = withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let address = withUnsafeBytes(of: info.address) { (try? BluetoothAddress(littleEndian: $0, type: .public))?.string ?? "" }
            adapters.append(LocalAdapter(index: id, name: name, address: address, state: info.up != 0 ? .up : probe(id)))
        }
        return adapters
    }

    private static func probe(_ index: UInt16) -> LocalAdapter.State {
        do {
            let transport = try SocketTransport.userChannel(adapter: index)
            transport.close()
            return .free
        } catch .adapterInUse {
            return .inUse
        } catch {
            return .unavailable(error.description)
        }
    }
}

