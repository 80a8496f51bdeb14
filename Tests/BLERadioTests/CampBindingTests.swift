import BLEHost
import BLERadio
import Foundation
import MeshNode
import MeshWire
import Testing

/// docs/dialects/camp.md section 4: the camp GATT binding, served by the host's GATT database
/// the way `meshconform node --dialect camp` serves it, and read the way the GATT driver reads it.
@Suite struct CampBindingTests {
    static let pagePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "docs/dialects/camp.md")

    @Test func theUUIDsAreThePagesAndRobotHeartsWithRHMadeValid() throws {
        // The page's table names the three UUIDs; the binding must use exactly those.
        let page = try String(contentsOf: Self.pagePath, encoding: .utf8)
        let rows = page.split(separator: "\n").filter { $0.hasPrefix("| service") || $0.hasPrefix("| message") || $0.hasPrefix("| presence") }
        let uuids = rows.compactMap { row in row.firstMatch(of: /`([0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12})`/).map { String($0.1) } }
        let binding = GATTBinding.camp
        #expect(uuids == [binding.service, binding.packet.uuid, binding.nodeID!.uuid].map { $0.description })
        // Robot Heart's service UUID with `RH` replaced by `00` (the only one the page gives in full).
        #expect(binding.service == (try BluetoothUUID(string: "RH01B218-15A8-461F-9FA8-5DCAE273EAFD".replacingOccurrences(of: "RH", with: "00"))))
        #expect(throws: (any Error).self) { try BluetoothUUID(string: "RH01B218-15A8-461F-9FA8-5DCAE273EAFD") }
        #expect(GATTBinding.forDialect("camp") == binding && binding.writeRule == .writeRequestLongWhenNeeded)
    }

    @Test func aCampServerServesPresenceAndTakesMessagesByWriteRequestAndLongWrite() throws {
        let binding = GATTBinding.camp
        let presence = GATTNodeBridge.nodeIDValue(NodeAddress(campUserID: "user-7F3A"), dialect: .camp)
        var db = GATTDatabase()
        let service = try db.register(binding.serviceDefinition(nodeID: presence))
        let message = try #require(service.characteristic(binding.packet.uuid))
        let presenceHandle = try #require(service.characteristic(binding.nodeID!.uuid)).valueHandle
        var connection = GATTServerConnection()
        func serve(_ pdu: ATTPDU, mtu: Int = 517) -> (ATTPDU?, [GATTServerEvent]) { db.serve(pdu, connection: &connection, mtu: mtu) }

        // CAMP-G1: the primary service, a Write + Notify (0x18) message characteristic with a
        // CCCD, a Read (0x02) presence characteristic.
        #expect(serve(.readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService)).0
                == .readByGroupTypeResponse([ATTGroupValue(handle: service.startHandle, end: service.endHandle, value: binding.service.littleEndianBytes)]))
        #expect(serve(.readByTypeRequest(start: service.startHandle, end: service.endHandle, type: .characteristic)).0 == .readByTypeResponse([
            ATTHandleValue(handle: message.valueHandle - 1, value: [0x18] + le(message.valueHandle) + binding.packet.uuid.littleEndianBytes),
            ATTHandleValue(handle: presenceHandle - 1, value: [0x02] + le(presenceHandle) + binding.nodeID!.uuid.littleEndianBytes)]))
        #expect(message.cccdHandle != nil)

        // The presence value is JSON naming the user id, as the GATT driver reads it.
        guard case .readResponse(let value)? = serve(.readRequest(handle: presenceHandle)).0 else { Issue.record("no read response"); return }
        #expect(try JSONFields(parsing: value[...], context: "presence").string("userID") == "user-7F3A")

        // A link: notifications on. Then one message by a write request (CAMP-G2) ...
        let (_, subscribed) = serve(.writeRequest(handle: try #require(message.cccdHandle), value: [1, 0]))
        #expect(subscribed == [.subscription(valueHandle: message.valueHandle, notify: true, indicate: false)])
        let text = CampMessage(id: "00000000-0000-0000-0000-0000000000A1", senderID: "user-7F3A", senderName: "Ranger Dan",
                               recipientID: CampMessage.broadcast, kind: .text, content: String(repeating: "playa ", count: 40),
                               timestamp: 767_923_200).encoded()
        #expect(text.count > 250 && text.count <= CampMessage.maxSize)
        let (ack, written) = serve(.writeRequest(handle: message.valueHandle, value: text))
        #expect(ack == .writeResponse && written == [.write(valueHandle: message.valueHandle, value: text, kind: .request)])
        // ... and the same value as a prepared (long) write on a link of ATT_MTU 23.
        for offset in stride(from: 0, to: text.count, by: 18) {
            _ = serve(.prepareWriteRequest(handle: message.valueHandle, offset: UInt16(offset), value: Array(text[offset..<min(offset + 18, text.count)])), mtu: 23)
        }
        let (executed, long) = serve(.executeWriteRequest(flags: 1), mtu: 23)
        #expect(executed == .executeWriteResponse && long == [.write(valueHandle: message.valueHandle, value: text, kind: .long)])
        #expect(try CampMessage(decoding: text[...]).content.hasPrefix("playa"))
    }

    private func le(_ handle: UInt16) -> [UInt8] { [UInt8(handle & 0xFF), UInt8(handle >> 8)] }
}
