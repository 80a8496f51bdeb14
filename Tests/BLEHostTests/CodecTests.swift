import Testing
@testable import BLEHost
import MeshNode

/// Byte sequences below were produced by Google Bumble's own serialisers (bumble 0.0.x in the
/// radio worktree's venv: `bytes(hci.HCI_LE_Connection_Complete_Event(...))` and friends), not
/// by our encoder, plus the Reset Command Complete measured in HCI-NOTES.md.
@Suite struct HCICodecTests {
    @Test func resetCommandCompleteFromBumble() throws {
        let h4 = try H4Packet(decoding: hex("04 0e 04 01 03 0c 00"))
        guard case .event(let bytes) = h4 else { Issue.record("not an event"); return }
        let e = try HCIEvent(decoding: bytes)
        #expect(e == .commandComplete(numCommandPackets: 1, opcode: HCIOpcode.reset, returned: .status(0)))
        #expect(e.h4.encoded() == hex("04 0e 04 01 03 0c 00"))
    }

    @Test func resetCommandBytes() {
        #expect(HCICommand.reset.h4.encoded() == hex("01 03 0c 00"))
        #expect(HCICommand.leSetRandomAddress(ourAddress).h4.encoded() == hex("010520065544332211c0"))   // Bumble
    }

    @Test func leCreateConnectionMatchesBumble() throws {
        var p = CreateConnectionParameters(peer: peerAddress)
        p.connection = ConnectionParameters()
        let bytes = HCICommand.leCreateConnection(p).h4.encoded()
        #expect(bytes == hex("010d2019600060000001f5f4f3f2f1f001180028000000f40100000000"))
        #expect(try HCICommand(decoding: Array(bytes.dropFirst())) == .leCreateConnection(p))
    }

    @Test func leConnectionCompleteFromBumble() throws {
        let e = try HCIEvent(decoding: Array(hex("043e13010001000101f5f4f3f2f1f00a0000000a0007").dropFirst()))
        guard case .leMeta(.connectionComplete(let c)) = e else { Issue.record("\(e)"); return }
        #expect(c.handle == 1 && c.role == .peripheral && c.peer == peerAddress && c.interval == 10 && c.centralClockAccuracy == 7)
        #expect(e.h4.encoded() == hex("043e13010001000101f5f4f3f2f1f00a0000000a0007"))
    }

    @Test func advertisingReportWithFlagsUUIDAndNameFromBumble() throws {
        let bytes = hex("043e2702010001f5f4f3f2f1f01b02010611070100000000000059414c45524853454d05096d657368ce")
        let e = try HCIEvent(decoding: Array(bytes.dropFirst()))
        guard case .leMeta(.advertisingReport(let reports)) = e, let r = reports.first else { Issue.record("\(e)"); return }
        #expect(r.rssi == -50 && r.address == peerAddress && r.eventType == 0)
        let ad = try AdvertisingData(decoding: r.data)
        #expect(ad.flags == 0x06)
        #expect(ad.serviceUUIDs == [relayService])
        #expect(ad.localName == "mesh")
        #expect(ad.encoded() == r.data)
        #expect(e.h4.encoded() == bytes)
    }

    @Test func extendedAdvertisingReportFromBumble() throws {
        let bytes = hex("043e350d01130001f5f4f3f2f1f001010000ce0000000000000000001b02010611070100000000000059414c45524853454d05096d657368")
        let e = try HCIEvent(decoding: Array(bytes.dropFirst()))
        guard case .leMeta(.extendedAdvertisingReport(let reports)) = e, let r = reports.first else { Issue.record("\(e)"); return }
        #expect(r.eventType == 0x13 && r.rssi == -50 && r.address == peerAddress)
        #expect(try AdvertisingData(decoding: r.data).serviceUUIDs == [relayService])
        #expect(e.h4.encoded() == bytes)
    }

    @Test func numberOfCompletedPacketsIsInterleaved() throws {
        // Bumble: handles [1, 2], counts [3, 4].
        let e = try HCIEvent(decoding: Array(hex("041309020100030002000400").dropFirst()))
        #expect(e == .numberOfCompletedPackets([CompletedPackets(handle: 1, count: 3), CompletedPackets(handle: 2, count: 4)]))
    }

    @Test func disconnectionCompleteFromBumble() throws {
        #expect(try HCIEvent(decoding: Array(hex("04050400010013").dropFirst())) == .disconnectionComplete(status: 0, handle: 1, reason: 0x13))
    }

    @Test func typedReturnParameters() throws {
        let e = try HCIEvent(decoding: hex("0e 07 01 02 20 00 1b 00 40"))
        #expect(e == .commandComplete(numCommandPackets: 1, opcode: HCIOpcode.leReadBufferSize,
                                      returned: .leBufferSize(status: 0, aclDataLength: 27, totalPackets: 64)))
        // A failure with only a status byte is typed as status; an odd size is kept raw.
        #expect(try HCIEvent(decoding: hex("0e 04 01 02 20 0c")) == .commandComplete(numCommandPackets: 1, opcode: 0x2002, returned: .status(0x0C)))
        #expect(try HCIEvent(decoding: hex("0e 05 01 02 20 00 1b")) == .commandComplete(numCommandPackets: 1, opcode: 0x2002, returned: .raw([0, 0x1b])))
        let bd = try HCIEvent(decoding: hex("0e 0a 01 09 10 00 01 00 00 dc 1b 00"))
        #expect(bd == .commandComplete(numCommandPackets: 1, opcode: HCIOpcode.readBDADDR,
                                       returned: .bdAddr(status: 0, address: try BluetoothAddress(string: "00:1B:DC:00:00:01", type: .public))))
    }

    @Test func unknownEventsAreKept() throws {
        let e = try HCIEvent(decoding: hex("ff 03 01 02 03"))
        #expect(e == .unknown(code: 0xff, parameters: [1, 2, 3]))
        let m = try HCIEvent(decoding: hex("3e 04 14 01 00 01"))   // channel selection algorithm: not typed
        #expect(m == .leMeta(.unknown(subevent: 0x14, parameters: [1, 0, 1])))
    }

    @Test func eventErrorCodes() throws {
        #expect(code { _ = try HCIEvent(decoding: []) } == .truncated)
        #expect(code { _ = try HCIEvent(decoding: hex("0e 04 01 03 0c")) } == .truncated)
        #expect(code { _ = try HCIEvent(decoding: hex("0e 03 01 03 0c 00")) } == .lengthMismatch)
        #expect(code { _ = try HCIEvent(decoding: hex("05 04 00 00 0f 13")) } == .badHandle)          // 0x0F00 on success
        #expect(try HCIEvent(decoding: hex("05 04 02 00 0f 13")) == .disconnectionComplete(status: 2, handle: 0x0F00, reason: 0x13))
        #expect(code { _ = try HCIEvent(decoding: hex("13 05 02 01 00 03 00")) } == .lengthMismatch)  // 2 handles, 1 entry
        #expect(code { _ = try HCIEvent(decoding: hex("3e 02 02 05")) } == .truncated)                // 5 reports promised
        #expect(code { _ = try HCIEvent(decoding: hex("3e 13 01 00 01 00 02 01 f5f4f3f2f1f0 0a00 0000 0a00 07")) } == .badValue) // role 2
        #expect(code { _ = try HCIEvent(decoding: hex("05 05 00 01 00 13 00")) } == .trailingBytes)
    }

    @Test func commandRoundTripsAndErrors() throws {
        var adv = ExtendedAdvertisingParameters()
        adv.intervalMin = 0x123456
        let commands: [HCICommand] = [
            .reset, .setEventMask(0x2000_1FFF_FFFF_FFFF), .leSetEventMask(0x20A0F), .leReadBufferSize, .readBDADDR,
            .leSetAdvertisingParameters(LegacyAdvertisingParameters()), .leSetAdvertisingData([2, 1, 6]), .leSetScanResponseData([]),
            .leSetAdvertisingEnable(true), .leSetScanParameters(LegacyScanParameters()), .leSetScanEnable(enable: true, filterDuplicates: false),
            .leCreateConnectionCancel, .disconnect(handle: 1, reason: 0x13), .leConnectionUpdate(handle: 2, ConnectionParameters()),
            .leSetAdvertisingSetRandomAddress(handle: 0, ourAddress), .leSetExtendedAdvertisingParameters(adv),
            .leSetExtendedAdvertisingData(handle: 0, operation: 3, fragmentPreference: 1, data: [2, 1, 6]),
            .leSetExtendedScanResponseData(handle: 0, operation: 3, fragmentPreference: 1, data: []),
            .leSetExtendedAdvertisingEnable(enable: true, sets: [AdvertisingSetEnable(handle: 0)]),
            .leSetExtendedScanParameters(ExtendedScanParameters()),
            .leSetExtendedScanEnable(enable: true, filterDuplicates: 1, duration: 0, period: 0),
            .leExtendedCreateConnection(CreateConnectionParameters(peer: peerAddress)),
            .other(opcode: 0xFC01, parameters: [1, 2]),
        ]
        for c in commands { #expect(try HCICommand(decoding: c.encoded()) == c, "\(c)") }
        #expect(HCICommand.leSetAdvertisingData([2, 1, 6]).encoded().count == 3 + 32)
        #expect(code { _ = try HCICommand(decoding: hex("08 20 20 20") + Array(repeating: 0, count: 31)) } == .lengthMismatch)
        #expect(code { _ = try HCICommand(decoding: hex("0a 20 01 02")) } == .badValue)
        #expect(code { _ = try HCICommand(decoding: hex("06 04 03 00 0f 13")) } == .badHandle)
    }

    @Test func aclHeaderFlagsAndErrors() throws {
        let p = try HCIACLPacket(decoding: hex("01 20 03 00 aa bb cc"))
        #expect(p.handle == 1 && p.boundary == .firstFlushable && p.broadcast == 0 && p.data == [0xaa, 0xbb, 0xcc])
        #expect(p.encoded() == hex("01 20 03 00 aa bb cc"))
        #expect(code { _ = try HCIACLPacket(decoding: hex("01 20 04 00 aa bb cc")) } == .truncated)
        #expect(code { _ = try HCIACLPacket(decoding: hex("01 20 02 00 aa bb cc")) } == .lengthMismatch)
        #expect(code { _ = try HCIACLPacket(decoding: hex("00 2f 00 00")) } == .badHandle)
        #expect(code { _ = try HCIACLPacket(decoding: hex("01 e0 00 00")) } == .reservedBits)
    }

    @Test func h4FramingAndDeframer() throws {
        #expect(code { _ = try H4Packet(decoding: hex("09 00")) } == .unknownPacketType)
        #expect(code { _ = try H4Packet(decoding: hex("04 0e 04 01 03 0c")) } == .truncated)
        #expect(code { _ = try H4Packet(decoding: hex("04 0e 03 01 03 0c 00")) } == .lengthMismatch)
        let stream = hex("04 0e 04 01 03 0c 00") + hex("02 01 20 03 00 aa bb cc") + hex("04 05 04 00 01 00 13")
        // Every chunking gives the same three packets.
        var rng = SeededRandom(seed: 7)
        for _ in 0..<200 {
            var d = H4Deframer()
            var packets: [H4Packet] = []
            var i = 0
            while i < stream.count {
                let n = 1 + rng.below(6)
                packets += try d.feed(stream[i..<min(i + n, stream.count)])
                i += n
            }
            #expect(packets.map { $0.encoded() }.reduce([], +) == stream)
            #expect(packets.count == 3 && d.pending == 0)
        }
        var d = H4Deframer(maxPacketSize: 300)
        #expect(code { _ = try d.feed(hex("02 01 20 ff 0f")) } == .tooLarge)
        #expect(code { _ = try d.feed(hex("04")) } == .tooLarge)   // stays failed: H4 cannot resync
        var u = H4Deframer()
        #expect(code { _ = try u.feed(hex("07")) } == .unknownPacketType)
    }
}

@Suite struct L2CAPAndATTTests {
    /// Bumble's Read By Group Type response for two relay services, as the peer's controller
    /// delivers it: a 46-byte L2CAP frame in 27-byte ACL fragments.
    static let rbgt = hex("1114010005000100000000000059414c45524853454d060008000100000000000059414c45524853454d")

    @Test func fragmentedReadByGroupTypeResponseRecombines() throws {
        let frame = L2CAPFrame(channel: L2CAPChannel.att, payload: Self.rbgt)
        let fragments = frame.fragments(handle: 1, maxACLDataLength: 27)
        #expect(fragments.map(\.data.count) == [27, 19])
        #expect(fragments.map(\.boundary) == [.firstNonFlushable, .continuation])
        #expect(fragments[0].encoded().prefix(8) == hex("01 00 1b 00 2a 00 04 00")[...])
        var r = L2CAPRecombiner()
        #expect(r.add(fragments[0]) == .incomplete)
        guard case .frame(let f) = r.add(fragments[1]) else { Issue.record("no frame"); return }
        let pdu = try ATTPDU(decoding: f.payload)
        #expect(pdu == .readByGroupTypeResponse([
            ATTGroupValue(handle: 1, end: 5, value: relayService.littleEndianBytes),
            ATTGroupValue(handle: 6, end: 8, value: relayService.littleEndianBytes)]))
        #expect(pdu.encoded() == Self.rbgt)
    }

    @Test func recombinerBounds() {
        var r = L2CAPRecombiner(maxFrameSize: 30)
        // A stray continuation is dropped.
        guard case .dropped(let e) = r.add(HCIACLPacket(handle: 1, boundary: .continuation, data: [1, 2])) else { Issue.record(); return }
        #expect(e.code == .badValue)
        // A frame announcing more than the bound is refused, and so are its continuations.
        guard case .dropped(let big) = r.add(HCIACLPacket(handle: 1, boundary: .firstFlushable, data: [0xFF, 0, 4, 0, 1])) else { Issue.record(); return }
        #expect(big.code == .tooLarge)
        guard case .dropped(let cont) = r.add(HCIACLPacket(handle: 1, boundary: .continuation, data: [1])) else { Issue.record(); return }
        #expect(cont.code == .tooLarge)
        // A fragment past the frame's length is a mismatch.
        #expect(r.add(HCIACLPacket(handle: 1, boundary: .firstFlushable, data: [4, 0, 4, 0, 1])) == .incomplete)
        guard case .dropped(let over) = r.add(HCIACLPacket(handle: 1, boundary: .continuation, data: [1, 2, 3, 4])) else { Issue.record(); return }
        #expect(over.code == .lengthMismatch)
        // A new start abandons an unfinished frame; header split across fragments works.
        #expect(r.add(HCIACLPacket(handle: 1, boundary: .firstFlushable, data: [9, 0, 4, 0, 1])) == .incomplete)
        #expect(r.add(HCIACLPacket(handle: 1, boundary: .firstFlushable, data: [2, 0])) == .incomplete)
        #expect(r.add(HCIACLPacket(handle: 1, boundary: .continuation, data: [4, 0, 0xAA])) == .incomplete)
        #expect(r.add(HCIACLPacket(handle: 1, boundary: .continuation, data: [0xBB])) == .frame(L2CAPFrame(channel: 4, payload: [0xAA, 0xBB])))
        #expect(r.pending == 0)
    }

    @Test func l2capErrors() {
        #expect(code { _ = try L2CAPFrame(decoding: hex("02 00 04")) } == .truncated)
        #expect(code { _ = try L2CAPFrame(decoding: hex("02 00 04 00 01")) } == .truncated)
        #expect(code { _ = try L2CAPFrame(decoding: hex("01 00 04 00 01 02")) } == .lengthMismatch)
        #expect(code { _ = try L2CAPFrame(decoding: hex("00 00 00 00")) } == .badValue)
    }

    @Test func leSignalling() throws {
        let req = try LESignal(decoding: hex("12 01 08 00 18 00 28 00 00 00 f4 01"))
        #expect(req == LESignal(identifier: 1, command: .connectionParameterUpdateRequest(intervalMin: 0x18, intervalMax: 0x28, latency: 0, timeout: 0x1f4)))
        #expect(req.encoded() == hex("12 01 08 00 18 00 28 00 00 00 f4 01"))
        #expect(LESignal(identifier: 1, command: .commandReject(reason: 0, data: [])).encoded() == hex("01 01 02 00 00 00"))
        #expect(code { _ = try LESignal(decoding: hex("12 00 00 00")) } == .badValue)
        #expect(code { _ = try LESignal(decoding: hex("13 01 01 00 00")) } == .lengthMismatch)
        #expect(try LESignal(decoding: hex("14 02 01 00 ab")) == LESignal(identifier: 2, command: .unknown(code: 0x14, data: [0xab])))
    }

    @Test func attRoundTripsAndErrors() throws {
        let u128 = relayService
        let pdus: [ATTPDU] = [
            .errorResponse(request: 0x08, handle: 5, error: 0x0A), .exchangeMTURequest(mtu: 517), .exchangeMTUResponse(mtu: 247),
            .findInformationRequest(start: 1, end: 0xFFFF),
            .findInformationResponse([ATTHandleUUID(handle: 4, uuid: BluetoothUUID(0x2902))]),
            .findInformationResponse([ATTHandleUUID(handle: 3, uuid: u128)]),
            .findByTypeValueRequest(start: 1, end: 0xFFFF, type: 0x2800, value: u128.littleEndianBytes),
            .findByTypeValueResponse([ATTHandleRange(start: 1, end: 6)]),
            .readByTypeRequest(start: 1, end: 6, type: .characteristic), .readByTypeRequest(start: 1, end: 6, type: u128),
            .readByTypeResponse([ATTHandleValue(handle: 2, value: [0x1c, 3, 0] + u128.littleEndianBytes)]),
            .readRequest(handle: 3), .readResponse([1, 2]), .readBlobRequest(handle: 3, offset: 22), .readBlobResponse([]),
            .readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService),
            .writeRequest(handle: 3, value: [1]), .writeResponse, .writeCommand(handle: 3, value: []),
            .prepareWriteRequest(handle: 3, offset: 18, value: [9]), .prepareWriteResponse(handle: 3, offset: 18, value: [9]),
            .executeWriteRequest(flags: 1), .executeWriteResponse, .handleValueNotification(handle: 3, value: [7]),
            .handleValueIndication(handle: 3, value: [7]), .handleValueConfirmation, .unknown(opcode: 0xD2, parameters: [1]),
        ]
        for p in pdus { #expect(try ATTPDU(decoding: p.encoded()) == p, "\(p)") }
        #expect(ATTPDU.exchangeMTURequest(mtu: 517).encoded() == hex("02 05 02"))
        #expect(code { _ = try ATTPDU(decoding: []) } == .truncated)
        #expect(code { _ = try ATTPDU(decoding: hex("05 03 01 00 02 29")) } == .badValue)           // format 3
        #expect(code { _ = try ATTPDU(decoding: hex("05 01 01 00 02")) } == .lengthMismatch)        // half an entry
        #expect(code { _ = try ATTPDU(decoding: hex("09 01 01 00")) } == .badValue)                 // entry length 1
        #expect(code { _ = try ATTPDU(decoding: hex("09 04 01 00 02")) } == .lengthMismatch)
        #expect(code { _ = try ATTPDU(decoding: hex("11 06")) } == .lengthMismatch)                 // empty list
        #expect(code { _ = try ATTPDU(decoding: hex("08 01 00 ff ff 00 28 00")) } == .lengthMismatch) // 3-byte type
        #expect(code { _ = try ATTPDU(decoding: hex("18 02")) } == .badValue)
        #expect(code { _ = try ATTPDU(decoding: hex("0a 01 00 00")) } == .trailingBytes)
        #expect(code { _ = try ATTPDU(decoding: hex("13 00")) } == .trailingBytes)
    }
}

@Suite struct AddressUUIDAndADTests {
    @Test func uuidForms() throws {
        let u = try BluetoothUUID(string: "4d455348-5245-4c41-5900-000000000001")
        #expect(u.description == "4D455348-5245-4C41-5900-000000000001")
        #expect(u.littleEndianBytes == hex("01 00 00 00 00 00 00 59 41 4C 45 52 48 53 45 4D"))
        #expect(try BluetoothUUID(string: "2800") == .primaryService)
        #expect(try BluetoothUUID(string: "0x2902").uuid16 == 0x2902)
        let long = try BluetoothUUID(string: "00002800-0000-1000-8000-00805F9B34FB")
        #expect(long != .primaryService && long.matches(.primaryService) && long.shortened == .primaryService)
        #expect(BluetoothUUID(uuid32: 0x0000_FFF0).matches(BluetoothUUID(0xFFF0)))
        #expect(try BluetoothUUID(string: GATTBinding.blemesh.service.description) == GATTBinding.blemesh.service)
        #expect(GATTBinding.blemesh.service.littleEndianBytes == hex("78563412 78563412 78563412 78563412"))
        for bad in ["", "123", "4d455348-5245-4c41-5900-00000000000", "4d455348x5245-4c41-5900-000000000001", "zz00", "4d45534852454c415900000000000001"] {
            #expect(code { _ = try BluetoothUUID(string: bad) } == .badUUID, "\(bad)")
        }
        #expect(code { _ = try BluetoothUUID(littleEndian: [1, 2, 3]) } == .badUUID)
    }

    @Test func addressForms() throws {
        let a = try BluetoothAddress(string: "c0:11:22:33:44:55")
        #expect(a.string == "C0:11:22:33:44:55" && a.littleEndianBytes == hex("55 44 33 22 11 c0"))
        #expect(a.isRandomStatic)
        #expect(try !BluetoothAddress(string: "40:11:22:33:44:55").isRandomStatic)
        #expect(try !BluetoothAddress(string: "FF:FF:FF:FF:FF:FF").isRandomStatic)
        for bad in ["", "C0:11:22:33:44", "C0:11:22:33:44:5G", "C0:11:22:33:44:555", "C0-11-22-33-44-55"] {
            #expect(code { _ = try BluetoothAddress(string: bad) } == .badAddress, "\(bad)")
        }
    }

    @Test func advertisingDataTypesAndErrors() throws {
        let ad = AdvertisingData([.flags(6), .uuids16(complete: false, [BluetoothUUID(0x180D)]), .uuids32(complete: true, [BluetoothUUID(uuid32: 0x12345678)]),
                                  .txPower(-4), .serviceData(BluetoothUUID(0xFEAA), [1, 2]), .manufacturerData(company: 0x004C, [9]),
                                  .localName(complete: false, Array("ab".utf8)), .unknown(type: 0x2A, [1])])
        #expect(try AdvertisingData(decoding: ad.encoded()) == ad)
        #expect(ad.encoded().prefix(3) == [2, 1, 6])
        // Zero padding after the significant part round-trips; other bytes after it do not decode.
        let padded = try AdvertisingData(decoding: hex("020106 00 00 00"))
        #expect(padded.padding == 3 && padded.encoded() == hex("020106000000"))
        #expect(code { _ = try AdvertisingData(decoding: hex("020106 00 01")) } == .badValue)
        #expect(code { _ = try AdvertisingData(decoding: hex("05 09 61 62")) } == .truncated)
        #expect(code { _ = try AdvertisingData(decoding: hex("03 01 06 06")) } == .lengthMismatch)
        #expect(code { _ = try AdvertisingData(decoding: hex("04 07 01 02 03")) } == .lengthMismatch)
        #expect(code { _ = try AdvertisingData(decoding: hex("02 ff 4c")) } == .truncated)
    }

    @Test func builderFitsThirtyOneBytes() throws {
        let ad = try #require(AdvertisingData.forService(relayService, name: "BLEMesh-tester-one"))
        let bytes = ad.encoded()
        #expect(bytes.count <= 31)
        #expect(ad.serviceUUIDs == [relayService])
        // Flags (3) + 128-bit UUID (18) leave 31 - 21 - 2 = 8 bytes of name: cut, and typed as shortened (0x08).
        #expect(ad.localName == "BLEMesh-")
        #expect(ad.structures.last == .localName(complete: false, Array("BLEMesh-".utf8)))
        #expect(AdvertisingData.forService(relayService, name: "ab")?.localName == "ab")
    }

    @Test func bindings() throws {
        let relay = try #require(GATTBinding.forDialect("relay"))
        #expect(relay.service.description == "4D455348-5245-4C41-5900-000000000001")
        #expect(relay.packet.properties.rawValue == 0x1C && relay.nodeID!.properties.rawValue == 0x02)
        #expect(relay.requestedMTU == 517 && relay.maxValueSize == 512 && relay.writeRule == .writeRequestLongWhenNeeded)
        let blemesh = try #require(GATTBinding.forDialect("blemesh"))
        #expect(blemesh.packet.properties.rawValue == 0x1E && blemesh.nodeID!.uuid.description == "12345678-1234-5678-1234-56781234567A")
        #expect(blemesh.writeRule == .writeCommandWhenItFits && blemesh.localNamePrefix == "BLEMesh-")
        #expect(GATTBinding.forDialect("nope") == nil)
    }
}
