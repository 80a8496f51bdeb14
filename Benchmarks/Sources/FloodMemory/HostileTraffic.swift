import Foundation
import MeshNode
import MeshWire

/// Distinct inputs for one node, chosen to reach every table it keeps, one message per call.
/// Identifiers come from counters, so message i is the same in every run and never repeats.
struct HostileTraffic {
    let dialect: DialectName
    let me: NodeAddress
    private let meID: UUID

    /// Dialects this traffic generator knows how to attack (bitchat, simple and camp: not yet).
    static let dialects: [DialectName] = [.relay, .blemesh, .peat]

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
