#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening H4 byte streams to controllers that listen on sockets (Bumble's `tcp-server:`,
/// Android rootcanal, Zephyr native_sim, btvirt).
extension SocketTransport {
    /// Connects to `host:port` with TCP_NODELAY (an HCI exchange is many small packets: with
    /// Nagle each one waits ~40 ms for the previous one's ACK). Bounded by `timeout` per address.
    public static func tcp(host: String, port: UInt16, timeout: Duration = .seconds(3)) throws(TransportError) -> SocketTransport {
        let name = "tcp:\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw .connectFailed(name, reason: "cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var lastReason = "no address"
        var info: UnsafeMutablePointer<addrinfo>? = first
        while let ai = info {
            info = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
            if fd < 0 { lastReason = "socket: \(errnoText(errno))"; continue }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if let reason = connectBounded(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen, timeout: timeout) {
                lastReason = reason
                sysClose(fd)
                continue
            }
            return SocketTransport(fd: fd, name: name, framing: .stream)
        }
        throw .connectFailed(name, reason: lastReason)
    }

    /// Connects to a unix stream socket at `path`.
    public static func unix(path: String, timeout: Duration = .seconds(3)) throws(TransportError) -> SocketTransport {
        let name = "unix:\(path)"
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < capacity else {
            throw .connectFailed(name, reason: "a unix socket path must be 1 to \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .system(name, call: "socket", errno: errno) }
        let reason = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connectBounded(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size), timeout: timeout)
            }
        }
        if let reason {
            sysClose(fd)
            throw .connectFailed(name, reason: reason)
        }
        return SocketTransport(fd: fd, name: name, framing: .stream)
    }
}

/// A non-blocking connect that gives up after `timeout`. Returns nil when connected, else why not.
/// Leaves `fd` non-blocking (SocketTransport wants it so anyway).
func connectBounded(_ fd: Int32, _ addr: UnsafePointer<sockaddr>, _ length: socklen_t, timeout: Duration) -> String? {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    if connect(fd, addr, length) == 0 { return nil }
    guard errno == EINPROGRESS || errno == EINTR else { return errnoText(errno) }
    let deadline = ContinuousClock.now + timeout
    while true {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let r = poll(&p, 1, millisecondsLeft(until: deadline))
        if r < 0, errno == EINTR { continue }
        if r < 0 { return "poll: \(errnoText(errno))" }
        if r == 0 {
            if ContinuousClock.now < deadline { continue }
            return "no answer within \(timeout)"
        }
        var code: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &size)
        return code == 0 ? nil : errnoText(code)
    }
}
