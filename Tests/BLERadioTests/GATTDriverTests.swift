import BLEHost
import BLERadio
import Conformance
@testable import GATTDUT
import HCITransport
import MeshNode
import Testing

/// The GATT DUT driver's setup paths against scripted controllers: bring-up failures end by
/// their deadlines, the target listing shows only devices advertising the dialect's service,
/// and a target that is not there is reported, not waited for.
@Suite struct GATTDriverTests {
    /// Answers every HCI command with success; after LE Set Scan Enable, plays `reports`.
    static func willing(reports: [[UInt8]] = []) -> ScriptedTransport {
        ScriptedTransport { packet in
            guard case .command(let p) = packet, p.count >= 3 else { return [] }
            let opcode = UInt16(p[0]) | UInt16(p[1]) << 8
            var params: [UInt8] = [0x00]
            switch opcode {
            case 0x2003: params += [0, 0, 0, 0, 0, 0, 0, 0]
            case 0x2002: params += [27, 0, 8]
            case 0x1009: params += [0x55, 0x44, 0x33, 0x22, 0x11, 0xF0]
            case 0x2060: params += [27, 0, 8, 0, 0, 0]
            default: break
            }
            var out = [try! H4Packet(decoding: [0x04, 0x0E, UInt8(3 + params.count), 1, p[0], p[1]] + params)]
            if opcode == 0x200C, p.count > 3, p[3] == 1 {   // LE Set Scan Enable (enable)
                out += reports.map { try! H4Packet(decoding: $0) }
            }
            return out
        }
    }

    /// One legacy LE advertising report (LE Meta 0x3E, sub-event 0x02).
    static func report(_ address: [UInt8], _ ad: [UInt8], rssi: Int8 = -40) -> [UInt8] {
        let body: [UInt8] = [0x02, 1, 0x00, 0x01] + address.reversed() + [UInt8(ad.count)] + ad + [UInt8(bitPattern: rssi)]
        return [0x04, 0x3E, UInt8(body.count)] + body
    }

    @Test func aSilentAdapterFailsBringUpByItsDeadline() {
        var options = GATTDriver.Options()
        options.powerOnTimeout = .milliseconds(300)
        let start = ContinuousClock.now
        #expect(throws: GATTDriverError.self) {
            _ = try GATTDriver.open(transports: [ScriptedTransport { _ in [] }], dialect: .relay, options: options)
        }
        #expect(ContinuousClock.now - start < .seconds(3))
    }

    @Test func theListingShowsOnlyDevicesAdvertisingTheDialectsService() throws {
        let relayAD = AdvertisingData.forService(GATTBinding.relay.service, name: "dut")!.encoded()
        let otherAD = AdvertisingData.forService(GATTBinding.blemesh.service)!.encoded()
        let transport = Self.willing(reports: [
            Self.report([0xC0, 1, 2, 3, 4, 5], relayAD, rssi: -30),
            Self.report([0xC0, 9, 9, 9, 9, 9], otherAD),
            Self.report([0xC0, 1, 2, 3, 4, 5], relayAD, rssi: -60),
        ])
        let driver = try GATTDriver.open(transports: [transport], dialect: .relay)
        let found = try driver.scan(for: .milliseconds(200))
        #expect(found.map(\.address.string) == ["C0:01:02:03:04:05"])
        #expect(found.first?.name == "dut")
        #expect(found.first?.rssi == -30)
    }

    @Test func aTargetThatDoesNotAdvertiseIsNotFoundWithinTheTimeout() throws {
        let driver = try GATTDriver.open(transports: [Self.willing()], dialect: .blemesh)
        let start = ContinuousClock.now
        #expect(try driver.locate(BluetoothAddress(string: "C0:AA:BB:CC:DD:EE"), within: .milliseconds(300)) == false)
        #expect(ContinuousClock.now - start < .seconds(3))
        // No target: a session cannot start, and says so instead of waiting.
        #expect(throws: TesterError.self) {
            _ = try driver.start(DUTSetup(dialect: .blemesh, address: NodeAddress(bytes: [1]), settings: [:], seed: 1))
        }
    }

    @Test func aTargetIsLocatedWithTheAddressTypeItAdvertises() throws {
        let ad = AdvertisingData.forService(GATTBinding.relay.service)!.encoded()
        let driver = try GATTDriver.open(transports: [Self.willing(reports: [Self.report([0xC0, 1, 2, 3, 4, 5], ad)])], dialect: .relay)
        #expect(try driver.locate(BluetoothAddress(string: "C0:01:02:03:04:05", type: .public), within: .seconds(1)))
        #expect(driver.target?.type == .random)
    }

    // MARK: several identities per adapter (docs/radio.md, "Several identities per adapter")

    /// A controller with LE extended advertising keeping `sets` advertising sets, playing a
    /// `target` that accepts a link from any own address, except that the controller refuses
    /// (Connection Already Exists) every link after `linkLimit` to the same peer.
    static func extended(sets: UInt8, linkLimit: Int, target: [UInt8], answersATT: Bool = true) -> ScriptedTransport {
        let ad = AdvertisingData.forService(GATTBinding.relay.service)!.encoded()
        var held: Set<UInt16> = []
        var next: UInt16 = 0x40
        return ScriptedTransport { packet in
            // The DUT behind every link answers an ATT Exchange MTU Request (the measurement
            // counts only links that answer), and the controller frees the ACL buffer.
            if case .acl(let a) = packet, answersATT, a.count >= 9, a[6] == 0x04, a[7] == 0x00, a[8] == 0x02 {
                let att: [UInt8] = [0x03, 0x05, 0x02]
                let l2cap: [UInt8] = [UInt8(att.count), 0, 0x04, 0x00] + att
                return [try! H4Packet(decoding: [0x04, 0x13, 5, 1, a[0], a[1] & 0x0F, 1, 0]),
                        try! H4Packet(decoding: [0x02, a[0], (a[1] & 0x0F) | 0x20, UInt8(l2cap.count), 0] + l2cap)]
            }
            guard case .command(let p) = packet, p.count >= 3 else { return [] }
            let opcode = UInt16(p[0]) | UInt16(p[1]) << 8
            func complete(_ params: [UInt8]) -> H4Packet { try! H4Packet(decoding: [0x04, 0x0E, UInt8(3 + params.count), 1, p[0], p[1]] + params) }
            func status(_ s: UInt8) -> H4Packet { try! H4Packet(decoding: [0x04, 0x0F, 4, s, 1, p[0], p[1]]) }
            switch opcode {
            case 0x2003: return [complete([0, 0, 0x10, 0, 0, 0, 0, 0, 0])]   // LE features: bit 12, extended advertising
            case 0x2002: return [complete([0, 27, 0, 8])]
            case 0x1009: return [complete([0, 0x55, 0x44, 0x33, 0x22, 0x11, 0xF0])]
            case 0x203B: return [complete([0, sets])]
            case 0x2042 where p.count > 3 && p[3] == 1:   // extended scan enable: the target advertises
                let report: [UInt8] = [0x0D, 1, 0x13, 0x00, 0x01] + target.reversed() + [1, 0, 0xFF, 0x7F, 0xC4, 0, 0, 0]
                    + [0, 0, 0, 0, 0, 0] + [UInt8(ad.count)] + ad
                return [complete([0]), try! H4Packet(decoding: [0x04, 0x3E, UInt8(report.count)] + report)]
            case 0x2043:   // extended create connection
                guard held.count < linkLimit else { return [status(0x0B)] }
                next += 1
                held.insert(next)
                let done: [UInt8] = [0x01, 0, UInt8(next & 0xFF), UInt8(next >> 8), 0, 0x01] + target.reversed() + [24, 0, 0, 0, 0xF4, 1, 0]
                return [status(0), try! H4Packet(decoding: [0x04, 0x3E, UInt8(done.count)] + done)]
            case 0x0406:   // disconnect
                let handle = UInt16(p[3]) | UInt16(p[4]) << 8
                held.remove(handle)
                return [status(0), try! H4Packet(decoding: [0x04, 0x05, 4, 0, p[3], p[4], 0x16])]
            case 0x2036: return [complete([0, 0])]
            default: return [complete([0])]
            }
        }
    }

    @Test func linksAreSpreadOverTheAdaptersAndTheirIdentities() throws {
        let target: [UInt8] = [0xC0, 1, 2, 3, 4, 5]
        // Adapter 1 keeps 3 advertising sets; adapter 2 is a legacy controller: one identity.
        let driver = try GATTDriver.open(transports: [Self.extended(sets: 3, linkLimit: 8, target: target), Self.willing()], dialect: .relay)
        #expect(driver.adapters.map(\.capacity) == [3, 1])
        #expect(driver.identities.map { [$0.link.raw, $0.adapter, Int($0.set)] } == [[1, 0, 0], [2, 1, 0], [3, 0, 1], [4, 0, 2]])
        let addresses = driver.identities.map(\.address)
        #expect(Set(addresses.map(\.bytes)).count == 4 && addresses.allSatisfy(\.isRandomStatic))
        #expect(addresses[0] == driver.adapters[0].info.randomAddress && addresses[1] == driver.adapters[1].info.randomAddress)
        #expect(driver.adapters[0].capacityReason.contains("keeps 3 advertising set"))
        #expect(driver.adapters[1].capacityReason.contains("legacy controller has one random address"))
    }

    @Test func measuringKeepsTheLinksTheControllerGives() throws {
        let target: [UInt8] = [0xC0, 1, 2, 3, 4, 5]
        var options = GATTDriver.Options()
        options.identitiesPerAdapter = 4
        // The controller holds at most two links to the same peer: the other two identities are dropped, with the reason.
        let driver = try GATTDriver.open(transports: [Self.extended(sets: 16, linkLimit: 2, target: target)], dialect: .relay, options: options)
        #expect(driver.identities.count == 4)
        #expect(try driver.locate(BluetoothAddress(string: "C0:01:02:03:04:05"), within: .seconds(2)))
        try driver.measureLinks()
        #expect(driver.identities.map(\.link.raw) == [1, 2])
        #expect(driver.adapters[0].runtime.host.connectionHandles.isEmpty)   // every measuring link closed again
        let summary = try #require(driver.linkSummary.first)
        #expect(summary.identities == 4 && summary.links == 2)
        #expect(summary.note.contains("refused a link from identity 3"))
        #expect(driver.linkLimitReason.contains(": 2 ("))
    }

    /// A controller that links while nothing behind it answers (a crashed app): the measurement
    /// finds the DUT unreachable before any check, instead of planning one dead link.
    @Test func linksThatDoNotAnswerMakeTheDUTUnreachable() throws {
        let target: [UInt8] = [0xC0, 1, 2, 3, 4, 5]
        var options = GATTDriver.Options()
        options.identitiesPerAdapter = 2
        options.operationTimeout = .milliseconds(300)
        let driver = try GATTDriver.open(transports: [Self.extended(sets: 16, linkLimit: 8, target: target, answersATT: false)],
                                         dialect: .relay, options: options)
        #expect(try driver.locate(BluetoothAddress(string: "C0:01:02:03:04:05"), within: .seconds(2)))
        try driver.measureLinks()
        #expect(driver.unreachable?.contains("did not answer the MTU exchange") == true)
        #expect(driver.adapters[0].runtime.host.connectionHandles.isEmpty)
        let setup = DUTSetup(dialect: .relay, address: NodeAddress(bytes: []), settings: [:], seed: 1)
        #expect(throws: LinkFailure.self) { _ = try driver.start(setup) }
    }

    /// A driver located on a DUT that advertises but never completes a connection, with short timeouts.
    static func unreachableDUT(unreachableAfter: Int = 2) throws -> GATTDriver {
        let ad = AdvertisingData.forService(GATTBinding.relay.service)!.encoded()
        var options = GATTDriver.Options()
        options.connectTimeout = .milliseconds(200)
        options.dutConnectTimeout = .milliseconds(200)
        options.operationTimeout = .milliseconds(300)
        options.unreachableAfter = unreachableAfter
        let driver = try GATTDriver.open(transports: [willing(reports: [report([0xC0, 1, 2, 3, 4, 5], ad)])], dialect: .relay, options: options)
        #expect(try driver.locate(BluetoothAddress(string: "C0:01:02:03:04:05"), within: .seconds(1)))
        return driver
    }

    /// A DUT the tester cannot link to: every check is INCONC with the set-up attempts as the
    /// reason (never FAIL), and after two such checks in a row the rest are INCONC at once.
    @Test func linksThatCannotBeBroughtUpAreInconclusiveAndStopTheRun() throws {
        let driver = try Self.unreachableDUT()
        let caps = Capabilities(dialect: .relay, upperTester: false, maxLinks: 2, timingSlackMs: 150)
        let checks = Array(Runner.select(Catalog.all, dialect: .relay).filter { $0.needs.allSatisfy(caps.has) }.prefix(5))
        try #require(checks.count == 5)
        let start = ContinuousClock.now
        let results = try Runner(capabilities: caps, driver: driver).run(checks)
        let elapsed = ContinuousClock.now - start
        try #require(results.count == 5)
        #expect(results.allSatisfy { $0.verdict == .inconclusive }, "\(results.map { "\($0.id) \($0.verdict) \($0.reason ?? "")" })")
        #expect(results[0].reason?.contains("could not bring L1 up") == true)
        #expect(results[0].reason?.contains("3 attempts") == true)
        #expect(results[2...].allSatisfy { $0.reason?.hasPrefix("not run: the DUT became unreachable") == true })
        #expect(driver.unreachable?.contains("2 checks in a row") == true)
        // Two checks of three attempts each, bounded by their timeouts; the rest cost nothing.
        #expect(elapsed < .seconds(15))
    }

    /// Over-the-air fuzzing keeps trying (a DUT that cannot be linked is its finding), and a
    /// check whose link came up resets the count.
    @Test func unreachableIsCountedOnlyForChecksInARow() throws {
        let driver = try Self.unreachableDUT(unreachableAfter: 0)
        for _ in 0..<3 { driver.checkEnded(linkSetupFailure: "no", linkCameUp: false) }
        #expect(driver.unreachable == nil)
        driver.checkEnded(linkSetupFailure: nil, linkCameUp: true)
        driver.options.unreachableAfter = 2
        driver.checkEnded(linkSetupFailure: "no", linkCameUp: false)
        driver.checkEnded(linkSetupFailure: nil, linkCameUp: true)
        driver.checkEnded(linkSetupFailure: "no", linkCameUp: false)
        driver.checkEnded(linkSetupFailure: nil, linkCameUp: false)   // a check that brought no link up
        #expect(driver.unreachable == nil)
        driver.checkEnded(linkSetupFailure: "no", linkCameUp: false)
        #expect(driver.unreachable != nil)
        #expect(throws: LinkFailure.self) {
            _ = try driver.start(DUTSetup(dialect: .relay, address: NodeAddress(bytes: [1]), settings: [:], seed: 1))
        }
    }

    // MARK: a DUT that connects to the tester

    /// A controller whose peer (the DUT, C0:01:02:03:04:05) connects to the tester as central
    /// as soon as the tester advertises, subscribes to the tester's packet characteristic
    /// (reads the characteristic at `reads` first, if given) and writes `announce` into it.
    static func connectingDUT(cccd: UInt16, packet valueHandle: UInt16, announce: [UInt8], reads: UInt16? = nil,
                              dropOnNotification reason: UInt8? = nil, answersATT: Bool = false) -> ScriptedTransport {
        let dut: [UInt8] = [0xC0, 1, 2, 3, 4, 5]
        let base = willing(reports: [report(dut, AdvertisingData.forService(GATTBinding.relay.service)!.encoded())])
        return ScriptedTransport { packet in
            var out = base.script(packet)
            // LE Set Advertising Enable (enable): the DUT connects, handle 0x0040, role peripheral.
            if case .command(let p) = packet, p.count > 3, p[0] == 0x0A, p[1] == 0x20, p[3] == 1 {
                var complete: [UInt8] = [0x01, 0x00, 0x40, 0x00, 0x01, 0x01]   // sub-event, status, handle, role, peer type
                complete += dut.reversed()
                complete += [0x18, 0, 0, 0, 0xC8, 0, 0]                        // interval, latency, timeout, accuracy
                out.append(try! H4Packet(decoding: [0x04, 0x3E, UInt8(complete.count)] + complete))
                if let reads { out.append(acl(att: [0x0A, UInt8(reads & 0xFF), UInt8(reads >> 8)])) }   // Read Request
                let subscribe: [UInt8] = [0x12, UInt8(cccd & 0xFF), UInt8(cccd >> 8), 0x01, 0x00]   // Write Request: CCCD notify
                let write: [UInt8] = [0x52, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)] + announce    // Write Command: a packet
                out.append(acl(att: subscribe))
                out.append(acl(att: write))
            }
            // A read or discovery request by the tester: answered "not found" when the DUT answers ATT.
            if answersATT, case .acl(let p) = packet, p.count > 10, [0x04, 0x06, 0x08, 0x0A, 0x10].contains(p[8]) {
                out.append(acl(att: [0x01, p[8], p[9], p[10], 0x0A]))
            }
            // A notification from the tester: the link drops with `reason`.
            if let reason, case .acl(let p) = packet, p.count > 8, p[8] == 0x1B {
                out.append(try! H4Packet(decoding: [0x04, 0x05, 4, 0x00, 0x40, 0x00, reason]))
            }
            // HCI Disconnect: Command Status, then Disconnection Complete (reason 0x16, local host).
            if case .command(let p) = packet, p.count > 4, p[0] == 0x06, p[1] == 0x04 {
                out = [try! H4Packet(decoding: [0x04, 0x0F, 4, 0x00, 1, 0x06, 0x04]),
                       try! H4Packet(decoding: [0x04, 0x05, 4, 0x00, p[3], p[4], 0x16])]
            }
            return out
        }
    }

    /// One ATT PDU from the peer on connection 0x0040 (L2CAP channel 4).
    static func acl(att: [UInt8]) -> H4Packet {
        let l2cap: [UInt8] = [UInt8(att.count), 0, 0x04, 0x00] + att
        return try! H4Packet(decoding: [0x02, 0x40, 0x20, UInt8(l2cap.count), 0] + l2cap)
    }

    /// A driver whose DUT connects to the tester (`connectingDUT`), located and ready for a
    /// session; the tester's packet characteristic as the DUT sees it.
    static func connectedDriver(announce: [UInt8] = [1], readsNodeID: Bool = false, dropOnNotification reason: UInt8? = nil, answersATT: Bool = false,
                                _ adjust: (inout GATTDriver.Options) -> Void = { _ in }) throws
        -> (driver: GATTDriver, transport: ScriptedTransport, packet: RegisteredCharacteristic) {
        var host = LEHost()
        let registered = try host.registerService(GATTBinding.relay.serviceDefinition(nodeID: Array(repeating: 0, count: 16)))
        let packet = try #require(registered.characteristic(GATTBinding.relay.packet.uuid))
        let nodeID = try #require(registered.characteristic(GATTBinding.relay.nodeID!.uuid))
        let transport = Self.connectingDUT(cccd: try #require(packet.cccdHandle), packet: packet.valueHandle, announce: announce,
                                           reads: readsNodeID ? nodeID.valueHandle : nil, dropOnNotification: reason, answersATT: answersATT)
        var options = GATTDriver.Options()
        options.linkSetup = [.dutConnects]
        adjust(&options)
        let driver = try GATTDriver.open(transports: [transport], dialect: .relay, options: options)
        #expect(try driver.locate(BluetoothAddress(string: "C0:01:02:03:04:05"), within: .seconds(1)))
        return (driver, transport, packet)
    }

    /// linkUp(1) by the DUT's own connection: it becomes link 1 when the DUT has subscribed and
    /// written, its write is what it sent on L1, and the tester's bytes on L1 go out as a
    /// notification of the tester's packet characteristic on that connection.
    @Test func aDUTThatConnectsToTheTesterIsTheLink() throws {
        let announce: [UInt8] = [0xA1, 0xA2, 0xA3]
        let (driver, transport, characteristic) = try Self.connectedDriver(announce: announce) { $0.dutConnectTimeout = .seconds(2) }
        let session = try driver.start(DUTSetup(dialect: .relay, address: NodeAddress(bytes: [1]), settings: [:], seed: 1))
        try session.apply(.linkUp(LinkID(1), peer: NodeAddress(bytes: [2])))
        let sent = try session.wait(until: session.now + .milliseconds(50)).compactMap { output -> [UInt8]? in
            if case .sent(let bytes, let link) = output.kind, link == LinkID(1) { return bytes }
            return nil
        }
        #expect(sent == [announce])
        let unit: [UInt8] = Array(0..<12)
        try session.apply(.received(unit, on: LinkID(1)))
        let notification: [UInt8] = [0x1B, UInt8(characteristic.valueHandle & 0xFF), UInt8(characteristic.valueHandle >> 8)] + unit
        let acl = Self.attSent(transport)
        #expect(acl.contains(notification), "\(acl)")
        // Advertising ended with the connection and was not restarted: only a link set-up waits for the DUT.
        #expect(driver.adapters[0].runtime.host.advertising == false)
        let enables = transport.sent.filter { Array($0.encoded().prefix(5)) == [0x01, 0x0A, 0x20, 0x01, 0x01] }
        #expect(enables.count == 1)
        #expect(session.close() == nil)
    }

    /// A link the DUT made is one it writes on, at the ATT_MTU it settled (23: it asked for
    /// none), whatever size the check asked for: FRG/BV-08, which judges notifications, is NA there.
    @Test func aLinkTheDUTMadeCarriesItsWrites() throws {
        let (driver, _, _) = try Self.connectedDriver { $0.dutConnectTimeout = .seconds(2) }
        let session = try driver.start(DUTSetup(dialect: .relay, address: NodeAddress(bytes: [1]), settings: [:], seed: 1))
        try session.apply(.linkUp(LinkID(1), peer: NodeAddress(bytes: [2]), maxUnit: 179))
        #expect(session.carriage(of: LinkID(1)) == LinkCarriage(attMTU: 23, dutNotifies: false))
        #expect(session.carriage(of: LinkID(2)) == nil)
        _ = session.close()
    }

    /// ATT PDUs the tester sent (unfragmented ones: short values).
    static func attSent(_ transport: ScriptedTransport) -> [[UInt8]] {
        transport.sent.compactMap { packet -> [UInt8]? in
            let bytes = packet.encoded()
            return bytes.first == 0x02 && bytes.count > 9 ? Array(bytes[9...]) : nil
        }
    }

    /// A DUT that reads the tester's node id characteristic on its link (RELAY-G1 MAY, BLEMESH-R1)
    /// learns the tester that link plays in this check, not the one the adapter was opened
    /// with: the identities of an adapter share one GATT database, and each names itself.
    @Test func theDUTReadsTheIDOfTheTesterOnItsLink() throws {
        let (driver, transport, _) = try Self.connectedDriver(readsNodeID: true)
        let peer = NodeAddress(bytes: Array(repeating: 0x7E, count: 16))
        let session = try driver.start(DUTSetup(dialect: .relay, address: NodeAddress(bytes: [1]), settings: [:], seed: 1))
        try session.apply(.linkUp(LinkID(1), peer: peer))
        let reads = Self.attSent(transport).filter { $0.first == 0x0B }   // Read Response
        #expect(reads == [[0x0B] + GATTNodeBridge.nodeIDValue(peer, dialect: .relay)], "\(reads)")
        _ = session.close()
    }

    /// A link the air loses (supervision timeout) makes the check undecidable: the session
    /// throws `LinkFailure` from the wait that saw it. The DUT ending the link itself (0x13) is
    /// its own doing: the check sees the drop and judges.
    @Test(arguments: [(UInt8(0x08), true), (UInt8(0x13), false)])
    func aLinkLostOnTheAirIsInconclusive(reason: UInt8, undecidable: Bool) throws {
        let (driver, _, _) = try Self.connectedDriver(dropOnNotification: reason)
        let session = try driver.start(DUTSetup(dialect: .relay, address: NodeAddress(bytes: [1]), settings: [:], seed: 1))
        try session.apply(.linkUp(LinkID(1), peer: NodeAddress(bytes: [2])))
        try session.apply(.received([7, 7, 7], on: LinkID(1)))
        if undecidable {
            #expect(throws: LinkFailure.self) { _ = try session.wait(until: session.now + .milliseconds(50)) }
        } else {
            let outputs = try session.wait(until: session.now + .milliseconds(50))
            #expect(outputs.contains { if case .disconnected(LinkID(1)) = $0.kind { true } else { false } })
        }
        _ = session.close()
    }

    /// Before a FAIL the session asks the DUT for one ATT round trip on a link still up: a DUT
    /// that answers (even with an error) is there; one that does not became unreachable, and two
    /// such checks in a row make the rest of the run INCONC, as links that cannot be brought up do.
    @Test(arguments: [true, false])
    func theLivenessProbeAsksForOneATTRoundTrip(answers: Bool) throws {
        let (driver, _, _) = try Self.connectedDriver(answersATT: answers) { $0.operationTimeout = .milliseconds(300) }
        for _ in 0..<2 {
            let session = try driver.start(DUTSetup(dialect: .relay, address: NodeAddress(bytes: [1]), settings: [:], seed: 1))
            try session.apply(.linkUp(LinkID(1), peer: NodeAddress(bytes: [2])))
            let why = session.unreachableReason()
            if answers {
                #expect(why == nil)
            } else {
                #expect(why?.hasPrefix("it did not answer an ATT request on L1 within") == true, "\(why ?? "nil")")
            }
            _ = session.close()
        }
        #expect((driver.unreachable != nil) == !answers, "\(driver.unreachable ?? "nil")")
        #expect(driver.adapterFailure == nil)
    }
}
