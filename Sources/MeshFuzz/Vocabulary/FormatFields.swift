import MeshWire

/// A fixed-width binary field where a parse of the unit found it.
public struct BinarySlot: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Any value of its width is worth trying.
        case unsigned
        /// One of the values the page lists.
        case enumeration([UInt64])
        /// Flag bits; `defined` are the ones the page names.
        case flags(defined: UInt64)
        /// The number of `itemSize`-byte items that follow at `itemsAt`.
        case count(itemsAt: Int, itemSize: Int)
        /// The byte length of `data`.
        case length(data: Range<Int>)
        /// `data` is a unit of another format (a relay header, a peat document in an
        /// envelope, a bitchat fragment in a packet), whose length this slot holds: its fields
        /// are mutated inside and this length rewritten, so the outer unit stays valid.
        case nested(FormatID, data: Range<Int>)
        /// A part whose length no field holds (the unit's size or a delimiter implies it: a
        /// sealed body's ciphertext, a device name's mesh id): resized only. Width 0.
        case implied(data: Range<Int>)
        /// A number written as `width` hexadecimal digits in text (a device name's node id).
        case hexDigits
    }

    public var name: String
    public var offset: Int
    public var width: Int
    public var bigEndian: Bool
    public var kind: Kind
    /// Limits the page sets on the value (a fragment total's 10,000): tried with their
    /// neighbours besides the width's boundaries.
    public var limits: [UInt64]

    init(_ name: String, _ offset: Int, _ width: Int, bigEndian: Bool, _ kind: Kind = .unsigned, limits: [UInt64] = []) {
        self.name = name
        self.offset = offset
        self.width = width
        self.bigEndian = bigEndian
        self.kind = kind
        self.limits = limits
    }
}

/// Where each catalog format declares its fields for the value vocabulary: a JSON format by
/// key (with the page's enum values), a binary format by a lenient walk over its layout (the
/// dialect page's table) that finds the fixed fields of the unit at hand, so variable parts
/// (a recipient present or not, a count of entries) move the fields after them.
/// `FieldVocabularyTests` checks every catalog format has a declaration that matches its
/// vectors.
public enum FormatFields {
    public enum Declaration: Sendable {
        /// Keys of the JSON object; keys not listed get a type read off their value.
        case json([String: FieldType])
        case binary(@Sendable ([UInt8]) -> [BinarySlot])
    }

    public static func declaration(of format: FormatID) -> Declaration? { all[format] }

    public static var formats: [FormatID] { Array(all.keys) }

    static let all: [FormatID: Declaration] = [
        // relay (docs/dialects/relay.md)
        "relay.packet": .binary(relayPacket),
        "relay.frame-header": .json(["dest": .uuid, "origin": .uuid, "seq": .integer, "ttl": .integer, "via": .uuid]),
        "relay.beacon": .json(["hop": .integer, "origin": .uuid, "seqNo": .integer, "ttl": .integer, "seq": .integer]),
        "relay.ack": .binary { b in b.count >= 8 ? [BinarySlot("seq", 0, 8, bigEndian: true)] : [] },
        "relay.sealed": .binary(relaySealed),
        // blemesh (docs/dialects/blemesh.md)
        "blemesh.chunk": .json(["messageID": .uuid, "chunkIndex": .bounded([UInt64(MessageChunk.maxTotalChunks)]),
                                "totalChunks": .bounded([UInt64(MessageChunk.maxTotalChunks)]),
                                "flags": .enumeration([1, 2, 3, 4, 8, 16, 128].map { .number(String($0)) }), "payload": .base64, "mtu": .integer]),
        "blemesh.envelope": .json(blemeshEnvelope),
        "blemesh.control": .json(["type": .enumeration(ControlMessage.Kind.allCases.map { .string($0.rawValue) }), "payload": .base64, "version": .integer]),
        "blemesh.rreq": .json(blemeshRoute.merging(["originName": .string, "ttl": .integer]) { a, _ in a }),
        "blemesh.rrep": .json(blemeshRoute.merging(["destinationName": .string]) { a, _ in a }),
        "blemesh.rerr": .json(["affectedDestinations": .list(.uuid), "errorID": .uuid, "reporterID": .uuid, "timestamp": .number,
                               "unreachableID": .uuid, "version": .integer]),
        "blemesh.announce": .json(["deviceID": .uuid, "deviceName": .string, "hopCount": .integer, "timestamp": .number, "version": .integer]),
        "blemesh.ack": .json(["messageID": .uuid, "receiverID": .uuid, "timestamp": .number, "version": .integer]),
        "blemesh.read": .json(["messageID": .uuid, "originalSenderID": .uuid, "readerID": .uuid, "timestamp": .number, "version": .integer]),
        // camp (docs/dialects/camp.md)
        "camp.message": .json(campMessage),
        "camp.delivery-confirmation": .json(campMessage.merging(["content": .uuid]) { _, b in b }),
        "camp.protocol": .json(["campID": .uuid, "payload": .base64, "senderID": .string, "timestamp": .number,
                                "type": .enumeration(CampProtocolMessage.Kind.allCases.map { .string($0.rawValue) }), "version": .integer]),
        // simple (docs/dialects/simple.md)
        "simple.message": .json(["content": .string, "id": .string, "isRelayed": .bool, "originalSender": .string, "relayCount": .integer,
                                 "sender": .string, "timestamp": .number, "ttl": .integer, "lastRelay": .string, "hopCount": .integer]),
        // bitchat (docs/dialects/bitchat.md)
        "bitchat.packet": .binary(bitchatPacket),
        "bitchat.fragment": .binary(bitchatFragment),
        // peat (docs/dialects/peat.md): little-endian
        "peat.document": .binary(peatDocument),
        "peat.peripheral": .binary(peatPeripheral),
        "peat.emergency": .binary { b in
            guard b.count >= 16 else { return [] }
            return [le("source", 0, 4), le("timestamp", 4, 8), le("num_acks", 12, 4, .count(itemsAt: 16, itemSize: 5), limits: [PeatWire.maxEmergencyAcks])]
        },
        "peat.relay-envelope": .binary(peatRelayEnvelope),
        "peat.encrypted": .binary { b in b.count >= 2 ? [le("marker", 0, 1, .enumeration([0xAE])), le("reserved", 1, 1, .flags(defined: 0))] : [] },
        "peat.key-exchange": .binary { b in
            b.count >= 6 ? [le("marker", 0, 1, .enumeration([0xB0])), le("sender", 1, 4), le("flags", 5, 1, .flags(defined: 0x01))] : []
        },
        "peat.peer-e2ee": .binary { b in
            guard b.count >= 18 else { return [] }
            return [le("marker", 0, 1, .enumeration([0xAF])), le("flags", 1, 1, .flags(defined: 0x03)), le("recipient", 2, 4), le("sender", 6, 4),
                    le("counter", 10, 8)]
        },
        "peat.device-name": .binary(peatDeviceName),
    ].merging(hostParsers) { a, _ in a }

    static let blemeshEnvelope: [String: FieldType] = [
        "id": .uuid, "originID": .uuid, "originName": .string, "destinationID": .uuid, "timestamp": .date, "sequenceNumber": .integer,
        "ttl": .integer, "hopPath": .list(.uuid), "isControlMessage": .bool, "isEncrypted": .bool, "isGroupMessage": .bool,
        "payload": .base64, "conversationID": .uuid, "signature": .base64, "hops": .integer,
    ]
    static let blemeshRoute: [String: FieldType] = [
        "destinationID": .uuid, "hopCount": .integer, "hopPath": .list(.uuid), "originID": .uuid, "requestID": .uuid,
        "timestamp": .number, "version": .integer,
    ]
    static let campMessage: [String: FieldType] = [
        "content": .string, "id": .uuid, "messageType": .enumeration(CampMessage.Kind.allCases.map { .string($0.rawValue) }),
        "recipientID": .string, "senderID": .string, "senderName": .string, "timestamp": .number, "locationLat": .number, "locationLon": .number,
    ]

    // MARK: binary layouts

    static func be(_ name: String, _ offset: Int, _ width: Int, _ kind: BinarySlot.Kind = .unsigned, limits: [Int] = []) -> BinarySlot {
        BinarySlot(name, offset, width, bigEndian: true, kind, limits: limits.map(UInt64.init))
    }

    static func le(_ name: String, _ offset: Int, _ width: Int, _ kind: BinarySlot.Kind = .unsigned, limits: [Int] = []) -> BinarySlot {
        BinarySlot(name, offset, width, bigEndian: false, kind, limits: limits.map(UInt64.init))
    }

    /// nonce 12 | ciphertext n | Poly1305 tag 16 (RELAY-W5): the ciphertext's length is the
    /// body's less 28; the nonce's ends are numbers like any other (an all-zero nonce).
    static func relaySealed(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 28 else { return [] }
        return [be("nonce[0..<8]", 0, 8), be("nonce[8..<12]", 8, 4), BinarySlot("ciphertext", 12, 0, bigEndian: true, .implied(data: 12..<(b.count - 16)))]
    }

    /// `PEAT_<meshId>-<nodeId as %08X>` (PEAT-W9): the mesh id is 1 to 15 letters or digits
    /// (the name at most 29 bytes), the node id the last 8 characters.
    static func peatDeviceName(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 15, b.starts(with: Array("PEAT_".utf8)), b[b.count - 9] == UInt8(ascii: "-") else { return [] }
        return [BinarySlot("meshId", 5, 0, bigEndian: true, .implied(data: 5..<(b.count - 9)), limits: [15]),
                BinarySlot("nodeId", b.count - 8, 8, bigEndian: true, .hexDigits)]
    }

    static func read(_ b: [UInt8], _ offset: Int, _ width: Int, bigEndian: Bool) -> Int? {
        guard offset >= 0, width <= 8, offset + width <= b.count else { return nil }
        var v: UInt64 = 0
        for k in 0..<width { v |= UInt64(b[offset + k]) << (8 * UInt64(bigEndian ? width - 1 - k : k)) }
        return v > UInt64(Int.max) ? nil : Int(v)
    }

    /// type u8 | headerLen u16 BE | header (JSON, or the ack's u64) | body: the header is a
    /// unit of its own, the body (a sealed body) is left as it is.
    static func relayPacket(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 3 else { return [] }
        var slots = [be("type", 0, 1, .enumeration([0x46, 0x61, 0x42]))]
        guard let length = read(b, 1, 2, bigEndian: true), 3 + length <= b.count else { return slots }
        let header = 3..<(3 + length)
        let inner: FormatID? = switch b[0] {
        case 0x46: "relay.frame-header"
        case 0x42: "relay.beacon"
        case 0x61: "relay.ack"
        default: nil
        }
        slots.append(be("headerLen", 1, 2, inner.map { .nested($0, data: header) } ?? .length(data: header)))
        return slots
    }

    /// version | type | ttl | timestamp u64 | flags | payloadLength (u16, v2 u32) | sender 8
    /// [| recipient 8] [| v2 route: count u8, 8 per hop] | payload [| signature 64] [| padding].
    /// A fragment's payload is a `bitchat.fragment`.
    static func bitchatPacket(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 14 else { return [] }
        let version = b[0]
        let lengthWidth = version == 2 ? 4 : 2
        var slots = [
            be("version", 0, 1, .enumeration([1, 2])), be("type", 1, 1, .enumeration(BitchatMessageType.allCases.map { UInt64($0.rawValue) })),
            be("ttl", 2, 1), be("timestamp", 3, 8), be("flags", 11, 1, .flags(defined: 0x1F)),
        ]
        guard let length = read(b, 12, lengthWidth, bigEndian: true) else { return slots }
        var at = 12 + lengthWidth + 8
        if b[11] & 0x01 != 0 { at += 8 }
        if version == 2, b[11] & 0x08 != 0, at < b.count {
            slots.append(be("route.count", at, 1, .count(itemsAt: at + 1, itemSize: 8)))
            at += 1 + 8 * Int(b[at])
        }
        guard at + length <= b.count else {
            slots.append(be("payloadLength", 12, lengthWidth, limits: [BitchatPacket.maxPayloadLength]))
            return slots
        }
        let payload = at..<(at + length)
        let fragment = b[1] == BitchatMessageType.fragment.rawValue && b[11] & 0x04 == 0
        slots.append(be("payloadLength", 12, lengthWidth, fragment ? .nested("bitchat.fragment", data: payload) : .length(data: payload),
                        limits: [BitchatPacket.maxPayloadLength]))
        if b[11] & 0x04 != 0, length >= lengthWidth {
            // A compressed payload starts with the original size (the inflated length).
            slots.append(be("originalSize", at, lengthWidth, limits: [BitchatPacket.maxPayloadLength, 65_535]))
        }
        return slots
    }

    /// fragmentID 8 | index u16 | total u16 | originalType u8 | data.
    static func bitchatFragment(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 13 else { return [] }
        return [be("index", 8, 2, limits: [BitchatFragment.maxTotal]), be("total", 10, 2, limits: [BitchatFragment.maxTotal]), be("originalType", 12, 1, .enumeration(BitchatMessageType.allCases.map { UInt64($0.rawValue) }))]
    }

    /// version u32 | node u32 | num_entries u32 | entries (node u32, count u64) | sections
    /// (marker u8, reserved u8, len u16, data): a peripheral or emergency section is a unit.
    static func peatDocument(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 12, let count = read(b, 8, 4, bigEndian: false) else { return [] }
        var slots = [le("version", 0, 4), le("node", 4, 4), le("num_entries", 8, 4, .count(itemsAt: 12, itemSize: 12), limits: [PeatWire.maxCounterEntries])]
        var at = 12 + 12 * count
        while at + 4 <= b.count, (0xAB...0xAD).contains(b[at]), let length = read(b, at + 2, 2, bigEndian: false), at + 4 + length <= b.count {
            let data = (at + 4)..<(at + 4 + length)
            let inner: FormatID? = b[at] == 0xAB ? "peat.peripheral" : b[at] == 0xAC ? "peat.emergency" : nil
            slots.append(le("section 0x\(String(b[at], radix: 16)).marker", at, 1, .enumeration([0xAB, 0xAC, 0xAD])))
            slots.append(le("section 0x\(String(b[at], radix: 16)).len", at + 2, 2, inner.map { .nested($0, data: data) } ?? .length(data: data)))
            at = data.upperBound
        }
        return slots
    }

    /// id u32 | parent u32 | type u8 | callsign 12 | health 4 | has_event u8 [| event type u8,
    /// timestamp u64] | timestamp u64 [| location].
    static func peatPeripheral(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 34 else { return [] }
        var slots = [le("id", 0, 4), le("parent", 4, 4), le("type", 8, 1, .enumeration(PeatPeripheral.Kind.allCases.map { UInt64($0.rawValue) })),
                     le("battery", 21, 1), le("heartRate", 24, 1), le("has_event", 25, 1, .enumeration([0, 1]))]
        if b[25] == 1, b.count >= 43 {
            slots += [le("event.type", 26, 1, .enumeration(PeatPeripheral.EventType.allCases.map { UInt64($0.rawValue) })), le("event.timestamp", 27, 8),
                      le("timestamp", 35, 8)]
        } else {
            slots.append(le("timestamp", 26, 8))
        }
        return slots
    }

    /// 0xB1 | flags | message id 16 | hop | max_hops | origin u32 | payload_len u32 | payload
    /// (a peat document, unless it starts with a frame marker).
    static func peatRelayEnvelope(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 28 else { return [] }
        var slots = [le("marker", 0, 1, .enumeration([0xB1])), le("flags", 1, 1, .flags(defined: 0x03)), le("hop", 18, 1), le("max_hops", 19, 1),
                     le("origin", 20, 4)]
        guard let length = read(b, 24, 4, bigEndian: false), 28 + length <= b.count else {
            slots.append(le("payload_len", 24, 4, limits: [PeatWire.maxValueSize]))
            return slots
        }
        let payload = 28..<(28 + length)
        let document = length >= 12 && !(0xAE...0xB2).contains(b[28])
        slots.append(le("payload_len", 24, 4, document ? .nested("peat.document", data: payload) : .length(data: payload), limits: [PeatWire.maxValueSize]))
        return slots
    }
}
