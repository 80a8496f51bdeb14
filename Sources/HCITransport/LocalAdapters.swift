import CBlueZ
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
        let ctl = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard ctl >= 0 else { throw userChannelError(errno, adapter: "hci", call: "socket") }
        defer { sysClose(ctl) }
        var ids = [UInt16](repeating: 0, count: Int(HCI_MAX_DEV))
        let count = mc_hci_dev_ids(ctl, &ids, Int32(ids.count))
        guard count >= 0 else { throw .system("hci", call: "ioctl(HCIGETDEVLIST)", errno: errno) }
        var adapters: [LocalAdapter] = []
        for id in ids.prefix(Int(count)) {
            var info = hci_dev_info()
            guard mc_hci_dev_info(ctl, id, &info) == 0 else { continue }   // unplugged meanwhile
            let name = withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            var text = [CChar](repeating: 0, count: 18)
            var bdaddr = info.bdaddr
            ba2str(&bdaddr, &text)
            let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            adapters.append(LocalAdapter(index: id, name: name, address: address, state: mc_hci_flag_up(&info) != 0 ? .up : probe(id)))
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
