import BLEHost
@testable import BLERadio
import HCITransport
import Testing

/// A controller in memory: answers what `script` says to each packet the host sends.
final class ScriptedTransport: HCITransport {
    let name = "scripted"
    var script: (H4Packet) -> [H4Packet]
    var hangUpAfter: Int?
    private var pending: [H4Packet] = []
    private(set) var sent: [H4Packet] = []

    init(script: @escaping (H4Packet) -> [H4Packet]) { self.script = script }

    func send(_ packet: H4Packet) throws(TransportError) {
        sent.append(packet)
        pending += script(packet)
    }

    func receive(until deadline: ContinuousClock.Instant) throws(TransportError) -> H4Packet? {
        if let limit = hangUpAfter, sent.count >= limit, pending.isEmpty { throw .closedByPeer(name) }
        if !pending.isEmpty { return pending.removeFirst() }
        // Nothing to say: wait out the deadline like a silent socket would.
        let left = deadline - .now
        if left > .zero { Thread.sleep(left) }
        return nil
    }

    func close() {}
}

enum Thread {
    static func sleep(_ d: Duration) {
        let (s, atto) = d.components
        var ts = timespec(tv_sec: Int(s), tv_nsec: Int(atto / 1_000_000_000))
        nanosleep(&ts, nil)
    }
}

#if canImport(Glibc)
import Glibc
#endif

@Suite struct HostRuntimeTests {
    let address = try! BluetoothAddress(string: "C0:11:22:33:44:55")

    @Test func aSilentControllerEndsPowerOnByItsDeadline() throws {
        let transport = ScriptedTransport { _ in [] }
        let runtime = HostRuntime(transport: transport)
        let start = ContinuousClock.now
        #expect(throws: RadioError.self) { try runtime.powerOn(randomAddress: address, timeout: .milliseconds(300)) }
        #expect(ContinuousClock.now - start < .seconds(3))
        // The host did try: an HCI Reset went out first.
        #expect(transport.sent.first?.encoded() == [0x01, 0x03, 0x0C, 0x00])
    }

    @Test func aControllerThatHangsUpIsATransportErrorEveryTimeAfter() throws {
        let transport = ScriptedTransport { _ in [] }
        transport.hangUpAfter = 1
        let runtime = HostRuntime(transport: transport)
        #expect {
            try runtime.powerOn(randomAddress: address, timeout: .seconds(2))
        } throws: { error in
            guard case RadioError.transport(.closedByPeer) = error else { return false }
            return true
        }
        #expect(throws: RadioError.self) { try runtime.nextEvent(until: .now + .milliseconds(10)) }
    }

    @Test func nextEventReturnsNilAtItsDeadline() throws {
        let runtime = HostRuntime(transport: ScriptedTransport { _ in [] })
        let start = ContinuousClock.now
        #expect(try runtime.nextEvent(until: start + .milliseconds(50)) == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
    }

    /// A controller that answers every command with Command Complete, success, and the fields
    /// the init sequence reads: the host reaches `ready` through the runtime.
    @Test func aWillingControllerPowersOn() throws {
        let transport = ScriptedTransport { packet in
            guard case .command(let p) = packet, p.count >= 3 else { return [] }
            let opcode = [p[0], p[1]]
            var params: [UInt8] = [0x00]   // status
            switch UInt16(p[0]) | UInt16(p[1]) << 8 {
            case 0x2003: params += [0, 0, 0, 0, 0, 0, 0, 0]                 // LE features: none (legacy)
            case 0x2002: params += [27, 0, 8]                                 // LE buffer size: 27 x 8
            case 0x1009: params += [0x55, 0x44, 0x33, 0x22, 0x11, 0xF0]       // BD_ADDR
            case 0x2060: params += [27, 0, 8, 0, 0, 0]                        // LE buffer size v2
            default: break
            }
            let event = [0x0E, UInt8(3 + params.count), 1] + opcode + params
            return [try! H4Packet(decoding: [0x04] + event)]
        }
        let runtime = HostRuntime(transport: transport)
        let info = try runtime.powerOn(randomAddress: address, timeout: .seconds(2))
        #expect(info.randomAddress.bytes == address.bytes)
        #expect(info.extended == false)
    }
}
