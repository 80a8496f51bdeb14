import Testing
@testable import BLEHost

/// Several tester identities on one controller: the advertising-set commands and event against
/// the Core spec layouts (bytes from Bumble's serialisers), and LEHost keeping several sets
/// and several connections apart, each with its own address (docs/ble-host.md).
@Suite struct MultiIdentityTests {
    static let extended: UInt64 = 1 << 12
    static let a1 = try! BluetoothAddress(string: "C1:22:33:44:55:66", type: .random)
    static let a2 = try! BluetoothAddress(string: "C2:22:33:44:55:66", type: .random)

    // MARK: codecs (Vol 4 Part E 7.8.52, 7.8.56, 7.8.58, 7.7.65.18)

    @Test func readNumberOfSupportedAdvertisingSets() throws {
        // 7.8.58: OCF 0x003B, no parameters; returns status, Num_Supported_Advertising_Sets.
        #expect(HCICommand.leReadNumberOfSupportedAdvertisingSets.h4.encoded() == hex("013b2000"))   // Bumble
        #expect(try HCICommand(decoding: hex("3b2000")) == .leReadNumberOfSupportedAdvertisingSets)
        let complete = try HCIEvent(decoding: hex("0e05013b2000f0"))   // Bumble: 240 sets
        #expect(complete == .commandComplete(numCommandPackets: 1, opcode: HCIOpcode.leReadNumberOfSupportedAdvertisingSets,
                                             returned: .numberOfAdvertisingSets(status: 0, count: 0xF0)))
        #expect(complete.h4.encoded() == hex("040e05013b2000f0"))
        // A bare status (the controller refused) stays a status, not a count.
        #expect(try HCIEvent(decoding: hex("0e04013b2001")) == .commandComplete(numCommandPackets: 1, opcode: 0x203B, returned: .status(1)))
    }

    @Test func advertisingSetTerminated() throws {
        // 7.7.65.18: sub-event 0x12, status, Advertising_Handle, Connection_Handle, Num_Completed_Extended_Advertising_Events.
        let bytes = hex("3e06120002410000")   // Bumble: set 2 ended by connection 0x0041
        let event = try HCIEvent(decoding: bytes)
        #expect(event == .leMeta(.advertisingSetTerminated(status: 0, set: 2, handle: 0x41, completedEvents: 0)))
        #expect(event.encoded() == bytes)
        // A successful one must name a valid connection handle; a failed one (duration ended) may carry anything.
        #expect(code { _ = try HCIEvent(decoding: hex("3e061200020f0f00")) } == .badHandle)
        #expect(try HCIEvent(decoding: hex("3e06123c020f0f07")) == .leMeta(.advertisingSetTerminated(status: 0x3C, set: 2, handle: 0x0F0F, completedEvents: 7)))
        #expect(code { _ = try HCIEvent(decoding: hex("3e0512000241 00")) } == .truncated)
    }

    @Test func setRandomAddressAndEnableForSeveralSets() throws {
        // 7.8.52: Advertising_Handle then the address, little-endian.
        #expect(HCICommand.leSetAdvertisingSetRandomAddress(handle: 3, Self.a1).h4.encoded() == hex("01352007036655443322c1"))   // Bumble
        // 7.8.56: Enable, Num_Sets, then per set handle, duration (u16), max events.
        let enable = HCICommand.leSetExtendedAdvertisingEnable(enable: true, sets: [AdvertisingSetEnable(handle: 1), AdvertisingSetEnable(handle: 2)])
        #expect(enable.h4.encoded() == hex("0139200a01020100000002000000"))   // Bumble
        #expect(try HCICommand(decoding: Array(enable.encoded())) == enable)
    }

    // MARK: LEHost: planning

    @Test func initReadsHowManySetsAnExtendedControllerKeeps() throws {
        var ext = Bench(leFeatures: Self.extended)
        ext.advertisingSets = 16
        ext.powerOn()
        #expect(ext.commands.contains(.leReadNumberOfSupportedAdvertisingSets))
        guard case .ready(let info)? = ext.events.first else { Issue.record("\(ext.events)"); return }
        #expect(info.extended && info.advertisingSets == 16)

        var legacy = Bench()
        legacy.powerOn()
        #expect(!legacy.commands.contains(.leReadNumberOfSupportedAdvertisingSets))
        guard case .ready(let one)? = legacy.events.first else { Issue.record("\(legacy.events)"); return }
        #expect(!one.extended && one.advertisingSets == 1)

        // A controller that refuses the question is used with one set, not given up.
        var mute = Bench(leFeatures: Self.extended)
        mute.advertisingSets = nil
        mute.powerOn()
        guard case .ready(let m)? = mute.events.first else { Issue.record("\(mute.events)"); return }
        #expect(mute.host.phase == .ready && m.advertisingSets == 1)
    }

    // MARK: LEHost: several advertising sets, several peripheral links

    @Test func eachSetAdvertisesWithItsOwnAddress() throws {
        let ad = AdvertisingData.forService(relayService)!.encoded()
        var b = Bench(leFeatures: Self.extended)
        b.powerOn()
        b.commands.removeAll()
        b.command(2, .startAdvertising(AdvertisingRequest(data: ad, set: 1, address: Self.a1)))
        b.command(3, .startAdvertising(AdvertisingRequest(data: ad, set: 2, address: Self.a2)))
        #expect(b.result(2) == .success(.done) && b.result(3) == .success(.done))
        #expect(b.commands.contains(.leSetAdvertisingSetRandomAddress(handle: 1, Self.a1)))
        #expect(b.commands.contains(.leSetAdvertisingSetRandomAddress(handle: 2, Self.a2)))
        #expect(b.commands.contains(.leSetExtendedAdvertisingData(handle: 2, operation: 3, fragmentPreference: 1, data: ad)))
        #expect(b.commands.last == .leSetExtendedAdvertisingEnable(enable: true, sets: [AdvertisingSetEnable(handle: 2)]))
        #expect(b.host.advertisingSets == [1, 2])
        // Reconfiguring set 2 disables set 2 only: set 1 keeps advertising.
        b.commands.removeAll()
        b.command(4, .startAdvertising(AdvertisingRequest(data: ad, set: 2, address: Self.a2)))
        #expect(b.commands.first == .leSetExtendedAdvertisingEnable(enable: false, sets: [AdvertisingSetEnable(handle: 2)]))
        b.command(5, .stopAdvertisingSet(1))
        #expect(b.commands.last == .leSetExtendedAdvertisingEnable(enable: false, sets: [AdvertisingSetEnable(handle: 1)]))
        #expect(b.host.advertisingSets == [2])

        // Beyond the controller's sets, a non-static address, and a legacy controller's second set: refused, nothing sent.
        var small = Bench(leFeatures: Self.extended)
        small.advertisingSets = 2
        small.powerOn()
        small.commands.removeAll()
        small.command(2, .startAdvertising(AdvertisingRequest(data: ad, set: 2, address: Self.a1)))
        small.command(3, .startAdvertising(AdvertisingRequest(data: ad, set: 1, address: try BluetoothAddress(string: "41:22:33:44:55:66"))))
        guard case .failure(.invalidParameter)? = small.result(2), case .failure(.invalidParameter)? = small.result(3) else {
            Issue.record("\(small.allEvents)"); return
        }
        var legacy = Bench()
        legacy.powerOn()
        legacy.commands.removeAll()
        legacy.command(2, .startAdvertising(AdvertisingRequest(data: ad, set: 1)))
        legacy.command(3, .startAdvertising(AdvertisingRequest(data: ad, address: Self.a1)))
        guard case .failure(.invalidParameter)? = legacy.result(2), case .failure(.invalidParameter)? = legacy.result(3) else {
            Issue.record("\(legacy.allEvents)"); return
        }
        #expect(small.commands.isEmpty && legacy.commands.isEmpty)
    }

    @Test func advertisingSetTerminatedNamesThePeripheralLinksIdentity() throws {
        let ad = AdvertisingData.forService(relayService)!.encoded()
        var b = Bench(leFeatures: Self.extended)
        b.powerOn()
        b.command(2, .startAdvertising(AdvertisingRequest(data: ad, set: 1, address: Self.a1)))
        b.command(3, .startAdvertising(AdvertisingRequest(data: ad, set: 2, address: Self.a2)))
        _ = b.takeEvents()
        // The DUT connects to set 2, then to set 1: connection complete first, then the set's end (7.7.65.18).
        b.connection(0x41, role: .peripheral)
        #expect(b.host.connection(0x41)?.localAddress == nil && b.host.advertisingSets == [1, 2])
        b.controller(.leMeta(.advertisingSetTerminated(status: 0, set: 2, handle: 0x41, completedEvents: 0)))
        b.connection(0x42, role: .peripheral)
        b.controller(.leMeta(.advertisingSetTerminated(status: 0, set: 1, handle: 0x42, completedEvents: 0)))
        let events = b.takeEvents()
        #expect(events.contains(.connectionIdentified(handle: 0x41, set: 2, localAddress: Self.a2)))
        // By the second link only set 1 was left: it is named in its connected event already.
        #expect(b.host.connection(0x42)?.advertisingSet == 1)
        #expect(!events.contains(.connectionIdentified(handle: 0x42, set: 1, localAddress: Self.a1)))
        #expect(b.host.connection(0x41)?.localAddress == Self.a2 && b.host.connection(0x41)?.advertisingSet == 2)
        #expect(b.host.connection(0x42)?.localAddress == Self.a1)
        #expect(b.host.advertisingSets.isEmpty && b.host.connectionHandles == [0x41, 0x42])
        // Both links serve the GATT database on their own: an MTU exchange on each gets its own answer.
        b.peerSends(.exchangeMTURequest(mtu: 100), handle: 0x41)
        b.peerSends(.exchangeMTURequest(mtu: 200), handle: 0x42)
        #expect(b.host.mtu(of: 0x41) == 100 && b.host.mtu(of: 0x42) == 200)
        // A set that ends without a connection (status != 0) just stops.
        b.command(4, .startAdvertising(AdvertisingRequest(data: ad, set: 1, address: Self.a1)))
        b.controller(.leMeta(.advertisingSetTerminated(status: 0x3C, set: 1, handle: 0, completedEvents: 5)))
        #expect(b.host.advertisingSets.isEmpty)
        #expect(!b.takeEvents().contains { if case .connectionIdentified = $0 { true } else { false } })
    }

    /// One GATT database for every identity, but each identity names itself: a read of the node
    /// id characteristic returns the value set for the connection's local address (peripheral
    /// links by their advertising set's address, central links by their own address), any other
    /// connection the database's. Subscriptions and writes stay per connection.
    @Test func eachIdentityReadsItsOwnNodeIDFromTheSharedDatabase() throws {
        let ad = AdvertisingData.forService(relayService)!.encoded()
        var b = Bench(leFeatures: Self.extended)
        let service = try b.host.registerService(GATTBinding.relay.serviceDefinition(nodeID: Array(repeating: 0, count: 16)))
        let nodeID = try #require(service.characteristic(GATTBinding.relay.nodeID!.uuid)).valueHandle
        let packet = try #require(service.characteristic(GATTBinding.relay.packet.uuid))
        b.powerOn()
        let named = [b.host.setValue(Array(repeating: 1, count: 16), valueHandle: nodeID, forLocalAddress: Self.a1),
                     b.host.setValue(Array(repeating: 2, count: 16), valueHandle: nodeID, forLocalAddress: Self.a2),
                     b.host.setValue([9], valueHandle: nodeID - 1, forLocalAddress: Self.a1)]   // a declaration, not a value
        #expect(named == [true, true, false])
        b.command(2, .startAdvertising(AdvertisingRequest(data: ad, set: 1, address: Self.a1)))
        b.command(3, .startAdvertising(AdvertisingRequest(data: ad, set: 2, address: Self.a2)))
        b.connection(0x41, role: .peripheral)
        b.controller(.leMeta(.advertisingSetTerminated(status: 0, set: 2, handle: 0x41, completedEvents: 0)))
        b.connection(0x42, role: .peripheral)   // set 1, the only one left
        b.command(4, .connect(peerAddress, timeout: .seconds(5), ownAddress: Self.a1))
        b.connection(0x43, role: .central)
        b.command(5, .connect(peerAddress, timeout: .seconds(5)))   // the power-on address: no value of its own
        b.connection(0x44, role: .central)
        func read(on connection: UInt16) -> [ATTPDU] {
            b.peerSends(.readRequest(handle: nodeID), handle: connection)
            b.completeAllACL(handle: connection)
            return b.takeATT()
        }
        #expect(read(on: 0x41) == [.readResponse(Array(repeating: 2, count: 16))])
        #expect(read(on: 0x42) == [.readResponse(Array(repeating: 1, count: 16))])
        #expect(read(on: 0x43) == [.readResponse(Array(repeating: 1, count: 16))])
        #expect(read(on: 0x44) == [.readResponse(Array(repeating: 0, count: 16))])
        // Renaming an identity changes what its connections read next.
        b.host.setValue(Array(repeating: 3, count: 16), valueHandle: nodeID, forLocalAddress: Self.a2)
        #expect(read(on: 0x41) == [.readResponse(Array(repeating: 3, count: 16))])
        // A subscription and a write on one connection are that connection's only.
        _ = b.takeEvents()
        b.peerSends(.writeRequest(handle: try #require(packet.cccdHandle), value: [1, 0]), handle: 0x41)
        b.peerSends(.writeCommand(handle: packet.valueHandle, value: [7]), handle: 0x42)
        #expect(b.host.isSubscribed(0x41, valueHandle: packet.valueHandle) && !b.host.isSubscribed(0x42, valueHandle: packet.valueHandle))
        let events = b.takeEvents()
        #expect(events.contains(.subscriptionChanged(handle: 0x41, characteristic: packet.uuid, valueHandle: packet.valueHandle, notify: true, indicate: false)))
        #expect(events.contains(.gattWrite(handle: 0x42, characteristic: packet.uuid, valueHandle: packet.valueHandle, value: [7], kind: .command)))
    }

    @Test func withOneConnectableSetTheLinkIsKnownAtOnce() throws {
        let ad = AdvertisingData.forService(relayService)!.encoded()
        var b = Bench(leFeatures: Self.extended)
        b.powerOn()
        b.command(2, .startAdvertising(AdvertisingRequest(data: ad, set: 1, address: Self.a1)))
        b.command(3, .startAdvertising(AdvertisingRequest(data: ad, connectable: false, set: 2, address: Self.a2)))
        b.connection(0x41, role: .peripheral)
        // Set 2 is not connectable, so set 1 it is: named at once, and no longer advertising (a node re-arms it on `.connected`).
        #expect(b.host.connection(0x41)?.advertisingSet == 1 && b.host.connection(0x41)?.localAddress == Self.a1)
        #expect(b.host.advertisingSets == [2])
        _ = b.takeEvents()
        b.controller(.leMeta(.advertisingSetTerminated(status: 0, set: 1, handle: 0x41, completedEvents: 0)))
        #expect(b.takeEvents().isEmpty)   // already known: no second identification
    }

    @Test func legacyPeripheralLinkIsIdentityZeroAtOnce() throws {
        var b = Bench()
        b.powerOn()
        b.command(2, .startAdvertising(AdvertisingRequest(data: AdvertisingData.forService(relayService)!.encoded())))
        b.connection(1, role: .peripheral)
        #expect(b.host.connection(1)?.localAddress == ourAddress && b.host.connection(1)?.advertisingSet == 0)
        #expect(!b.host.advertising)
    }

    // MARK: LEHost: several central links to one peer, one own address each

    @Test func eachConnectUsesItsOwnAddress() throws {
        var b = Bench(leFeatures: Self.extended)
        b.powerOn()
        b.commands.removeAll()
        b.command(2, .connect(peerAddress, timeout: .seconds(5), ownAddress: Self.a1))
        #expect(b.commands.map(\.opcode) == [HCIOpcode.leSetRandomAddress, HCIOpcode.leExtendedCreateConnection])
        #expect(b.commands.first == .leSetRandomAddress(Self.a1))
        b.connection(1, role: .central)
        #expect(b.result(2) == .success(.connected(handle: 1)))
        b.commands.removeAll()
        b.command(3, .connect(peerAddress, timeout: .seconds(5), ownAddress: Self.a2))
        b.connection(2, role: .central)
        #expect(b.result(3) == .success(.connected(handle: 2)))
        #expect(b.commands.first == .leSetRandomAddress(Self.a2))
        #expect(b.host.connection(1)?.localAddress == Self.a1 && b.host.connection(2)?.localAddress == Self.a2)
        #expect(b.host.connection(2)?.advertisingSet == nil)
        // The same own address again: no address change. No own address: back to the power-on one.
        b.command(4, .disconnect(handle: 2))
        b.controller(.disconnectionComplete(status: 0, handle: 2, reason: 0x16))
        b.commands.removeAll()
        b.command(5, .connect(peerAddress, timeout: .seconds(5), ownAddress: Self.a2))
        #expect(b.commands.map(\.opcode) == [HCIOpcode.leExtendedCreateConnection])
        b.connection(3, role: .central)
        b.commands.removeAll()
        b.command(6, .connect(peerAddress, timeout: .seconds(5)))
        #expect(b.commands.first == .leSetRandomAddress(ourAddress))
        b.connection(4, role: .central)
        #expect(b.host.connection(4)?.localAddress == ourAddress)
    }

    @Test func aControllerRefusingASecondLinkFailsTheConnect() throws {
        var b = Bench(leFeatures: Self.extended)
        b.powerOn()
        b.autoAnswer = false
        b.command(2, .connect(peerAddress, timeout: .seconds(5), ownAddress: Self.a1))
        b.controller(.commandComplete(numCommandPackets: 1, opcode: HCIOpcode.leSetRandomAddress, returned: .status(0)))
        // Connection Already Exists (0x0B): the controller keeps one link per peer.
        b.controller(.commandStatus(status: 0x0B, numCommandPackets: 1, opcode: HCIOpcode.leExtendedCreateConnection))
        #expect(b.result(2) == .failure(.controllerStatus(opcode: HCIOpcode.leExtendedCreateConnection, status: 0x0B)))
        // The own address refused (Command Disallowed): the create is never sent, and the next connect is not busy.
        b.commands.removeAll()
        b.command(3, .connect(peerAddress, timeout: .seconds(5), ownAddress: Self.a2))
        b.controller(.commandComplete(numCommandPackets: 1, opcode: HCIOpcode.leSetRandomAddress, returned: .status(0x0C)))
        #expect(b.result(3) == .failure(.controllerStatus(opcode: HCIOpcode.leSetRandomAddress, status: 0x0C)))
        #expect(b.commands == [.leSetRandomAddress(Self.a2)] && b.host.queuedCommands == 0)
        b.autoAnswer = true
        b.command(4, .connect(peerAddress, timeout: .seconds(5), ownAddress: Self.a2))
        #expect(b.commands.last.map(\.opcode) == HCIOpcode.leExtendedCreateConnection)
        #expect(b.commands.dropLast().last == .leSetRandomAddress(Self.a2))   // set again: the refused one is unknown
    }

    @Test func anotherOwnAddressNeedsAnExtendedControllerAndNoScan() throws {
        var legacy = Bench()
        legacy.powerOn()
        legacy.commands.removeAll()
        legacy.command(2, .connect(peerAddress, timeout: .seconds(5), ownAddress: Self.a1))
        guard case .failure(.invalidParameter)? = legacy.result(2) else { Issue.record("\(legacy.allEvents)"); return }
        // Its own one address is fine.
        legacy.command(3, .connect(peerAddress, timeout: .seconds(5), ownAddress: ourAddress))
        #expect(legacy.commands.map(\.opcode) == [HCIOpcode.leCreateConnection])

        var scanning = Bench(leFeatures: Self.extended)
        scanning.powerOn()
        scanning.command(2, .startScanning(ScanRequest()))
        scanning.commands.removeAll()
        scanning.command(3, .connect(peerAddress, timeout: .seconds(5), ownAddress: Self.a1))
        guard case .failure(.invalidParameter)? = scanning.result(3) else { Issue.record("\(scanning.allEvents)"); return }
        #expect(scanning.commands.isEmpty)
        scanning.command(4, .connect(peerAddress, timeout: .seconds(5), ownAddress: try BluetoothAddress(string: "41:22:33:44:55:66")))
        guard case .failure(.invalidParameter)? = scanning.result(4) else { Issue.record(); return }
    }
}
