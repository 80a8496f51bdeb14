import Foundation
import MeshNode
import MeshWire

/// Distinct inputs for one node, chosen to reach every table it keeps, one message per call.
/// Identifiers come from counters, so message i is the same in every run and never repeats.
struct HostileTraffic {
    let dialect: DialectName
    let me: NodeAddress
    private let meID: UUID

    /// Dialects this traffic generator knows how to attack: every one.
    static let dialects: [DialectName] = [.relay, .blemesh, .bitchat, .simple, .camp, .peat]

    init(dialect: DialectName, me: NodeAddress) {
        self.dialect = dialect
        self.me = me
        meID = me.uuid!
    }

    /// A 16-byte address from a number: "MESH" tag, then the number.
    static func address(_ n: UInt32, tag: UInt8 = 0) -> NodeAddress {
        NodeAddress(bytes: [0x4D, 0x45, 0x53, tag, 0, 0, 0x40, 0, 0x80, 0, 0, 0] + withUnsafeBytes(of: n.bigEndian, Array.init))
    }

    static func id(_ n: Int, tag: UInt8) -> UUID { address(UInt32(truncatingIfNeeded: n), tag: tag).uuid! }

    func events(_ i: Int) -> [NodeEvent] {
        let link = LinkID(1 + i % 3)
        switch dialect {
        case .relay: return relay(i, link)
        case .blemesh: return blemesh(i, link)
        case .camp: return camp(i, link)
        case .bitchat: return bitchat(i, link)
        case .simple: return simple(i, link)
        case .peat: return peat(i, link)
        default: preconditionFailure("no hostile traffic for \(dialect) (HostileTraffic.dialects)")
        }
    }

    // MARK: relay

    private static let body = [UInt8](repeating: 0xA5, count: 44)

    private func relay(_ i: Int, _ link: LinkID) -> [NodeEvent] {
        // Every 1000th: the app sends to a new contact (outstanding frames, session keys).
        if i % 1000 == 999 { return [.command(.send(payload: Array("hi".utf8), to: Self.address(UInt32(i), tag: 7)))] }
        let origin = Self.id(i % 997, tag: 1)
        let packet: RelayPacket
        switch i % 8 {
        case 0, 1, 2:   // frames to relay (RELAY-R5): cache, ack routes, relay queue
            packet = .frame(FrameHeader(origin: origin, dest: Self.id(i, tag: 2), ttl: 8, seq: UInt64(i)), body: Self.body)
        case 3:         // ttl 1: recorded, not relayed
            packet = .frame(FrameHeader(origin: origin, dest: Self.id(i, tag: 2), ttl: 1, seq: UInt64(i)), body: Self.body)
        case 4:         // acks: for a frame relayed 4 messages ago, and for nothing
            packet = .ack(RelayAck(seq: UInt64(i - 4)))
        case 5:         // beacons from 5000 origins: lastSeq fills and evicts
            packet = .beacon(Beacon(origin: Self.id(i % 5000, tag: 3), seqNo: UInt32(truncatingIfNeeded: i), ttl: 8, hop: 0))
        case 6 where i % 64 == 6:   // to me, forged: must leave no cache entry (RELAY-R4.1)
            packet = .frame(FrameHeader(origin: Self.id(i % 97, tag: 4), dest: meID, ttl: 8, seq: UInt64(i)), body: Self.body)
        default:        // unknown acks
            packet = .ack(RelayAck(seq: UInt64(i) << 20))
        }
        return [.received(packet.encoded(), on: link)]
    }

    // MARK: blemesh

    private func blemesh(_ i: Int, _ link: LinkID) -> [NodeEvent] {
        if i % 1000 == 999 { return [.command(.send(payload: Array("hi".utf8), to: Self.address(UInt32(i), tag: 7)))] }
        let origin = Self.id(i % 997, tag: 1)
        let neighbour = HostileTraffic.address(UInt32(link.raw)).uuid!
        func envelope(to destination: UUID?, control: ControlMessage? = nil, ttl: Int = 3) -> MessageEnvelope {
            MessageEnvelope(
                id: Self.id(i, tag: 5), originID: origin, originName: "o", destinationID: destination,
                timestamp: 1_746_230_400 + Int64(i / 1000), sequenceNumber: UInt64(i), ttl: ttl, hopPath: [origin, neighbour],
                isControlMessage: control != nil, payload: control?.encoded() ?? Array("hello".utf8))
        }
        let e: MessageEnvelope
        switch i % 8 {
        case 0, 1:      // broadcasts: delivered and relayed (cache, relay queue)
            e = envelope(to: nil)
        case 2:         // directed elsewhere: relayed as directed
            e = envelope(to: Self.id(i, tag: 2))
        case 3:         // to me: delivered and acked
            e = envelope(to: meID)
        case 4:         // route requests with fresh ids: request cache, routes, reverse routes
            let request = RouteRequest(requestID: Self.id(i, tag: 6), originID: Self.id(i % 5000, tag: 3), destinationID: Self.id(i, tag: 2),
                                       originName: "r", hopCount: 1, hopPath: [Self.id(i % 5000, tag: 3), neighbour], timestamp: 1, ttl: 3)
            e = envelope(to: nil, control: .routeRequest(request))
        case 5:         // announces of devices two hops away: routes
            e = envelope(to: nil, control: .peerAnnounce(PeerAnnounce(deviceID: Self.id(i % 5000, tag: 3), deviceName: "d", timestamp: 1, hopCount: 1)), ttl: 2)
        default:        // first chunks of envelopes that never complete: reassembly slots
            let chunk = MessageChunk(messageID: Self.id(i, tag: 8), chunkIndex: 0, totalChunks: 5, flags: .first, payload: Array("{\"id\":".utf8))
            return [.received(chunk.encoded(), on: link)]
        }
        return Chunker.chunks(of: e).map { .received($0.encoded(), on: link) }
    }

    // MARK: camp

    private func camp(_ i: Int, _ link: LinkID) -> [NodeEvent] {
        // Every 1000th: the app sends to a new user (the retry queue, CAMP-R6).
        if i % 1000 == 999 { return [.command(.send(payload: Array("hi".utf8), to: Self.address(UInt32(i), tag: 7)))] }
        let sender = Self.id(i % 997, tag: 1).uuidString
        func message(_ n: Int, to recipient: String, kind: CampMessage.Kind = .text, content: String = "hello") -> [UInt8] {
            CampMessage(id: Self.id(n, tag: 5).uuidString, senderID: sender, senderName: "o", recipientID: recipient,
                        kind: kind, content: content, timestamp: 767_923_200 + Double(n) / 1000).encoded()
        }
        let bytes: [UInt8]
        switch i % 8 {
        case 0, 1, 2:   // broadcasts with fresh ids: delivered and relayed (cache, relay queue)
            bytes = message(i, to: CampMessage.broadcast)
        case 3:         // directed elsewhere: relayed
            bytes = message(i, to: Self.id(i, tag: 2).uuidString)
        case 4:         // to me: delivered and confirmed (replies queue)
            bytes = message(i, to: me.campUserID)
        case 5:         // confirmations for me of ids I never sent: matched against the retry queue
            bytes = message(i, to: me.campUserID, kind: .deliveryConfirmation, content: Self.id(i, tag: 9).uuidString)
        case 6:         // a value cut short: refused, no state
            bytes = Array(message(i, to: CampMessage.broadcast).prefix(40))
        default:        // a copy of a message seen 7 inputs ago: a duplicate
            bytes = message(i - 7, to: CampMessage.broadcast)
        }
        return [.received(bytes, on: link)]
    }

    // MARK: bitchat

    /// The node's clock at input i (FloodRun feeds input i at i + 10 ms; the engine's default
    /// epoch), so packets are fresh by BITCHAT-R4 unless they are meant to be stale.
    private static func bitchatClock(_ i: Int) -> UInt64 { 1_746_230_400_000 + UInt64(i) + 10 }

    private func bitchat(_ i: Int, _ link: LinkID) -> [NodeEvent] {
        // Every 1000th: the app sends 700 bytes, over one value: its own fragments (BITCHAT-R7).
        if i % 1000 == 999 { return [.command(.send(payload: [UInt8](repeating: 0x68, count: 700), to: nil))] }
        let origin = Array(Self.address(UInt32(i % 997), tag: 1).bytes.suffix(8))
        let now = Self.bitchatClock(i)
        func packet(type: BitchatMessageType = .message, ttl: UInt8 = 7, at timestamp: UInt64 = now, to recipient: [UInt8]? = nil,
                    payload: [UInt8] = Array("hello".utf8)) -> [UInt8] {
            BitchatPacket(type: type.rawValue, ttl: ttl, timestamp: timestamp, senderID: origin, recipientID: recipient, payload: payload).encoded()
        }
        let bytes: [UInt8]
        switch i % 8 {
        case 0, 1, 2:   // broadcasts: delivered and relayed (cache, relay queue)
            bytes = packet()
        case 3:         // ttl 1: recorded and delivered, not relayed
            bytes = packet(ttl: 1)
        case 4:         // first fragments of frames that never complete: reassembly slots (128, 30 s)
            let fragment = BitchatFragment(fragmentID: Array(Self.address(UInt32(truncatingIfNeeded: i), tag: 8).bytes.suffix(8)),
                                           index: 0, total: 3, originalType: BitchatMessageType.message.rawValue, data: [UInt8](repeating: 0x66, count: 400))
            bytes = packet(type: .fragment, payload: fragment.encoded())
        case 5:         // ten minutes old: dropped unseen (BITCHAT-R4), no state
            bytes = packet(at: now - 600_000)
        case 6:         // to me: delivered, never relayed
            bytes = packet(to: Array(me.bytes.prefix(8)))
        default:        // requestSync: recorded, link-local
            bytes = packet(type: .requestSync)
        }
        return [.received(bytes, on: link)]
    }

    // MARK: simple

    private func simple(_ i: Int, _ link: LinkID) -> [NodeEvent] {
        if i % 1000 == 999 { return [.command(.send(payload: Array("hi".utf8), to: nil))] }
        let origin = "origin \(i % 997)"
        func message(_ n: Int, ttl: UInt8 = 5) -> [UInt8] {
            SimpleMessage(id: "m\(n)", sender: origin, content: "hello", timestamp: 767_923_200 + Double(n) / 1000, ttl: ttl,
                          originalSender: "origin \(n % 997)").encoded()
        }
        let bytes: [UInt8]
        switch i % 8 {
        case 0, 1, 2, 3:   // fresh messages: delivered and scheduled for relay (cache, at most 20 waiting)
            bytes = message(i)
        case 4:            // the message of 4 inputs ago again: a duplicate that cancels its relay (SIMPLE-R8)
            bytes = message(i - 4)
        case 5:            // ttl 1: recorded and delivered, not relayed
            bytes = message(i, ttl: 1)
        case 6:            // not JSON: refused, no state
            bytes = Array("{\"id\": \(i)".utf8)
        default:           // its own name as origin: never relayed (SIMPLE-R4.1)
            bytes = SimpleMessage(id: "own\(i)", sender: me.description, content: "echo", timestamp: 767_923_200, ttl: 5,
                                  originalSender: me.description).encoded()
        }
        return [.received(bytes, on: link)]
    }

    // MARK: peat

    private static let peatPayload = PeatDocument(version: 1, nodeID: 0x5EED, chat: Array("hostile".utf8)).encoded()

    private func peat(_ i: Int, _ link: LinkID) -> [NodeEvent] {
        // Every 1000th: the app sends (its own envelope, a cache entry).
        if i % 1000 == 999 { return [.command(.send(payload: Array("hi".utf8), to: nil))] }
        let origin = UInt32(i % 997 + 1)
        func envelope(hop: UInt8, maxHops: UInt8) -> [UInt8] {
            PeatRelayEnvelope(broadcast: true, messageID: PeatRelayEnvelope.messageID(origin: origin, timestampMs: UInt64(i), payloadHash: 0),
                              hop: hop, maxHops: maxHops, origin: origin, payload: Self.peatPayload).encoded()
        }
        let value: [UInt8]
        switch i % 8 {
        case 0, 1, 2:   // envelopes to relay (PEAT-R3): cache, relay queue
            value = envelope(hop: 0, maxHops: 7)
        case 3:         // budget spent: recorded, not relayed
            value = envelope(hop: 7, maxHops: 7)
        case 4:         // documents of 5000 nodes, counters growing: the merge fills the document to 512 bytes, then is refused
            let node = UInt32(i % 5000 + 1)
            value = PeatDocument(version: 1, nodeID: node, counters: [PeatDocument.Counter(node: node, count: UInt64(i))]).encoded()
        case 5:         // one emergency per 512 inputs, newer each time, acked by ever new nodes (refused whole once the counters fill the document)
            let source = UInt32(i / 512 + 1)
            let emergency = PeatEmergency(source: source, timestamp: PeatWire.minimumTimestamp + UInt64(i / 512), acks: [(UInt32(i % 5000 + 10_000), true)])
            value = PeatDocument(version: 1, nodeID: source, emergency: emergency).encoded()
        case 6:         // the other crate's 22-byte 0xAF canned message: refused (PEAT-W1)
            value = [PeatWire.peerE2EEMarker] + [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 21)
        default:        // truncated envelopes
            value = Array(envelope(hop: 0, maxHops: 7).prefix(20 + i % 8))
        }
        return [.received(value, on: link)]
    }
}
