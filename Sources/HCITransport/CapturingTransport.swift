import BLEHost

/// A transport that records every packet it moves into a btsnoop file (`--btsnoop DIR`).
/// It sits between the host and the real transport, so the capture shows exactly the bytes
/// on the wire, in the order the host saw them.
public final class CapturingTransport: HCITransport {
    public let inner: any HCITransport
    public let capture: BtsnoopWriter

    public init(_ inner: any HCITransport, capture: BtsnoopWriter) {
        self.inner = inner
        self.capture = capture
    }

    /// Wraps `inner` with a capture file in `directory` named after the adapter
    /// (`tcp_127.0.0.1_9001.btsnoop`), creating the directory when missing.
    public convenience init(_ inner: any HCITransport, directory: String) throws(BtsnoopError) {
        try ensureDirectory(directory)
        let file = String(inner.name.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        try self.init(inner, capture: BtsnoopWriter(path: directory + "/" + file + ".btsnoop"))
    }

    public var name: String { inner.name }

    public func send(_ packet: H4Packet) throws(TransportError) {
        // Recorded before sending, so a packet that kills the controller is in the capture.
        capture.record(packet.encoded(), .sent)
        try inner.send(packet)
    }

    public func receive(until deadline: ContinuousClock.Instant) throws(TransportError) -> H4Packet? {
        let packet = try inner.receive(until: deadline)
        if let packet { capture.record(packet.encoded(), .received) }
        return packet
    }

    public func close() {
        inner.close()
        capture.close()
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func ensureDirectory(_ path: String) throws(BtsnoopError) {
    var st = stat()
    if stat(path, &st) == 0 {
        guard st.st_mode & S_IFMT == S_IFDIR else { throw BtsnoopError(path: path, reason: "exists and is not a directory") }
        return
    }
    guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
        throw BtsnoopError(path: path, reason: "cannot create the directory: \(errnoText(errno))")
    }
}
