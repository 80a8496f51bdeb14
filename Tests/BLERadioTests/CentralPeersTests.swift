import BLEHost
import BLERadio
import GATTDUT
import MeshNode
import Testing

/// The central half of `meshconform node`'s dual role (which peers it connects to, when it
/// tries again) and dialect detection from advertisements, on scripted controllers.
@Suite struct CentralPeersTests {
    let a: [UInt8] = [0xC0, 0, 0, 0, 0, 1]
    let b: [UInt8] = [0xC0, 0, 0, 0, 0, 2]

    func at(_ ms: Int64) -> HostInstant { .milliseconds(ms) }

    @Test func connectsOncePerPeerAndWithinTheLinkBound() {
        let peers = CentralPeers(maxLinks: 2)
        #expect(peers.shouldConnect(a, at: at(0), linked: [], outgoing: 0))
        // Already linked (in or out, or being connected): never a second link.
        #expect(!peers.shouldConnect(a, at: at(0), linked: [a], outgoing: 0))
        // The bound on outgoing links.
        #expect(peers.shouldConnect(b, at: at(0), linked: [a], outgoing: 1))
        #expect(!peers.shouldConnect(b, at: at(0), linked: [a], outgoing: 2))
    }

    @Test func failuresBackOffDoublingToTheCapAndALinkResetsIt() {
        var peers = CentralPeers(maxLinks: 3, base: .seconds(1), cap: .seconds(4))
        #expect(peers.failed(a, at: at(0)) == .seconds(1))
        #expect(!peers.shouldConnect(a, at: at(999), linked: [], outgoing: 0))
        #expect(peers.shouldConnect(a, at: at(1000), linked: [], outgoing: 0))
        #expect(peers.failed(a, at: at(1000)) == .seconds(2))
        #expect(peers.failed(a, at: at(3000)) == .seconds(4))
        #expect(peers.failed(a, at: at(7000)) == .seconds(4))   // capped
        // Another peer is not held back by a's failures.
        #expect(peers.shouldConnect(b, at: at(7000), linked: [], outgoing: 0))
        peers.linked(a)
        #expect(peers.shouldConnect(a, at: at(7001), linked: [], outgoing: 0))
        // A lost link waits the base before reconnecting.
        #expect(peers.lost(a, at: at(8000)) == .seconds(1))
        #expect(!peers.shouldConnect(a, at: at(8500), linked: [], outgoing: 0))
    }

    @Test func theRememberedPeersAreBounded() {
        var peers = CentralPeers(maxLinks: 3, base: .seconds(60), cap: .seconds(60))
        for i in 0..<(CentralPeers.maxRemembered + 10) {
            peers.failed([0xC0, 0, 0, 0, UInt8(i >> 8), UInt8(i & 0xFF)], at: at(Int64(i)))
        }
        // The earliest holds were forgotten to make room; the latest is still held.
        #expect(peers.shouldConnect([0xC0, 0, 0, 0, 0, 0], at: at(1000), linked: [], outgoing: 0))
        let last = CentralPeers.maxRemembered + 9
        #expect(!peers.shouldConnect([0xC0, 0, 0, 0, UInt8(last >> 8), UInt8(last & 0xFF)], at: at(1000), linked: [], outgoing: 0))
    }

    /// Of two dual-role nodes that hear each other, the lower address connects at once and the
    /// higher one waits the grace for it; a peer that never connects in is connected after it.
    @Test func theHigherAddressGivesTheLowerOneTimeToConnectFirst() {
        var low = CentralPeers(own: a, grace: .seconds(3))
        var high = CentralPeers(own: b, grace: .seconds(3))
        low.heard(b, at: at(0))
        high.heard(a, at: at(0))
        #expect(low.shouldConnect(b, at: at(0), linked: [], outgoing: 0))
        #expect(!high.shouldConnect(a, at: at(0), linked: [], outgoing: 0))
        #expect(!high.shouldConnect(a, at: at(2999), linked: [], outgoing: 0))
        #expect(high.shouldConnect(a, at: at(3000), linked: [], outgoing: 0))
    }

    /// Two nodes that connected to each other at once keep the same one of the two connections.
    @Test func bothSidesOfADoubleLinkKeepTheSameConnection() {
        // On a's side: its outgoing (a central) vs b's (b central); b's side the mirror.
        #expect(CentralPeers.keeps(central: a, peripheral: b))
        #expect(!CentralPeers.keeps(central: b, peripheral: a))
    }

    @Test func theDialectIsTheOneWhoseServiceIsAdvertised() {
        #expect(DialectDetector.dialects(advertising: [GATTBinding.camp.service]) == [.camp])
        #expect(DialectDetector.dialects(advertising: [BluetoothUUID(0x180F), GATTBinding.bitchat.service]) == [.bitchat])
        #expect(DialectDetector.dialects(advertising: [BluetoothUUID(0x180F)]).isEmpty)
        // Every binding's service names its dialect, and no two bindings share one.
        for binding in GATTBinding.all {
            #expect(DialectDetector.dialects(advertising: [binding.service]).map(\.rawValue) == [binding.dialect])
        }
    }

    @Test func theListingNamesEachDevicesDialectAndCountsTheOthers() throws {
        let transport = GATTDriverTests.willing(reports: [
            GATTDriverTests.report([0xC0, 1, 1, 1, 1, 1], AdvertisingData.forService(GATTBinding.relay.service, name: "r")!.encoded(), rssi: -50),
            GATTDriverTests.report([0xC0, 2, 2, 2, 2, 2], AdvertisingData.forService(GATTBinding.peat.service)!.encoded(), rssi: -40),
            GATTDriverTests.report([0xC0, 3, 3, 3, 3, 3], AdvertisingData.forService(BluetoothUUID(0x180F))!.encoded()),
        ])
        let detector = try DialectDetector(transport: transport, address: BluetoothAddress(string: "C3:00:00:00:00:01"))
        let (found, others) = try detector.scan(for: .milliseconds(200))
        #expect(found.map(\.address.string) == ["C0:02:02:02:02:02", "C0:01:01:01:01:01"])
        #expect(found.map(\.dialects) == [[.peat], [.relay]])
        #expect(found.last?.name == "r")
        #expect(others == 1)
    }

    @Test func aTargetAdvertisingADialectsServiceIsDetectedWithoutConnecting() throws {
        let transport = GATTDriverTests.willing(reports: [
            GATTDriverTests.report([0xC0, 1, 1, 1, 1, 1], AdvertisingData.forService(GATTBinding.blemesh.service)!.encoded()),
        ])
        let detector = try DialectDetector(transport: transport, address: BluetoothAddress(string: "C3:00:00:00:00:01"))
        let (dialect, evidence) = try detector.detect(BluetoothAddress(string: "C0:01:01:01:01:01"))
        #expect(dialect == .blemesh)
        #expect(evidence == .advertised(GATTBinding.blemesh.service))
        // No connection was tried (LE Create Connection / Extended Create Connection).
        #expect(!transport.sent.contains { if case .command(let p) = $0 { p.count >= 2 && (p[0] == 0x0D || p[0] == 0x43) && p[1] == 0x20 } else { false } })
    }

    @Test func aTargetNotHeardIsReportedByTheDeadline() throws {
        let detector = try DialectDetector(transport: GATTDriverTests.willing(), address: BluetoothAddress(string: "C3:00:00:00:00:01"),
                                           timeout: .milliseconds(300))
        let start = ContinuousClock.now
        #expect {
            try detector.detect(BluetoothAddress(string: "C0:09:09:09:09:09"))
        } throws: { error in
            "\(error)".contains("no connectable advertisement from C0:09:09:09:09:09")
        }
        #expect(ContinuousClock.now - start < .seconds(3))
    }
}
