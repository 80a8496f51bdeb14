/// Characteristic properties byte (Core Vol 3 Part G 3.3.1.1).
public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let broadcast = CharacteristicProperties(rawValue: 0x01)
    public static let read = CharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 0x04)
    public static let write = CharacteristicProperties(rawValue: 0x08)
    public static let notify = CharacteristicProperties(rawValue: 0x10)
    public static let indicate = CharacteristicProperties(rawValue: 0x20)
}

/// How a dialect sits on GATT: the data a GATT DUT driver and `meshconform node` need to build
/// the tester's server, find the DUT's, and move the dialect's packets. One per dialect page
/// (docs/dialects/<name>.md, "GATT binding" section); a new dialect adds its own to `all`.
public struct GATTBinding: Hashable, Sendable {
    public enum WriteRule: Hashable, Sendable {
        /// Write request always; prepared (long) writes when the value exceeds ATT_MTU - 3 (relay RELAY-G3).
        case writeRequestLongWhenNeeded
        /// Write command when the value fits ATT_MTU - 3, otherwise write request / long write (blemesh BLEMESH-G3).
        case writeCommandWhenItFits
        /// Write command only; a value over ATT_MTU - 3 is not sent on that link (bitchat
        /// BITCHAT-G2/G3: larger frames are fragmented first; simple SIMPLE-G2/G3).
        case writeCommandOnly
    }

    public struct Characteristic: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var properties: CharacteristicProperties
        public var purpose: String
        public init(uuid: BluetoothUUID, properties: CharacteristicProperties, purpose: String) {
            self.uuid = uuid; self.properties = properties; self.purpose = purpose
        }
    }

    public var dialect: String
    public var service: BluetoothUUID
    /// The characteristic that carries one dialect packet per ATT value (written by the central, notified by the peripheral).
    public var packet: Characteristic
    /// The characteristic that returns the node's identity; nil where the binding has none
    /// (bitchat and simple learn ids from the traffic: the DUT's is declared or assigned).
    public var nodeID: Characteristic?
    /// Further characteristics a node MAY expose and a peer MUST NOT require.
    public var optional: [Characteristic]
    public var writeRule: WriteRule
    /// ATT_MTU a central requests on every link.
    public var requestedMTU: UInt16
    /// Largest packet value (the ATT attribute limit).
    public var maxValueSize: Int
    /// Local name prefix a node advertises, if the dialect has one.
    public var localNamePrefix: String?

    /// The largest value that may go in a notification or a write command on a link with `mtu`.
    public static func singlePDUValueLimit(mtu: Int) -> Int { max(0, mtu - 3) }

    /// docs/dialects/relay.md section 5: UUIDs spell "MESHRELAY".
    public static let relay = GATTBinding(
        dialect: "relay",
        service: try! BluetoothUUID(string: "4D455348-5245-4C41-5900-000000000001"),
        packet: Characteristic(uuid: try! BluetoothUUID(string: "4D455348-5245-4C41-5900-000000000002"),
                               properties: [.writeWithoutResponse, .write, .notify], purpose: "one relay.packet per ATT value"),
        nodeID: Characteristic(uuid: try! BluetoothUUID(string: "4D455348-5245-4C41-5900-000000000003"),
                               properties: [.read], purpose: "node id, 16 raw bytes in UUID string order"),
        optional: [],
        writeRule: .writeRequestLongWhenNeeded,
        requestedMTU: 517, maxValueSize: 512, localNamePrefix: nil)

    /// docs/dialects/blemesh.md section 4.
    public static let blemesh = GATTBinding(
        dialect: "blemesh",
        service: try! BluetoothUUID(string: "12345678-1234-5678-1234-567812345678"),
        packet: Characteristic(uuid: try! BluetoothUUID(string: "12345678-1234-5678-1234-567812345679"),
                               properties: [.read, .writeWithoutResponse, .write, .notify], purpose: "one blemesh.chunk per ATT value; reads return an empty value"),
        nodeID: Characteristic(uuid: try! BluetoothUUID(string: "12345678-1234-5678-1234-56781234567A"),
                               properties: [.read], purpose: "device id: uuidString in UTF-8, 36 bytes, uppercase"),
        optional: [
            Characteristic(uuid: try! BluetoothUUID(string: "12345678-1234-5678-1234-56781234567B"), properties: [.read], purpose: "public key"),
            Characteristic(uuid: try! BluetoothUUID(string: "12345678-1234-5678-1234-56781234567C"), properties: [.read], purpose: "signing key"),
        ],
        writeRule: .writeCommandWhenItFits,
        requestedMTU: 517, maxValueSize: 512, localNamePrefix: "BLEMesh-")

    /// docs/dialects/camp.md section 4: Robot Heart's UUIDs with their invalid `RH` made `00`.
    /// The presence characteristic plays the node id's part: its JSON names the user id.
    public static let camp = GATTBinding(
        dialect: "camp",
        service: try! BluetoothUUID(string: "0001B218-15A8-461F-9FA8-5DCAE273EAFD"),
        packet: Characteristic(uuid: try! BluetoothUUID(string: "0002C69E-4993-11ED-B878-0242AC120002"),
                               properties: [.write, .notify], purpose: "one camp.message per ATT value"),
        nodeID: Characteristic(uuid: try! BluetoothUUID(string: "0003D6D2-129E-4DAD-A1DD-7866124401E7"),
                               properties: [.read], purpose: "presence: JSON {userID, userName, campID?, timestamp}"),
        optional: [],
        writeRule: .writeRequestLongWhenNeeded,
        requestedMTU: 517, maxValueSize: 512, localNamePrefix: nil)

    /// docs/dialects/peat.md section 5. One characteristic carries every value (PEAT-G1), and a
    /// read of it returns the node's document, whose `node_id` is the node's identity: it is
    /// the node id characteristic too.
    public static let peat = GATTBinding(
        dialect: "peat",
        service: try! BluetoothUUID(string: "F47AC10B-58CC-4372-A567-0E02B2C3D479"),
        packet: Characteristic(uuid: try! BluetoothUUID(string: "F47AC10B-58CC-4372-A567-0E02B2C30003"),
                               properties: [.read, .write, .notify], purpose: "document characteristic: one PEAT-W1 value per ATT value; a read returns the node's document"),
        nodeID: Characteristic(uuid: try! BluetoothUUID(string: "F47AC10B-58CC-4372-A567-0E02B2C30003"),
                               properties: [.read, .write, .notify], purpose: "the same characteristic: the document read from it names the node (node_id)"),
        optional: [],
        writeRule: .writeRequestLongWhenNeeded,
        requestedMTU: 251, maxValueSize: 512, localNamePrefix: "PEAT_")

    /// docs/dialects/bitchat.md section 5: the app's release UUIDs, one characteristic, no name.
    public static let bitchat = GATTBinding(
        dialect: "bitchat",
        service: try! BluetoothUUID(string: "F47B5E2D-4A9E-4C5A-9B3F-8E1D2C3A4B5C"),
        packet: Characteristic(uuid: try! BluetoothUUID(string: "A1B2C3D4-E5F6-4A5B-8C9D-0E1F2A3B4C5D"),
                               properties: [.read, .writeWithoutResponse, .write, .notify], purpose: "bitchat.packet frames, written without response and notified"),
        nodeID: nil, optional: [],
        writeRule: .writeCommandOnly,
        requestedMTU: 517, maxValueSize: 512, localNamePrefix: nil)

    /// docs/dialects/simple.md section 5: meshconform's UUIDs, spelling "MESHSIMPLE".
    public static let simple = GATTBinding(
        dialect: "simple",
        service: try! BluetoothUUID(string: "4D455348-5349-4D50-4C45-000000000001"),
        packet: Characteristic(uuid: try! BluetoothUUID(string: "4D455348-5349-4D50-4C45-000000000002"),
                               properties: [.writeWithoutResponse, .notify], purpose: "one simple.message per ATT value"),
        nodeID: nil, optional: [],
        writeRule: .writeCommandOnly,
        requestedMTU: 517, maxValueSize: 512, localNamePrefix: nil)

    public static let all: [GATTBinding] = [.relay, .blemesh, .bitchat, .simple, .camp, .peat]

    public static func forDialect(_ name: String) -> GATTBinding? { all.first { $0.dialect == name } }

    /// The tester's GATT service for this dialect: the packet characteristic (with CCCD when it
    /// notifies) holding an empty value, and the node id characteristic, where the binding has
    /// one, holding `nodeID`. Where the two are one characteristic (peat), it holds `nodeID`.
    public func serviceDefinition(nodeID value: [UInt8]) -> GATTServiceDefinition {
        if nodeID?.uuid == packet.uuid {
            return GATTServiceDefinition(uuid: service, characteristics: [
                GATTCharacteristicDefinition(uuid: packet.uuid, properties: packet.properties, value: value, maxLength: maxValueSize),
            ])
        }
        return GATTServiceDefinition(uuid: service, characteristics: [
            GATTCharacteristicDefinition(uuid: packet.uuid, properties: packet.properties, value: [], maxLength: maxValueSize),
        ] + (nodeID.map { [GATTCharacteristicDefinition(uuid: $0.uuid, properties: $0.properties, value: value, maxLength: maxValueSize)] } ?? []))
    }
}
