/// Why a transport could not be opened or stopped working. `description` is the message a
/// user sees: it names the cause and, for environment problems, how to fix them.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// socket(AF_BLUETOOTH) failed with EAFNOSUPPORT: the kernel was built without Bluetooth.
    case kernelWithoutBluetooth
    /// No adapter with that index (ENODEV).
    case adapterMissing(String)
    /// The kernel's own stack has the adapter up, or bluetoothd holds it (EBUSY).
    case adapterBusy(String)
    /// Another program already has the adapter's user channel (EUSERS).
    case adapterInUse(String)
    /// The adapter is blocked by rfkill (ERFKILL).
    case adapterBlocked(String)
    /// Not root and no CAP_NET_ADMIN (EPERM, EACCES).
    case noPermission(String)
    /// A TCP or unix-socket peer could not be reached.
    case connectFailed(String, reason: String)
    /// The controller closed the connection.
    case closedByPeer(String)
    /// The controller sent bytes that are not an H4 packet (the stream cannot be resynchronised).
    case malformed(String, reason: String)
    /// The controller did not take a packet within the write timeout.
    case sendTimeout(String)
    /// Any other system call failure.
    case system(String, call: String, errno: Int32)

    /// Errors about the machine or the user's setup rather than about a misbehaving peer:
    /// the CLI exits 2 for these.
    public var isEnvironmental: Bool {
        switch self {
        case .kernelWithoutBluetooth, .adapterMissing, .adapterBusy, .adapterInUse, .adapterBlocked, .noPermission, .connectFailed:
            true
        case .closedByPeer, .malformed, .sendTimeout, .system:
            false
        }
    }

    public var description: String {
        switch self {
        case .kernelWithoutBluetooth:
            return "this kernel has no Bluetooth support (socket(AF_BLUETOOTH) fails with EAFNOSUPPORT), so hciN adapters "
                + "cannot be used here. Use a controller reached over a socket instead: --adapter tcp:HOST:PORT or "
                + "--adapter unix:PATH (Google Bumble's virtual controllers, Android rootcanal, Zephyr native_sim, btvirt)"
        case .adapterMissing(let name):
            return "no Bluetooth adapter \(name) (ENODEV). `meshconform adapters` lists the adapters this machine has"
        case .adapterBusy(let name):
            return "adapter \(name) is powered up by the kernel's Bluetooth stack or held by bluetoothd (EBUSY); the HCI user "
                + "channel needs it down and free: `sudo btmgmt -i \(name) power off` (or `sudo hciconfig \(name) down`), and "
                + "stop bluetoothd (`sudo systemctl stop bluetooth`) so it does not power it up again"
        case .adapterInUse(let name):
            return "adapter \(name) is already in use by another program through the HCI user channel (EUSERS): stop that program"
        case .adapterBlocked(let name):
            return "adapter \(name) is blocked by rfkill (ERFKILL): `sudo rfkill unblock bluetooth`"
        case .noPermission(let name):
            return "no permission to open \(name)'s HCI user channel: run as root, or give the binary CAP_NET_ADMIN: "
                + "`sudo setcap cap_net_admin+eip $(which meshconform)`"
        case .connectFailed(let name, let reason):
            return "cannot connect to \(name): \(reason). Is the controller (e.g. ci/bumble-controllers.py) running there?"
        case .closedByPeer(let name):
            return "\(name): the controller closed the connection"
        case .malformed(let name, let reason):
            return "\(name): the controller sent bytes that are not H4: \(reason)"
        case .sendTimeout(let name):
            return "\(name): the controller did not take a packet within the write timeout"
        case .system(let name, let call, let code):
            return "\(name): \(call) failed: \(errnoText(code)) (errno \(code))"
        }
    }
}
