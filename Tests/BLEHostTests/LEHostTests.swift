import Testing
@testable import BLEHost

/// LEHost driven by a scripted controller (Support.swift's `Bench`), step by step.
@Suite struct LEHostTests {
    static let extendedFeatures: UInt64 = 1 << 12

    static func ready(features: UInt64 = 0, buffers: UInt8 = 64, config: LEHostConfig = LEHostConfig()) -> Bench {
        var b = Bench(config: config, leFeatures: features, buffers: buffers)
        b.powerOn()
        return b
    }

    @Test func initSequenceReachesReady() throws {
        var b = Bench()
        b.powerOn()
        // The HCI-NOTES sequence, in order, one command at a time.
        #expect(b.commands == [.reset, .setEventMask(0x2000_1FFF_FFFF_FFFF), .leSetEventMask(0x20A0F), .leReadLocalSupportedFeatures,
                               .leReadBufferSize, .readBDADDR, .leSetRandomAddress(ourAddress)])
        #expect(b.host.phase == .ready)
        guard case .ready(let info)? = b.events.first else { Issue.record("\(b.events)"); return }
        #expect(info.aclDataLength == 27 && info.aclBuffers == 64 && !info.extended)
        #expect(info.publicAddress.string == "00:1B:DC:00:00:01" && info.randomAddress == ourAddress)
        #expect(b.result(1) == .success(.done))
    }

    @Test func initWaitsForEachCommandAndTimesOut() {
        var b = Bench()
        b.autoAnswer = false
        b.powerOn()
        #expect(b.commands == [.reset])   // nothing else until Reset completes
        b.advance(to: .milliseconds(5_000))
        #expect(b.host.phase == .failed)
        #expect(b.result(1) == .failure(.timeout))
        #expect(b.events.contains(.controllerFailed(.commandTimeout(opcode: HCIOpcode.reset))))
    }

    @Test func powerOnRefusesANonStaticAddress() throws {
        var b = Bench()
        b.command(1, .powerOn(randomAddress: try BluetoothAddress(string: "40:11:22:33:44:55")))
        guard case .failure(.invalidParameter)? = b.result(1) else { Issue.record("\(b.allEvents)"); return }
        #expect(b.commands.isEmpty)
    }

    @Test func legacyAndExtendedAdvertising() throws {
        let ad = AdvertisingData.forService(relayService)!.encoded()
        var legacy = Self.ready()
        legacy.commands.removeAll()
        legacy.command(2, .startAdvertising(AdvertisingRequest(data: ad)))
        #expect(legacy.commands.map(\.opcode) == [HCIOpcode.leSetAdvertisingParameters, HCIOpcode.leSetAdvertisingData,
                                                  HCIOpcode.leSetScanResponseData, HCIOpcode.leSetAdvertisingEnable])
        #expect(legacy.commands[1] == .leSetAdvertisingData(ad))
        guard case .leSetAdvertisingParameters(let p) = legacy.commands[0] else { Issue.record(); return }
        #expect(p.ownAddressType == .random && p.advertisingType == 0 && p.intervalMin == 0x20)
        #expect(legacy.result(2) == .success(.done) && legacy.host.advertising)

        var ext = Self.ready(features: Self.extendedFeatures)
        ext.commands.removeAll()
        ext.command(2, .startAdvertising(AdvertisingRequest(data: ad)))
        #expect(ext.commands.map(\.opcode) == [HCIOpcode.leSetExtendedAdvertisingParameters, HCIOpcode.leSetAdvertisingSetRandomAddress,
                                               HCIOpcode.leSetExtendedAdvertisingData, HCIOpcode.leSetExtendedScanResponseData,
                                               HCIOpcode.leSetExtendedAdvertisingEnable])
        #expect(ext.commands[1] == .leSetAdvertisingSetRandomAddress(handle: 0, ourAddress))
        #expect(ext.result(2) == .success(.done))

        // A refused command fails the operation and drops the rest of its commands.
        var refused = Self.ready()
        refused.autoAnswer = false
        refused.commands.removeAll()
        refused.command(3, .startAdvertising(AdvertisingRequest(data: ad)))
        refused.controller(.commandComplete(numCommandPackets: 1, opcode: HCIOpcode.leSetAdvertisingParameters, returned: .status(0x12)))
        #expect(refused.result(3) == .failure(.controllerStatus(opcode: HCIOpcode.leSetAdvertisingParameters, status: 0x12)))
        #expect(refused.commands.count == 1 && refused.host.queuedCommands == 0 && !refused.host.advertising)

        var big = Self.ready()
        big.command(4, .startAdvertising(AdvertisingRequest(data: Array(repeating: 0, count: 32))))
        guard case .failure(.invalidParameter)? = big.result(4) else { Issue.record(); return }
    }

    @Test func scanningReportsLegacyAndExtendedAdvertisements() throws {
        var b = Self.ready()
        b.command(2, .startScanning(ScanRequest()))
        #expect(b.commands.suffix(2).map(\.opcode) == [HCIOpcode.leSetScanParameters, HCIOpcode.leSetScanEnable])
        b.events.removeAll()
        // Bumble's reports: a legacy one, then an extended one (sent even to legacy scanning, HCI-NOTES pitfall 3).
        b.feed(.controller(try H4Packet(decoding: hex("043e2702010001f5f4f3f2f1f01b02010611070100000000000059414c45524853454d05096d657368ce"))))
        b.feed(.controller(try H4Packet(decoding: hex("043e350d01130001f5f4f3f2f1f001010000ce0000000000000000001b02010611070100000000000059414c45524853454d05096d657368"))))
        // A report with malformed AD still arrives, with the error instead of a decoding.
        b.controller(.leMeta(.advertisingReport([LegacyAdvertisingReport(eventType: 3, address: peerAddress, data: [5, 9, 0x61], rssi: -70)])))
        let reports = b.events.compactMap { if case .advertisement(let r) = $0 { r } else { nil } }
        #expect(reports.count == 3)
        #expect(reports[0].connectable && !reports[0].extended && reports[0].ad?.serviceUUIDs == [relayService] && reports[0].rssi == -50)
        #expect(reports[1].connectable && reports[1].extended && reports[1].ad?.localName == "mesh")
        #expect(!reports[2].connectable && reports[2].ad == nil && reports[2].adError?.code == .truncated)

        var ext = Self.ready(features: Self.extendedFeatures)
        ext.command(2, .startScanning(ScanRequest(active: true)))
        #expect(ext.commands.suffix(2).map(\.opcode) == [HCIOpcode.leSetExtendedScanParameters, HCIOpcode.leSetExtendedScanEnable])
        #expect(ext.result(2) == .success(.done))
    }

    /// Peripheral: a peer connects, discovers the relay service, subscribes, writes and long-writes.
    @Test func peripheralServesDiscoveryWritesAndLongWrites() throws {
        var b = Self.ready()
        let service = try b.host.registerService(GATTBinding.relay.serviceDefinition(nodeID: Array(0..<16)))
        let packet = try #require(service.characteristic(GATTBinding.relay.packet.uuid))
        let nodeID = try #require(service.characteristic(GATTBinding.relay.nodeID!.uuid))
        #expect(service.startHandle == 1 && packet.valueHandle == 3 && packet.cccdHandle == 4 && nodeID.valueHandle == 6 && service.endHandle == 6)
        b.command(2, .startAdvertising(AdvertisingRequest(data: AdvertisingData.forService(relayService)!.encoded())))
        b.connection(1, role: .peripheral)
        #expect(b.events.contains(.connected(ConnectionInfo(handle: 1, peer: peerAddress, role: .peripheral, interval: 10, latency: 0,
                                                            supervisionTimeout: 10, localAddress: ourAddress, advertisingSet: 0))))
        #expect(!b.host.advertising)

        // MTU exchange: the server accepts 517.
        b.peerSends(.exchangeMTURequest(mtu: 517))
        #expect(b.takeATT() == [.exchangeMTUResponse(mtu: 517)])
        #expect(b.host.mtu(of: 1) == 517)
        // Discovery, as a central's GATT client does it.
        b.peerSends(.readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService))
        #expect(b.takeATT() == [.readByGroupTypeResponse([ATTGroupValue(handle: 1, end: 6, value: relayService.littleEndianBytes)])])
        b.peerSends(.readByGroupTypeRequest(start: 7, end: 0xFFFF, type: .primaryService))
        #expect(b.takeATT() == [.errorResponse(request: 0x10, handle: 7, error: ATTError.attributeNotFound)])
        b.peerSends(.readByTypeRequest(start: 1, end: 6, type: .characteristic))
        #expect(b.takeATT() == [.readByTypeResponse([
            ATTHandleValue(handle: 2, value: [0x1C, 3, 0] + GATTBinding.relay.packet.uuid.littleEndianBytes),
            ATTHandleValue(handle: 5, value: [0x02, 6, 0] + GATTBinding.relay.nodeID!.uuid.littleEndianBytes)])])
        b.peerSends(.findInformationRequest(start: 4, end: 4))
        #expect(b.takeATT() == [.findInformationResponse([ATTHandleUUID(handle: 4, uuid: .clientCharacteristicConfiguration)])])
        b.peerSends(.findByTypeValueRequest(start: 1, end: 0xFFFF, type: 0x2800, value: relayService.littleEndianBytes))
        #expect(b.takeATT() == [.findByTypeValueResponse([ATTHandleRange(start: 1, end: 6)])])
        b.peerSends(.readRequest(handle: 6))
        #expect(b.takeATT() == [.readResponse(Array(0..<16))])
        b.peerSends(.readRequest(handle: 3))   // the packet characteristic has no Read property
        #expect(b.takeATT() == [.errorResponse(request: 0x0A, handle: 3, error: ATTError.readNotPermitted)])

        // Subscribe, write, write command.
        b.events.removeAll()
        b.peerSends(.writeRequest(handle: 4, value: [1, 0]))
        #expect(b.takeATT() == [.writeResponse])
        #expect(b.events.contains(.subscriptionChanged(handle: 1, characteristic: packet.uuid, valueHandle: 3, notify: true, indicate: false)))
        b.peerSends(.writeRequest(handle: 3, value: Array("hello".utf8)))
        #expect(b.takeATT() == [.writeResponse])
        #expect(b.events.contains(.gattWrite(handle: 1, characteristic: packet.uuid, valueHandle: 3, value: Array("hello".utf8), kind: .request)))
        b.peerSends(.writeCommand(handle: 3, value: [7]))
        b.peerSends(.writeCommand(handle: 6, value: [7]))   // not writable: silently ignored (no response to commands)
        #expect(b.takeATT() == [])
        #expect(b.events.filter { if case .gattWrite = $0 { true } else { false } }.count == 2)
        b.peerSends(.writeRequest(handle: 6, value: [1]))
        #expect(b.takeATT() == [.errorResponse(request: 0x12, handle: 6, error: ATTError.writeNotPermitted)])

        // Long write: three prepared parts, then execute; one write event with the whole value.
        b.events.removeAll()
        let long = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        for offset in stride(from: 0, to: 300, by: 120) {
            let part = Array(long[offset..<min(offset + 120, 300)])
            b.peerSends(.prepareWriteRequest(handle: 3, offset: UInt16(offset), value: part))
            #expect(b.takeATT() == [.prepareWriteResponse(handle: 3, offset: UInt16(offset), value: part)])
        }
        #expect(b.events.isEmpty)
        b.peerSends(.executeWriteRequest(flags: 1))
        #expect(b.takeATT() == [.executeWriteResponse])
        #expect(b.events == [.gattWrite(handle: 1, characteristic: packet.uuid, valueHandle: 3, value: long, kind: .long)])

        // Notification: only when subscribed and when it fits ATT_MTU - 3.
        b.command(10, .notify(handle: 1, valueHandle: 3, value: [1, 2, 3]))
        #expect(b.result(10) == .success(.done))
        #expect(b.takeATT() == [.handleValueNotification(handle: 3, value: [1, 2, 3])])
        b.command(11, .notify(handle: 1, valueHandle: 3, value: Array(repeating: 0, count: 515)))
        #expect(b.result(11) == .failure(.tooLarge(size: 515, limit: 514)))
        b.peerSends(.writeRequest(handle: 4, value: [0, 0]))
        _ = b.takeATT()
        b.command(12, .notify(handle: 1, valueHandle: 3, value: [1]))
        #expect(b.result(12) == .failure(.notSubscribed))

        // Unknown requests get Request Not Supported; unknown commands nothing.
        b.peerSends(.unknown(opcode: 0x0E, parameters: [1, 0, 2, 0]))
        b.peerSends(.unknown(opcode: 0xD2, parameters: [1]))
        #expect(b.takeATT() == [.errorResponse(request: 0x0E, handle: 0, error: ATTError.requestNotSupported)])
    }

    @Test func prepareQueueIsBounded() throws {
        var config = LEHostConfig()
        config.maxPreparedWrites = 2
        var b = Self.ready(config: config)
        _ = try b.host.registerService(GATTBinding.relay.serviceDefinition(nodeID: []))
        b.connection(1, role: .peripheral)
        for i in 0..<3 { b.peerSends(.prepareWriteRequest(handle: 3, offset: UInt16(i), value: [1])) }
        let r = b.takeATT()
        #expect(r.last == .errorResponse(request: 0x16, handle: 3, error: ATTError.prepareQueueFull))
        // A gap in the offsets is refused at execute time.
        b.peerSends(.executeWriteRequest(flags: 0))
        b.peerSends(.prepareWriteRequest(handle: 3, offset: 5, value: [1]))
        b.peerSends(.executeWriteRequest(flags: 1))
        #expect(b.takeATT().suffix(1) == [.errorResponse(request: 0x18, handle: 3, error: ATTError.invalidOffset)])
    }

    /// Central: connect, MTU, discovery, subscribe, write, long write, notification, disconnect,
    /// against a peer whose GATT server is a second GATTDatabase.
    @Test func centralConnectsDiscoversSubscribesAndWrites() throws {
        var b = Self.ready(features: Self.extendedFeatures)
        var peerDB = GATTDatabase()
        let peerService = try peerDB.register(GATTBinding.relay.serviceDefinition(nodeID: Array(repeating: 0xAB, count: 16)))
        var peerConn = GATTServerConnection()
        var peerMTU = 23
        var peerWrites: [GATTServerEvent] = []
        /// The peer's server answers every ATT request the host sent.
        func serve(_ b: inout Bench) {
            for pdu in b.takeATT() {
                if case .exchangeMTURequest(let m) = pdu {
                    peerMTU = Int(min(m, 247))
                    b.peerSends(.exchangeMTUResponse(mtu: 247))
                    continue
                }
                let (rsp, events) = peerDB.serve(pdu, connection: &peerConn, mtu: peerMTU)
                peerWrites += events
                if let rsp { b.peerSends(rsp) }
            }
        }

        b.command(2, .connect(peerAddress, timeout: .seconds(2)))
        guard case .leExtendedCreateConnection(let p)? = b.commands.last else { Issue.record("\(b.commands)"); return }
        #expect(p.peer == peerAddress && p.ownAddressType == .random)
        b.connection(1, role: .central)
        #expect(b.result(2) == .success(.connected(handle: 1)))

        b.command(3, .exchangeMTU(handle: 1))
        serve(&b)
        #expect(b.result(3) == .success(.mtu(247)) && b.host.mtu(of: 1) == 247)
        #expect(b.events.contains(.mtuChanged(handle: 1, mtu: 247)))
        // A client offering less than the server's 247 (FRG/BV-08's 182) settles on its own
        // offer, as the server does: the smaller of the two (Core Vol 3 Part F 3.4.2.2).
        var small = b
        small.command(9, .exchangeMTU(handle: 1, mtu: 182))
        serve(&small)
        #expect(small.result(9) == .success(.mtu(182)) && small.host.mtu(of: 1) == 182 && peerMTU == 182)
        peerMTU = 247   // the peer of `b` goes on at 247

        b.command(4, .discover(handle: 1, service: relayService))
        for _ in 0..<10 { serve(&b) }
        guard case .success(.service(let s))? = b.result(4) else { Issue.record("\(String(describing: b.result(4)))"); return }
        #expect(s.startHandle == peerService.startHandle && s.endHandle == peerService.endHandle)
        let packet = try #require(s.characteristic(GATTBinding.relay.packet.uuid))
        #expect(packet.valueHandle == 3 && packet.cccdHandle == 4 && packet.properties == [.write, .writeWithoutResponse, .notify])
        #expect(s.characteristic(GATTBinding.relay.nodeID!.uuid)?.descriptors == [])

        b.command(5, .subscribe(handle: 1, cccdHandle: packet.cccdHandle!))
        serve(&b)
        #expect(b.result(5) == .success(.done) && peerConn.isSubscribed(3))

        // Operations queue: read and a short write issued together run one after the other.
        b.command(6, .read(handle: 1, attribute: 6))
        b.command(7, .write(handle: 1, attribute: 3, value: [1, 2, 3]))
        #expect(b.takeATT() == [.readRequest(handle: 6)])   // only one request outstanding
        b.peerSends(.readResponse(Array(repeating: 0xAB, count: 16)))
        serve(&b)
        #expect(b.result(6) == .success(.value(Array(repeating: 0xAB, count: 16))))
        #expect(b.result(7) == .success(.done))

        // A value above ATT_MTU - 3 goes as a long write.
        let long = (0..<400).map { UInt8(truncatingIfNeeded: $0 * 7) }
        b.command(8, .write(handle: 1, attribute: 3, value: long))
        for _ in 0..<5 { serve(&b) }
        #expect(b.result(8) == .success(.done))
        #expect(peerWrites.contains(.write(valueHandle: 3, value: long, kind: .long)))
        #expect(peerWrites.contains(.write(valueHandle: 3, value: [1, 2, 3], kind: .request)))

        b.command(9, .writeCommand(handle: 1, attribute: 3, value: Array(repeating: 1, count: 245)))
        #expect(b.result(9) == .failure(.tooLarge(size: 245, limit: 244)))

        // Notification and indication from the peer.
        b.events.removeAll()
        b.peerSends(.handleValueNotification(handle: 3, value: Array(repeating: 5, count: 100)))
        b.peerSends(.handleValueIndication(handle: 3, value: [6]))
        #expect(b.events == [.notification(handle: 1, attribute: 3, value: Array(repeating: 5, count: 100), indication: false),
                             .notification(handle: 1, attribute: 3, value: [6], indication: true)])
        #expect(b.takeATT() == [.handleValueConfirmation])

        // A parameter update request from the peripheral is accepted and carried out.
        b.peerSendsFrame(L2CAPFrame(channel: L2CAPChannel.leSignalling, payload: hex("12 07 08 00 18 00 28 00 00 00 f4 01")))
        b.completeAllACL()
        #expect(b.peerFrames.last == L2CAPFrame(channel: 5, payload: hex("13 07 02 00 00 00")))
        #expect(b.commands.last == .leConnectionUpdate(handle: 1, ConnectionParameters(intervalMin: 0x18, intervalMax: 0x28, latency: 0, supervisionTimeout: 0x1f4)))
        // Unknown signalling commands are rejected; SMP pairing is refused.
        b.peerSendsFrame(L2CAPFrame(channel: 5, payload: hex("14 08 02 00 01 02")))
        b.peerSendsFrame(L2CAPFrame(channel: 6, payload: hex("01 03 00 01 10 07 07")))
        b.completeAllACL()
        #expect(b.peerFrames.suffix(2) == [L2CAPFrame(channel: 5, payload: hex("01 08 02 00 00 00")), L2CAPFrame(channel: 6, payload: [5, 5])])

        // Disconnect, with an operation pending: it fails with the reason.
        b.command(10, .read(handle: 1, attribute: 6))
        b.command(11, .disconnect(handle: 1))
        #expect(b.commands.last == .disconnect(handle: 1, reason: 0x13))
        b.controller(.disconnectionComplete(status: 0, handle: 1, reason: 0x16))
        #expect(b.result(11) == .success(.done))
        #expect(b.result(10) == .failure(.disconnected(reason: 0x16)))
        #expect(b.events.contains(.disconnected(handle: 1, reason: 0x16)))
        #expect(b.host.connectionHandles.isEmpty && b.host.pendingTimers == 0)
    }

    @Test func parameterUpdateRequestToAPeripheralIsRejected() {
        var b = Self.ready()
        b.connection(1, role: .peripheral)
        b.peerSendsFrame(L2CAPFrame(channel: 5, payload: hex("12 07 08 00 18 00 28 00 00 00 f4 01")))
        b.completeAllACL()
        #expect(b.peerFrames.last == L2CAPFrame(channel: 5, payload: hex("01 07 02 00 00 00")))
    }

    @Test func flowControlHonoursTwoBuffers() throws {
        var b = Self.ready(buffers: 2)
        b.connection(1, role: .central)
        b.peerSends(.exchangeMTURequest(mtu: 247))   // the peer raises the MTU
        b.completeAllACL()
        b.acl.removeAll()
        b.peerFrames.removeAll()
        // A 240-byte write command is a 247-byte L2CAP frame: 10 ACL fragments of at most 27 bytes.
        b.command(2, .writeCommand(handle: 1, attribute: 3, value: Array(repeating: 0x5A, count: 240)))
        #expect(b.result(2) == .success(.done))
        #expect(b.acl.count == 2 && b.host.aclPacketsInFlight == 2 && b.host.queuedACLPackets == 8)
        var rounds = 0
        while b.host.queuedACLPackets > 0 {
            b.inFlight -= 1   // the controller frees one buffer, then reports it
            b.controller(.numberOfCompletedPackets([CompletedPackets(handle: 1, count: 1)]))
            rounds += 1
            #expect(b.host.aclPacketsInFlight <= 2)
        }
        #expect(rounds == 8 && b.acl.count == 10 && b.maxInFlightSeen <= 2)
        #expect(b.acl.allSatisfy { $0.data.count <= 27 })
        #expect(b.peerFrames.last == L2CAPFrame(channel: 4, payload: ATTPDU.writeCommand(handle: 3, value: Array(repeating: 0x5A, count: 240)).encoded()))
        // A controller that over-reports completions cannot widen the window.
        b.controller(.numberOfCompletedPackets([CompletedPackets(handle: 1, count: 50)]))
        b.command(3, .writeCommand(handle: 1, attribute: 3, value: Array(repeating: 1, count: 240)))
        #expect(b.host.aclPacketsInFlight <= 2)
        // Disconnection frees the buffers the link held and drops its queue.
        b.controller(.disconnectionComplete(status: 0, handle: 1, reason: 0x08))
        #expect(b.host.aclPacketsInFlight == 0 && b.host.queuedACLPackets == 0)
    }

    @Test func aclQueueIsBounded() {
        var config = LEHostConfig()
        config.maxQueuedACLPackets = 12
        var b = Self.ready(buffers: 1, config: config)
        b.connection(1, role: .central)
        b.peerSends(.exchangeMTURequest(mtu: 247))
        var refused = 0
        for i in 0..<5 {
            b.command(UInt64(10 + i), .writeCommand(handle: 1, attribute: 3, value: Array(repeating: 0, count: 100)))
            if b.result(UInt64(10 + i)) == .failure(.queueFull) { refused += 1 }
        }
        #expect(refused > 0 && b.host.queuedACLPackets <= 12)
    }

    @Test func silentPeerTimesOutTheATTRequest() {
        var config = LEHostConfig()
        config.attTimeout = .seconds(3)
        var b = Self.ready(config: config)
        b.connection(1, role: .central)
        b.command(2, .read(handle: 1, attribute: 3))
        b.command(3, .write(handle: 1, attribute: 3, value: [1]))
        #expect(b.takeATT() == [.readRequest(handle: 3)])
        b.advance(to: .milliseconds(2_999))
        #expect(b.result(2) == nil)
        b.advance(to: .milliseconds(3_000))
        #expect(b.result(2) == .failure(.timeout))
        #expect(b.result(3) == .failure(.attBearerClosed))
        b.command(4, .exchangeMTU(handle: 1))
        #expect(b.result(4) == .failure(.attBearerClosed))
        // A late answer completes nothing.
        b.peerSends(.readResponse([1]))
        #expect(b.opResults.count == 3 + 1)   // powerOn + the three above
    }

    @Test func unansweredResponsesAndWrongOpcodesAreIgnored() {
        var b = Self.ready()
        b.connection(1, role: .central)
        b.peerSends(.writeResponse)    // nothing outstanding
        b.command(2, .read(handle: 1, attribute: 3))
        b.peerSends(.writeResponse)    // not the answer to a read
        #expect(b.result(2) == nil)
        b.peerSends(.errorResponse(request: 0x0A, handle: 3, error: ATTError.readNotPermitted))
        #expect(b.result(2) == .failure(.attError(request: 0x0A, handle: 3, code: ATTError.readNotPermitted)))
    }

    @Test func connectTimeoutCancels() {
        var b = Self.ready()
        b.command(2, .connect(peerAddress, timeout: .seconds(2)))
        b.command(3, .connect(peerAddress, timeout: .seconds(2)))
        #expect(b.result(3) == .failure(.busy))
        b.advance(to: .milliseconds(2_000))
        #expect(b.result(2) == .failure(.timeout))
        #expect(b.commands.last == .leCreateConnectionCancel)
        // The controller ends the cancelled attempt with Unknown Connection Identifier: swallowed.
        b.connection(0, role: .central)   // a late success instead: torn down quietly
        #expect(b.commands.last == .disconnect(handle: 0, reason: 0x13))
        #expect(!b.events.contains { if case .connected = $0 { true } else { false } })
        b.controller(.disconnectionComplete(status: 0, handle: 0, reason: 0x16))
        #expect(!b.events.contains { if case .disconnected = $0 { true } else { false } })
        b.command(4, .connect(peerAddress, timeout: .seconds(2)))
        #expect(b.result(4) == nil)   // accepted: the previous attempt is over
    }

    /// Bumble's controller answers LE Create Connection Cancel with success and never ends the
    /// attempt (no LE Connection Complete 0x02): it goes on initiating until the peer advertises.
    /// The host says so to a connect elsewhere (it was `busy` for good before), takes the attempt
    /// over for a connect to the same peer, and starts afresh if the attempt ends after all.
    @Test func aCancelTheControllerDoesNotEndIsTakenOverOrNamed() throws {
        var b = Self.ready()
        b.command(2, .connect(peerAddress, timeout: .seconds(2)))
        b.advance(to: .milliseconds(2_000))
        #expect(b.result(2) == .failure(.timeout) && b.commands.last == .leCreateConnectionCancel)
        let creates = { b.commands.filter { if case .leCreateConnection = $0 { true } else { false } }.count }
        // Another peer: refused with the reason, nothing sent to the controller.
        let other = try BluetoothAddress(string: "C0:00:00:00:00:09", type: .random)
        b.command(3, .connect(other, timeout: .seconds(2)))
        #expect(b.result(3) == .failure(.cancelledConnectPending(peer: peerAddress)))
        #expect(creates() == 1)
        // The same peer: the attempt under way is this connect's; its late success completes it.
        b.command(4, .connect(peerAddress, timeout: .seconds(2)))
        #expect(b.result(4) == nil && creates() == 1)
        b.connection(5, role: .central)
        #expect(b.result(4) == .success(.connected(handle: 5)))
        // Taken over, then ended by the controller after all (0x02): issued again.
        b.command(6, .connect(peerAddress, timeout: .seconds(2)))
        b.advance(to: .milliseconds(4_100))
        #expect(b.result(6) == .failure(.timeout))
        b.command(7, .connect(peerAddress, timeout: .seconds(2)))
        #expect(creates() == 2)
        b.controller(.leMeta(.connectionComplete(LEConnectionComplete(status: 0x02, handle: 0, role: .central, peer: peerAddress,
                                                                     interval: 0, latency: 0, supervisionTimeout: 0, centralClockAccuracy: 0))))
        #expect(b.result(7) == nil && creates() == 3)
    }

    @Test func malformedInputIsReportedNotFatal() throws {
        var b = Self.ready()
        b.connection(1, role: .peripheral)
        b.feed(.controller(.event(hex("0e 04 01"))))
        b.feed(.controller(.acl(hex("01 e0 00 00"))))
        b.peerSendsFrame(L2CAPFrame(channel: 4, payload: hex("0a 03")))   // truncated Read Request
        let layers = b.events.compactMap { if case .malformed(let l, let e) = $0 { "\(l):\(e.code)" } else { nil } }
        #expect(layers == ["hci.event:truncated", "hci.acl:reservedBits", "att.pdu:truncated"])
        #expect(b.takeATT() == [.errorResponse(request: 0x0A, handle: 0, error: ATTError.invalidPDU)])
        #expect(b.host.phase == .ready)
    }

    @Test func hardwareErrorFailsEverything() {
        var b = Self.ready()
        b.connection(1, role: .central)
        b.command(2, .read(handle: 1, attribute: 3))
        b.controller(.hardwareError(code: 3))
        #expect(b.result(2) == .failure(.hardwareError(3)))
        #expect(b.host.phase == .failed && b.host.connectionHandles.isEmpty)
        b.command(3, .startScanning(ScanRequest()))
        #expect(b.result(3) == .failure(.notReady))
        b.powerOn()
        #expect(b.host.phase == .ready)
    }

    @Test func sameInputsSameActions() throws {
        func run() -> [HostAction] {
            var host = LEHost()
            var all: [HostAction] = []
            var b = Bench()
            b.powerOn()
            host = b.host
            all += host.handle(.command(OperationID(9), .connect(peerAddress, timeout: .seconds(1))), at: .milliseconds(1))
            all += host.handle(.timer(HostTimerID(100)), at: .milliseconds(2))
            return all
        }
        #expect(run() == run())
    }
}
