import Testing
@testable import BLEHost

/// docs/dialects/peat.md section 5 on the host stack: one characteristic (Read, Write, Notify,
/// with a CCCD) in the F47AC10B service; a read returns the node's document (PEAT-G1), a
/// central writes with write requests (long when needed), never write commands.
@Suite struct PeatBindingTests {
    /// A 12-byte peat.document: version 1, node 0x0D070001, no counters.
    static let document: [UInt8] = [1, 0, 0, 0, 0x01, 0x00, 0x07, 0x0D, 0, 0, 0, 0]
    static let peat = GATTBinding.peat

    @Test func bindingIsThePagesTable() throws {
        #expect(GATTBinding.forDialect("peat") == Self.peat)
        #expect(Self.peat.service == (try BluetoothUUID(string: "f47ac10b-58cc-4372-a567-0e02b2c3d479")))
        #expect(Self.peat.packet.uuid == (try BluetoothUUID(string: "F47AC10B-58CC-4372-A567-0E02B2C30003")))
        #expect(Self.peat.packet.properties.rawValue == 0x1A)   // Read, Write, Notify
        #expect(Self.peat.nodeID!.uuid == Self.peat.packet.uuid)
        #expect(Self.peat.writeRule == .writeRequestLongWhenNeeded && Self.peat.requestedMTU == 251 && Self.peat.maxValueSize == 512)
    }

    @Test func peripheralServesTheDocumentCharacteristic() throws {
        var b = LEHostTests.ready()
        let service = try b.host.registerService(Self.peat.serviceDefinition(nodeID: Self.document))
        let characteristic = try #require(service.characteristic(Self.peat.packet.uuid))
        // One characteristic: declaration 2, value 3, CCCD 4.
        #expect(service.startHandle == 1 && characteristic.valueHandle == 3 && characteristic.cccdHandle == 4 && service.endHandle == 4)
        b.connection(1, role: .peripheral)
        b.peerSends(.exchangeMTURequest(mtu: 251))
        #expect(b.takeATT() == [.exchangeMTUResponse(mtu: 517)])
        #expect(b.host.mtu(of: 1) == 251)   // PEAT-G3: the central's 251 is what the link uses
        b.peerSends(.readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService))
        #expect(b.takeATT() == [.readByGroupTypeResponse([ATTGroupValue(handle: 1, end: 4, value: Self.peat.service.littleEndianBytes)])])
        b.peerSends(.readByTypeRequest(start: 1, end: 4, type: .characteristic))
        #expect(b.takeATT() == [.readByTypeResponse([ATTHandleValue(handle: 2, value: [0x1A, 3, 0] + Self.peat.packet.uuid.littleEndianBytes)])])

        // PEAT-G1: a read returns the node's document, and the current one once it changes.
        b.peerSends(.readRequest(handle: 3))
        #expect(b.takeATT() == [.readResponse(Self.document)])
        var newer = Self.document
        newer[0] = 2
        let replaced = b.host.setValue(newer, valueHandle: 3)
        #expect(replaced)
        b.peerSends(.readRequest(handle: 3))
        #expect(b.takeATT() == [.readResponse(newer)])

        // A write request is one value; a write command is not allowed and goes nowhere.
        b.events.removeAll()
        b.peerSends(.writeRequest(handle: 4, value: [1, 0]))
        #expect(b.takeATT() == [.writeResponse])
        let envelope: [UInt8] = [0xB1, 0x02] + [UInt8](repeating: 7, count: 16) + [0, 7, 1, 0, 0, 0, 0, 0, 0, 0]
        b.peerSends(.writeRequest(handle: 3, value: envelope))
        #expect(b.takeATT() == [.writeResponse])
        b.peerSends(.writeCommand(handle: 3, value: envelope))
        #expect(b.takeATT() == [])
        let writes = b.events.filter { if case .gattWrite = $0 { true } else { false } }
        #expect(writes == [.gattWrite(handle: 1, characteristic: Self.peat.packet.uuid, valueHandle: 3, value: envelope, kind: .request)])

        // PEAT-G3: a value longer than ATT_MTU - 3 arrives as a long write, whole.
        b.events.removeAll()
        let long = [UInt8](repeating: 0x41, count: 400)
        for offset in stride(from: 0, to: long.count, by: 200) {
            b.peerSends(.prepareWriteRequest(handle: 3, offset: UInt16(offset), value: Array(long[offset..<min(offset + 200, long.count)])))
            _ = b.takeATT()
        }
        b.peerSends(.executeWriteRequest(flags: 1))
        #expect(b.takeATT() == [.executeWriteResponse])
        #expect(b.events == [.gattWrite(handle: 1, characteristic: Self.peat.packet.uuid, valueHandle: 3, value: long, kind: .long)])
    }
}
