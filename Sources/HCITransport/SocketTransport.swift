import BLEHost
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HCI transport over a connected socket: a byte stream cut by the H4 headers (TCP, unix
/// socket) or a packet socket where each read is one packet (the Linux HCI user channel).
/// The descriptor is non-blocking; every wait is a poll with the time left to its deadline.
public final class SocketTransport: HCITransport {
    public enum Framing: Sendable {
        /// A byte stream: packets are cut by their H4 headers.
        case stream
        /// One packet per read, already H4 (the kernel's HCI socket).
        case packets
    }

    public let name: String
    /// The longest a `send` waits for room in the socket buffer.
    public var writeTimeout: Duration
    private var fd: Int32
    private let framing: Framing
    /// BLEHost's deframer: bounded to one packet of at most `maxPacketSize` bytes.
    private var deframer: H4Deframer
    /// Packets already cut from the stream and not yet returned (one read can hold several).
    private var ready: [H4Packet] = []
    /// Set once the stream failed: every later call reports the same error.
    private var failure: TransportError?
    /// A read is at most this many bytes.
    static let readChunk = 16_384

    /// Takes ownership of `fd` (a connected socket) and makes it non-blocking.
    /// `maxPacketSize` bounds one packet (indicator and header included); the default admits
    /// every event and the ACL packets of a controller with 1021-byte buffers.
    public init(fd: Int32, name: String, framing: Framing, writeTimeout: Duration = .seconds(2), maxPacketSize: Int = 1 + 4 + 1021) {
        self.fd = fd
        deframer = H4Deframer(maxPacketSize: maxPacketSize)
        self.name = name
        self.framing = framing
        self.writeTimeout = writeTimeout
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    deinit { close() }

    public func send(_ packet: H4Packet) throws(TransportError) {
        if let failure { throw failure }
        let packet = packet.encoded()
        guard fd >= 0 else { throw .closedByPeer(name) }
        let deadline = ContinuousClock.now + writeTimeout
        var sent = 0
        while sent < packet.count {
            let n = packet.withUnsafeBytes { raw in
                sysSend(fd, raw.baseAddress! + sent, raw.count - sent)
            }
            if n > 0 {
                sent += n
                continue
            }
            let code = errno
            if n < 0, code == EINTR { continue }
            if n < 0, code == EAGAIN || code == EWOULDBLOCK {
                guard try wait(for: Int16(POLLOUT), until: deadline) else { throw fail(.sendTimeout(name)) }
                continue
            }
            if code == EPIPE || code == ECONNRESET || code == ENOTCONN || code == ENODEV || code == ENETDOWN {
                throw fail(.closedByPeer(name))
            }
            throw fail(.system(name, call: "send", errno: code))
        }
    }

    public func receive(until deadline: ContinuousClock.Instant) throws(TransportError) -> H4Packet? {
        if let failure { throw failure }
        guard fd >= 0 else { throw .closedByPeer(name) }
        if !ready.isEmpty { return ready.removeFirst() }
        var chunk = [UInt8](repeating: 0, count: Self.readChunk)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n > 0 {
                do throws(HostWireError) {
                    switch framing {
                    case .stream: ready += try deframer.feed(chunk[0..<n])
                    case .packets: ready.append(try H4Packet(decoding: chunk[0..<n]))
                    }
                } catch {
                    throw fail(.malformed(name, reason: "\(error)"))
                }
                if !ready.isEmpty { return ready.removeFirst() }
                continue
            }
            if n == 0 { throw fail(.closedByPeer(name)) }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                guard try wait(for: Int16(POLLIN), until: deadline) else { return nil }
                continue
            }
            if code == ECONNRESET || code == ENODEV || code == ENETDOWN { throw fail(.closedByPeer(name)) }
            throw fail(.system(name, call: "read", errno: code))
        }
    }

    /// Whether TCP_NODELAY is on (nil for sockets that are not TCP).
    public var noDelay: Bool? {
        var value: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &size) == 0 else { return nil }
        return value != 0
    }

    public func close() {
        if fd >= 0 {
            sysClose(fd)
            fd = -1
        }
    }

    private func fail(_ error: TransportError) -> TransportError {
        failure = error
        return error
    }

    /// Polls for `events` until `deadline`: true when ready (or the socket has an error or
    /// hang-up for the next call to report), false at the deadline.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(TransportError) -> Bool {
        while true {
            let ms = millisecondsLeft(until: deadline)
            if ms == 0, ContinuousClock.now >= deadline {
                var p = pollfd(fd: fd, events: events, revents: 0)
                return poll(&p, 1, 0) > 0
            }
            var p = pollfd(fd: fd, events: events, revents: 0)
            let r = poll(&p, 1, ms)
            if r > 0 { return true }
            if r == 0 { if ContinuousClock.now >= deadline { return false } else { continue } }
            if errno == EINTR { continue }
            throw fail(.system(name, call: "poll", errno: errno))
        }
    }
}

/// Milliseconds from now to `deadline`, rounded up, clamped to poll's range (0 once past).
func millisecondsLeft(until deadline: ContinuousClock.Instant) -> Int32 {
    let left = deadline - ContinuousClock.now
    if left <= .zero { return 0 }
    let (s, atto) = left.components
    let ms = s * 1000 + (atto + 999_999_999_999_999) / 1_000_000_000_000_000
    return Int32(clamping: ms)
}
