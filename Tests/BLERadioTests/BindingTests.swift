import BLEHost
import BLERadio
import GATTDUT
import MeshNode
import Testing

/// The bitchat and simple GATT bindings as their pages give them (bitchat.md and simple.md
/// section 5), and the GATT driver opened for them against a scripted controller: it finds
/// only devices advertising the dialect's service and, with no node id characteristic to
/// read, asks the DUT for nothing.
@Suite struct BindingTests {
    static let cases: [(DialectName, String, String, CharacteristicProperties)] = [
        (.bitchat, "F47B5E2D-4A9E-4C5A-9B3F-8E1D2C3A4B5C", "A1B2C3D4-E5F6-4A5B-8C9D-0E1F2A3B4C5D", [.read, .writeWithoutResponse, .write, .notify]),
        (.simple, "4D455348-5349-4D50-4C45-000000000001", "4D455348-5349-4D50-4C45-000000000002", [.writeWithoutResponse, .notify]),
    ]

    @Test(arguments: cases)
    func theBindingIsThePages(_ dialect: DialectName, _ service: String, _ packet: String, _ properties: CharacteristicProperties) throws {
        let binding = try #require(GATTBinding.forDialect(dialect.rawValue))
        #expect(binding.service == (try BluetoothUUID(string: service)))
        #expect(binding.packet.uuid == (try BluetoothUUID(string: packet)))
        #expect(binding.packet.properties == properties)
        // BITCHAT-G2 / SIMPLE-G2: write without response, never a long write; G3: MTU 517, 512-byte values.
        #expect(binding.writeRule == .writeCommandOnly && binding.requestedMTU == 517 && binding.maxValueSize == 512)
        // One characteristic in the tester's service: neither page has a node id characteristic.
        #expect(binding.nodeID == nil)
        let definition = binding.serviceDefinition(nodeID: [1, 2, 3])
        #expect(definition.characteristics.map(\.uuid) == [binding.packet.uuid])
    }

    @Test(arguments: cases.map(\.0))
    func theDriverListsOnlyTheDialectsDevicesAndReadsNoNodeID(_ dialect: DialectName) throws {
        let binding = try #require(GATTBinding.forDialect(dialect.rawValue))
        let own = AdvertisingData.forService(binding.service)!.encoded()
        let other = AdvertisingData.forService(GATTBinding.relay.service)!.encoded()
        let transport = GATTDriverTests.willing(reports: [
            GATTDriverTests.report([0xC0, 1, 2, 3, 4, 5], own, rssi: -35),
            GATTDriverTests.report([0xC0, 9, 9, 9, 9, 9], other),
        ])
        let driver = try GATTDriver.open(transports: [transport], dialect: dialect)
        #expect(try driver.scan(for: .milliseconds(200)).map(\.address.string) == ["C0:01:02:03:04:05"])
        let sentBefore = transport.sent.count
        #expect(try driver.readNodeID() == nil)
        #expect(transport.sent.count == sentBefore, "reading a node id that does not exist sent HCI traffic")
    }
}
