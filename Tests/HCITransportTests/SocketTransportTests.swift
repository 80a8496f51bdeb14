import BLEHost
import Foundation
@testable import HCITransport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on loopback standing in for a controller: the transport connects to
/// it, the test accepts and plays the controller's side with plain reads and writes.
final class FakeController {
    let listener: Int32
    let moniker: HCIEndpoint
    private var path: String?

    init(unix: Bool = false) {
        if unix {
            let path = NSTemporaryDirectory() + "hci-\(UInt32.random(in: 0...UInt32.max)).sock"
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
            _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            listener = fd
            self.path = path
            moniker = .unix(path: path)
        } else {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            var size = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) } }
            listener = fd
            moniker = .tcp(host: "127.0.0.1", port: UInt16(bigEndian: addr.sin_port))
        }
        listen(listener, 4)
    }

    /// Accepts the transport's connection (already queued: connect completes against the backlog).
    func accept() -> Int32 { Glibc.accept(listener, nil, nil) }

    func write(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
    }

    func read(_ fd: Int32, count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: count)
        while out.count < count {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, count - out.count) }
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return out
    }

    deinit {
        Glibc.close(listener)
        if let path { unlink(path) }
    }
}

@Suite struct SocketTransportTests {
    let event: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
    let acl: [UInt8] = [0x02, 0x40, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0B]

    func soon(_ ms: Int = 2000) -> ContinuousClock.Instant { .now + .milliseconds(ms) }

    @Test(arguments: [false, true])
    func packetsComeOutWholeHoweverTheStreamIsCut(unix: Bool) throws {
        let controller = FakeController(unix: unix)
        let transport = try controller.moniker.open()
        defer { transport.close() }
        let peer = controller.accept()
        defer { close(peer) }
        // Two packets in one write, then one packet byte by byte.
        controller.write(peer, event + acl)
        #expect(try transport.receive(until: soon())?.encoded() == event)
        #expect(try transport.receive(until: soon())?.encoded() == acl)
        for b in acl { controller.write(peer, [b]) }
        #expect(try transport.receive(until: soon())?.encoded() == acl)
        // And the other way: what the host sends reaches the controller verbatim.
        let reset: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
        try transport.send(try H4Packet(decoding: reset))
        #expect(controller.read(peer, count: 4) == reset)
    }

    @Test func tcpSetsNoDelay() throws {
        let controller = FakeController()
        let transport = try controller.moniker.open()
        defer { transport.close() }
        #expect(transport.noDelay == true)
    }

    @Test func receiveReturnsNilAtItsDeadline() throws {
        let controller = FakeController()
        let transport = try controller.moniker.open()
        defer { transport.close() }
        let peer = controller.accept()
        defer { close(peer) }
        controller.write(peer, Array(event.prefix(3)))   // half a packet, then silence
        let start = ContinuousClock.now
        #expect(try transport.receive(until: start + .milliseconds(100)) == nil)
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(100) && waited < .milliseconds(1000))
    }

    @Test func peerHangUpIsAnError() throws {
        let controller = FakeController()
        let transport = try controller.moniker.open()
        defer { transport.close() }
        close(controller.accept())
        #expect(throws: TransportError.closedByPeer("tcp:\(controller.moniker.description.dropFirst(4))")) {
            try transport.receive(until: soon())
        }
    }

    @Test func anUnknownIndicatorEndsTheStream() throws {
        let controller = FakeController()
        let transport = try controller.moniker.open()
        defer { transport.close() }
        let peer = controller.accept()
        defer { close(peer) }
        controller.write(peer, [0x09, 0x00, 0x00])
        #expect {
            try transport.receive(until: soon())
        } throws: { error in
            guard case TransportError.malformed(_, let reason) = error else { return false }
            return reason.contains("09")
        }
        // And it stays failed: a later call does not read on from a desynchronised stream.
        #expect(throws: TransportError.self) { try transport.receive(until: soon(10)) }
    }

    @Test func aControllerThatStopsReadingTimesTheSendOut() throws {
        let controller = FakeController()
        let transport = try controller.moniker.open()
        defer { transport.close() }
        transport.writeTimeout = .milliseconds(100)
        let peer = controller.accept()   // never read from
        defer { close(peer) }
        let big = try H4Packet(decoding: [0x02, 0x01, 0x00, 0xFD, 0x03] + [UInt8](repeating: 0, count: 0x3FD))
        let start = ContinuousClock.now
        var error: TransportError?
        for _ in 0..<200_000 {   // up to 200 MB: far past any loopback socket buffer
            do { try transport.send(big) } catch let e { error = e; break }
        }
        #expect(error == .sendTimeout(transport.name))
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func nobodyListeningIsAConnectFailureThatSaysWhatToStart() throws {
        let port: UInt16
        do {
            let controller = FakeController()
            guard case .tcp(_, let p) = controller.moniker else { return }
            port = p
        }   // closed again: nothing listens on that port now
        #expect {
            try SocketTransport.tcp(host: "127.0.0.1", port: port, timeout: .seconds(1))
        } throws: { error in
            "\(error)".contains("cannot connect to tcp:127.0.0.1:\(port)") && "\(error)".contains("bumble-controllers")
        }
        #expect(throws: TransportError.self) { try SocketTransport.unix(path: "/nonexistent/ctl.sock") }
    }

    @Test func anUnreachableHostTimesOut() throws {
        // 192.0.2.0/24 is TEST-NET-1: never routed, so the SYN goes unanswered (or the network
        // is unreachable at once); either way the connect ends within its bound.
        let start = ContinuousClock.now
        #expect(throws: TransportError.self) { try SocketTransport.tcp(host: "192.0.2.1", port: 9, timeout: .milliseconds(300)) }
        #expect(ContinuousClock.now - start < .seconds(3))
    }

    @Test func capturingTransportRecordsBothDirections() throws {
        let controller = FakeController()
        let directory = NSTemporaryDirectory() + "snoop-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let transport = try CapturingTransport(try controller.moniker.open(), directory: directory)
        let peer = controller.accept()
        defer { close(peer) }
        try transport.send(try H4Packet(decoding: [0x01, 0x03, 0x0C, 0x00]))
        controller.write(peer, event)
        #expect(try transport.receive(until: soon())?.encoded() == event)
        transport.close()
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first)
        #expect(file == "tcp_127.0.0.1_\(controller.moniker.description.split(separator: ":").last!).btsnoop")
        let capture = try BtsnoopReader.read(path: directory + "/" + file)
        #expect(capture.records.map(\.data) == [[0x01, 0x03, 0x0C, 0x00], event])
        #expect(capture.records.map(\.direction) == [.sent, .received])
    }
}

@Suite struct TransportBoundTests {
    /// A controller announcing a packet above the bound is refused at its header: nothing is
    /// buffered for the 65535 bytes it promises.
    @Test func anOversizedPacketIsRefusedAtItsHeader() throws {
        let controller = FakeController()
        let transport = try controller.moniker.open()
        defer { transport.close() }
        let peer = controller.accept()
        defer { close(peer) }
        controller.write(peer, [0x02, 0x01, 0x00, 0xFF, 0xFF])
        #expect(throws: TransportError.self) { try transport.receive(until: .now + .seconds(2)) }
    }
}

@Suite struct UserChannelTests {
    /// On this project's machines the kernel has no Bluetooth; elsewhere adapter 65000 does
    /// not exist. Either way the message says what to do.
    @Test func openingAnAdapterThatCannotBeHadSaysWhy() {
        #expect {
            try SocketTransport.userChannel(adapter: 65000)
        } throws: { error in
            switch error as? TransportError {
            case .kernelWithoutBluetooth?: "\(error)".contains("tcp:HOST:PORT")
            case .adapterMissing?: "\(error)".contains("meshconform adapters")
            case .noPermission?: "\(error)".contains("CAP_NET_ADMIN")
            default: false
            }
        }
    }

    @Test(arguments: [
        (EAFNOSUPPORT, "no Bluetooth support"), (ENODEV, "no Bluetooth adapter hci1"),
        (EBUSY, "btmgmt -i hci1 power off"), (EBUSY, "stop bluetoothd"), (EUSERS, "another program"),
        (ERFKILL, "rfkill unblock"), (EPERM, "setcap cap_net_admin+eip"), (EACCES, "run as root"), (EIO, "Input/output error"),
    ])
    func errnoBecomesAMessageThatSaysHowToFixIt(code: Int32, text: String) {
        let error = userChannelError(code, adapter: "hci1", call: "bind")
        #expect(error.description.contains(text), "\(error)")
        #expect(error.isEnvironmental == (code != EIO))
    }
}
