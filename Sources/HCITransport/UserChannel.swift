import CHCISocket
#if canImport(Glibc)
import Glibc
#endif

/// The Linux HCI user channel: exclusive raw access to a local adapter, which the kernel's
/// own stack must have released (adapter down, bluetoothd not holding it). Needs root or
/// CAP_NET_ADMIN. Each read and write is one whole H4 packet.
extension SocketTransport {
    public static func userChannel(adapter index: UInt16) throws(TransportError) -> SocketTransport {
        let name = "hci\(index)"
        var failedInBind: Int32 = 0
        let fd = mc_hci_open_user_channel(index, &failedInBind)
        guard fd >= 0 else { throw userChannelError(errno, adapter: name, call: failedInBind != 0 ? "bind" : "socket") }
        return SocketTransport(fd: fd, name: name, framing: .packets)
    }
}

/// The user's view of why the user channel could not be had (kernel net/bluetooth/hci_sock.c:
/// EBUSY when the adapter is up or initialising, EUSERS when another socket has the channel,
/// EPERM without CAP_NET_ADMIN, and hci_dev_open's errors such as ERFKILL).
func userChannelError(_ code: Int32, adapter: String, call: String) -> TransportError {
    switch code {
    case EAFNOSUPPORT, EPROTONOSUPPORT: .kernelWithoutBluetooth
    case ENODEV: .adapterMissing(adapter)
    case EBUSY, EALREADY: .adapterBusy(adapter)
    case EUSERS: .adapterInUse(adapter)
    case ERFKILL: .adapterBlocked(adapter)
    case EPERM, EACCES: .noPermission(adapter)
    default: .system(adapter, call: call, errno: code)
    }
}
