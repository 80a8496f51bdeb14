import Foundation
import MeshNode
import MeshWire

/// The tester's side of the `blemesh` dialect (docs/dialects/blemesh.md): device-id UUIDs for
/// the DUT, the testers and the strangers beyond them, envelopes chunked as BLEMESH-R3 says,
/// and reassembly of what the DUT sends, per link, as BLEMESH-R4 says.
///
/// Identities are public, so a process DUT can be told its own in the `start` frame
/// (DUTSetup.address) and a report can be read without a legend. A DUT keeps routes and
/// neighbours per device id (BLEMESH-R14 to R17) for as long as it runs, so the testers' and
/// strangers' ids carry five bytes of the check's number (RunIdentifiers.tag, `cccccccccc`):
///
/// | party | device id |
/// |---|---|
/// | DUT | `DD000000-0000-4000-8000-000000000000` (or `address` from the capabilities file) |
/// | tester n (1...8) | `7E000000-0000-4000-8000-ccccccccccnn` (nn = n in hex) |
/// | stranger n (1...9) | `5E000000-0000-4000-8000-ccccccccccnn` |
///
/// A tester sends what it originates with `hopPath` `[itself]`; a message from a stranger
/// reaches the DUT through a tester with `hopPath` `[stranger, tester]`, as if that tester had
/// relayed it. The TTL is left as the check asked, so windows and expectations stay simple.
public final class BLEMeshProbe: DialectProbe {
    public let dialect = DialectName.blemesh
    public private(set) var dutAddress = NodeAddress(BLEMeshProbe.dutID)
    /// Parties a check may use.
    static let testers = 1...8
    static let strangers = 1...9
    static let dutID = UUID(uuidString: "DD000000-0000-4000-8000-000000000000")!
    /// The envelope `timestamp` of everything the testers send: whole seconds (BLEMESH-W5).
    static let timestamp: Int64 = 1_750_000_000
    /// Seconds from 1970 to 2001, for the inner control timestamps (BLEMESH-W4).
    static let epoch2001 = 978_307_200.0

    private var random = SeededRandom(seed: 0)
    /// The check's five bytes in the testers' and strangers' ids.
    private var checkTag = [UInt8](repeating: 0, count: 5)
    /// BLEMESH-R2: per-origin sequence numbers, the previous one + 1 from 1.
    private var sequences: [NodeAddress: UInt64] = [:]
    /// Reassembly of the DUT's chunks, per link (BLEMESH-R4), bounded like a receiver's.
    private var assemblers: [LinkID: ChunkAssembler] = [:]
    private static let hearingLimits = ChunkAssembler.Limits(maxInFlight: 64, lifetime: .infinity)
    /// `describe`'s lines for the units the probe built or heard, so the evidence does not
    /// parse every chunk twice; bounded, oldest forgotten first (a ring of keys).
    private var lines: [UnitBytes: String] = [:]
    private var lineKeys: [UnitBytes] = []
    private var nextLineKey = 0
    private static let maxLines = 1024

    public init() {}

    /// blemesh relays broadcasts (BLEMESH-R6.4), so the neutral checks use them.
    public var unitFormat: FormatID? { "blemesh.chunk" }

    /// BLEMESH-R14: a node announces itself when a link comes up (hop 0, ttl 2); BLEMESH-R1: the
    /// receiver takes the neighbour's id from the last hop path element of a valid envelope.
    public func introduction(of tester: Int) -> ProbeMessage? {
        control(.peerAnnounce(announce(of: .tester(tester))), from: .tester(tester), ttl: 2)
    }

    public var relayedDestination: Party? { nil }

    public func setup(capabilities: Capabilities, seed: UInt64, identifiers: RunIdentifiers) throws -> DUTSetup {
        if let declared = capabilities.address {
            guard let id = UUID(uuidString: declared) else { throw TesterError("capabilities address \"\(declared)\" is not a UUID") }
            dutAddress = NodeAddress(id)
        } else {
            dutAddress = NodeAddress(Self.dutID)
        }
        // Not the DUT's own seed: the reference node draws its ids from that one, and the
        // testers' envelope ids must never collide with the DUT's.
        random = SeededRandom(seed: identifiers.value("blemesh.ids"))
        checkTag = identifiers.tag(5)
        sequences = [:]
        return DUTSetup(dialect: .blemesh, address: dutAddress, settings: ["name": "meshconform DUT"], seed: seed)
    }

    public func adopt(dutAddress address: NodeAddress) { dutAddress = address }

    public func address(of party: Party) -> NodeAddress {
        switch party {
        case .dut: dutAddress
        case .tester(let n): NodeAddress(Self.partyID(prefix: 0x7E, checkTag, n))
        case .stranger(let n): NodeAddress(Self.partyID(prefix: 0x5E, checkTag, n))
        }
    }

    /// The device id of `party`.
    public func id(_ party: Party) -> UUID { address(of: party).uuid! }

    /// `PP000000-0000-4000-8000-ccccccccccnn`: a party's id in the check tagged `tag` (5 bytes).
    static func partyID(prefix: UInt8, _ tag: [UInt8], _ n: Int) -> UUID {
        UUID(uuid: (prefix, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, tag[0], tag[1], tag[2], tag[3], tag[4], UInt8(truncatingIfNeeded: n)))
    }

    /// A fresh random UUID from the check's seed (envelope, request and error ids).
    public func newID() -> UUID {
        var b = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    private func takeSequence(_ origin: NodeAddress) -> UInt64 {
        let next = (sequences[origin] ?? 0) &+ 1
        sequences[origin] = next
        return next
    }

    // MARK: building

    /// A user envelope (BLEMESH-R2): broadcast when `destination` is nil, directed otherwise.
    public func message(_ spec: MessageSpec) throws -> ProbeMessage {
        let ttl = spec.ttl ?? DialectParameters.of(.blemesh).defaultTTL
        guard (0...255).contains(ttl) else { throw TesterError("blemesh ttl \(ttl) is outside 0...255") }
        let origin = address(of: spec.origin)
        let envelope = MessageEnvelope(
            id: newID(), originID: origin.uuid!, originName: spec.origin.displayName,
            destinationID: spec.destination.map(id), timestamp: Self.timestamp,
            sequenceNumber: spec.sequence ?? takeSequence(origin), ttl: ttl, hopPath: [origin.uuid!],
            payload: spec.payload)
        return Self.probeMessage(envelope)
    }

    /// A control envelope (BLEMESH-R12) that `sender` originates: `isControlMessage` true,
    /// `hopPath` `[sender]`, addressed to `destination` or to no one.
    public func control(_ message: ControlMessage, from sender: Party, to destination: Party? = nil, ttl: Int) -> ProbeMessage {
        let origin = address(of: sender)
        let envelope = MessageEnvelope(
            id: newID(), originID: origin.uuid!, originName: sender.displayName, destinationID: destination.map(id),
            timestamp: Self.timestamp, sequenceNumber: takeSequence(origin), ttl: ttl, hopPath: [origin.uuid!],
            isControlMessage: true, payload: message.encoded())
        return Self.probeMessage(envelope)
    }

    static func probeMessage(_ envelope: MessageEnvelope) -> ProbeMessage {
        ProbeMessage(key: dedupKey(envelope), ackID: envelope.id.uuidString, origin: NodeAddress(envelope.originID),
                     destination: envelope.destinationID.map { NodeAddress($0) }, ttl: envelope.ttl,
                     sequence: envelope.sequenceNumber, body: envelope.payload, payload: envelope.payload,
                     value: .blemesh(envelope))
    }

    /// BLEMESH-R5: `"<id>-<originID>-<sequenceNumber>"`, UUIDs uppercase, sequence in decimal.
    public static func dedupKey(_ e: MessageEnvelope) -> String {
        "\(e.id.uuidString)-\(e.originID.uuidString)-\(e.sequenceNumber)"
    }

    /// The envelope a message carries.
    public func envelope(of message: ProbeMessage) -> MessageEnvelope {
        guard case .blemesh(let envelope) = message.value else { preconditionFailure("not a blemesh message") }
        return envelope
    }

    /// The same envelope with another hop path (a copy that came a longer way); `units` still
    /// appends the sending tester when it is not last.
    public func withHopPath(_ message: ProbeMessage, _ path: [Party]) -> ProbeMessage {
        var e = envelope(of: message)
        e.hopPath = path.map(id)
        return Self.probeMessage(e)
    }

    public func withTTL(_ message: ProbeMessage, _ ttl: Int) -> ProbeMessage {
        var e = envelope(of: message)
        e.ttl = ttl
        return Self.probeMessage(e)
    }

    /// The same envelope under a new sequence number and id: a new message with the same body.
    public func renewed(_ message: ProbeMessage) -> ProbeMessage {
        var e = envelope(of: message)
        e.id = newID()
        e.sequenceNumber = takeSequence(NodeAddress(e.originID))
        return Self.probeMessage(e)
    }

    /// The envelope as tester `via` puts it on its link: its id appended to the hop path
    /// unless it is already last (a tester originating has just itself).
    public func envelope(of message: ProbeMessage, via tester: Int) -> MessageEnvelope {
        var e = envelope(of: message)
        let sender = id(.tester(tester))
        if e.hopPath.last != sender { e.hopPath.append(sender) }
        return e
    }

    public func units(of message: ProbeMessage, via tester: Int) -> [[UInt8]] {
        build(message, via: tester, pieceSize: Chunker.payloadPerChunk).map(\.bytes)
    }

    /// The chunks tester `via` writes for `message`, split into pieces of `pieceSize` bytes
    /// (BLEMESH-R3: 162; receivers accept any split), flags 0x01 first and 0x02 last. Checks
    /// reorder, repeat or alter them to test reassembly.
    public func chunks(of message: ProbeMessage, via tester: Int, pieceSize: Int = Chunker.payloadPerChunk) -> [MessageChunk] {
        build(message, via: tester, pieceSize: pieceSize).map(\.chunk)
    }

    private func build(_ message: ProbeMessage, via tester: Int, pieceSize: Int) -> [(chunk: MessageChunk, bytes: [UInt8])] {
        let e = envelope(of: message, via: tester)
        let chunks = Self.split(e.encoded(), messageID: e.id, pieceSize: pieceSize)
        return chunks.map { chunk in
            let bytes = chunk.encoded()
            let ends = chunk.chunkIndex == chunk.totalChunks - 1
            remember(bytes, Self.line(chunk) + (ends ? ": " + Self.summary(e, name: name) : ""))
            return (chunk, bytes)
        }
    }

    /// `Chunker`'s split, but empty data is one empty chunk (a tester sends what it is asked to).
    static func split(_ data: [UInt8], messageID: UUID, pieceSize: Int) -> [MessageChunk] {
        guard !data.isEmpty else { return [MessageChunk(messageID: messageID, chunkIndex: 0, totalChunks: 1, flags: [.first, .last], payload: [])] }
        return Chunker.chunks(messageID: messageID, data: data, pieceSize: pieceSize)
    }

    // MARK: control messages, as a neighbour or a far node sends them

    /// The 2001-epoch time of the testers' control messages.
    static var innerTimestamp: Double { Double(timestamp) - epoch2001 }

    /// An RREQ (BLEMESH-R15) from `origin` looking for `destination`, having travelled `path`
    /// (default `[origin]`): hopCount = path count - 1.
    public func routeRequest(from origin: Party, for destination: Party, path: [Party]? = nil, ttl: Int = 3, requestID: UUID? = nil) -> RouteRequest {
        let path = path ?? [origin]
        return RouteRequest(requestID: requestID ?? newID(), originID: id(origin), destinationID: id(destination),
                            originName: origin.displayName, hopCount: path.count - 1, hopPath: path.map(id),
                            timestamp: Self.innerTimestamp, ttl: ttl)
    }

    /// The RREP (BLEMESH-R16) `request`'s destination sends, `hopCount` hops from it, with
    /// the request's path as it reached the destination (default: as built) reversed.
    public func routeReply(to request: RouteRequest, hopCount: Int = 0, pathAtDestination: [Party]? = nil) -> RouteReply {
        let path = pathAtDestination.map { $0.map(id) } ?? request.hopPath
        return RouteReply(requestID: request.requestID, originID: request.originID, destinationID: request.destinationID,
                          destinationName: "meshconform", hopCount: hopCount, hopPath: path.reversed(),
                          timestamp: Self.innerTimestamp)
    }

    /// An ANNOUNCE (BLEMESH-R14) of `device`, `hopCount` hops from it.
    public func announce(of device: Party, hopCount: Int = 0) -> PeerAnnounce {
        PeerAnnounce(deviceID: id(device), deviceName: device.displayName, timestamp: Self.innerTimestamp, hopCount: hopCount)
    }

    /// An RERR (BLEMESH-R17).
    public func routeError(unreachable: Party, reporter: Party, affected: [Party]) -> RouteError {
        RouteError(errorID: newID(), unreachableID: id(unreachable), reporterID: id(reporter),
                   affectedDestinations: affected.map(id), timestamp: Self.innerTimestamp)
    }

    /// The ACK (BLEMESH-R11) `receiver` sends for `message`, in an envelope addressed to its
    /// origin with ttl = hop path count + 1.
    public func ack(of message: ProbeMessage, by receiver: Party) -> ProbeMessage {
        let acked = envelope(of: message)
        let inner = DeliveryAck(messageID: acked.id, receiverID: id(receiver), timestamp: Self.innerTimestamp)
        var ack = control(.deliveryAck(inner), from: receiver, ttl: min(acked.hopPath.count + 1, 255))
        var e = envelope(of: ack)
        e.destinationID = acked.originID
        ack = Self.probeMessage(e)
        return ack
    }

    // MARK: hearing

    public func hear(_ bytes: [UInt8], on link: LinkID) -> HeardPacket? {
        let chunk: MessageChunk
        do { chunk = try MessageChunk(decoding: bytes[...]) } catch { return .malformed(error) }
        var assembler = assemblers[link] ?? ChunkAssembler(limits: Self.hearingLimits)
        let outcome = assembler.add(chunk, now: 0)
        assemblers[link] = assembler
        switch outcome {
        case .incomplete, .duplicate:
            remember(bytes, Self.line(chunk))
            return nil
        case .rejected(let why):
            // The DUT's own chunk sets must be consistent (BLEMESH-R3): one total, one piece per index.
            let error = WireError(why.code, "chunk \(chunk.chunkIndex)/\(chunk.totalChunks) of \(Self.short(chunk.messageID)): \(why)")
            remember(bytes, Self.line(chunk) + ": refused: \(error)")
            return .malformed(error)
        case .completed(_, let data):
            let packet = Self.read(data, messageID: chunk.messageID)
            remember(bytes, Self.line(chunk) + ": " + Self.describe(packet, name: name))
            return packet
        }
    }

    /// What a completed chunk set is; a set that completes into junk is malformed too.
    static func read(_ data: [UInt8], messageID: UUID) -> HeardPacket {
        let e: MessageEnvelope
        do { e = try MessageEnvelope(decoding: data[...]) } catch { return .malformed(error) }
        guard e.id == messageID else {
            return .malformed(WireError(.lengthMismatch, "chunk messageID \(messageID.uuidString) is not the envelope id \(e.id.uuidString)"))
        }
        guard e.isControlMessage else {
            return .message(HeardMessage(key: dedupKey(e), origin: NodeAddress(e.originID), destination: e.destinationID.map { NodeAddress($0) },
                                         ttl: e.ttl, body: e.payload, hopPath: e.hopPath.map { NodeAddress($0) }, value: .blemesh(e)))
        }
        let control: ControlMessage
        do { control = try ControlMessage(decoding: e.payload[...]) } catch { return .malformed(error) }
        if case .deliveryAck(let ack) = control {
            return .ack(ackID: ack.messageID.uuidString, destination: e.destinationID.map { NodeAddress($0) }, value: .blemesh(e))
        }
        return .control(control, envelope: e)
    }

    // MARK: describing

    /// One line per chunk: messageID (short), index/total, flags, piece size, and the
    /// envelope's summary on the chunk that completes (DUT) or ends (tester) a set.
    public func describe(_ bytes: [UInt8]) -> String {
        if let line = lines[UnitBytes(bytes)] { return line }
        do { return Self.line(try MessageChunk(decoding: bytes[...])) } catch {
            return "not a chunk (\(error.code.rawValue)) \(bytes.count)B: \(String(decoding: bytes.prefix(48), as: UTF8.self))\(bytes.count > 48 ? "..." : "")"
        }
    }

    static func line(_ chunk: MessageChunk) -> String {
        "chunk \(short(chunk.messageID)) \(chunk.chunkIndex)/\(chunk.totalChunks) flags 0x\(String(chunk.flags.rawValue, radix: 16)) \(chunk.payload.count)B"
    }

    private func remember(_ bytes: [UInt8], _ line: String) {
        let bytes = UnitBytes(bytes)
        if lines[bytes] == nil {
            if lineKeys.count < Self.maxLines {
                lineKeys.append(bytes)
            } else {
                lines[lineKeys[nextLineKey]] = nil
                lineKeys[nextLineKey] = bytes
                nextLineKey = (nextLineKey + 1) % Self.maxLines
            }
        }
        lines[bytes] = line
    }

    static func describe(_ packet: HeardPacket, name: (UUID) -> String) -> String {
        switch packet {
        case .message(let m): if case .blemesh(let e) = m.value { return summary(e, name: name) }
        case .ack(_, _, let value): if case .blemesh(let e) = value { return summary(e, name: name) }
        case .control(_, let e): return summary(e, name: name)
        case .malformed(let error): return "completes into junk (\(error))"
        case .beacon, .state: break
        }
        return "?"
    }

    /// One line for an envelope: kind, addressing, id, sequence, ttl, hop path, content.
    static func summary(_ e: MessageEnvelope, name: (UUID) -> String) -> String {
        let to = e.destinationID.map { "->\(name($0))" } ?? " broadcast"
        let head = "id \(short(e.id)) from \(name(e.originID))\(to) seq \(e.sequenceNumber) ttl \(e.ttl) path [\(e.hopPath.map(name).joined(separator: ","))]"
        guard e.isControlMessage else { return "user \(head) \(e.payload.count)B" }
        guard let control = try? ControlMessage(decoding: e.payload[...]) else { return "control (undecodable) \(head)" }
        let content: String
        switch control {
        case .routeRequest(let r):
            content = "RREQ req \(short(r.requestID)) \(name(r.originID))->\(name(r.destinationID)) hop \(r.hopCount) path [\(r.hopPath.map(name).joined(separator: ","))] ttl \(r.ttl)"
        case .routeReply(let r):
            content = "RREP req \(short(r.requestID)) \(name(r.originID))<-\(name(r.destinationID)) hop \(r.hopCount) path [\(r.hopPath.map(name).joined(separator: ","))]"
        case .routeError(let r):
            content = "RERR unreachable \(name(r.unreachableID)) by \(name(r.reporterID)) affected [\(r.affectedDestinations.map(name).joined(separator: ","))]"
        case .peerAnnounce(let a): content = "ANNOUNCE \(name(a.deviceID)) hop \(a.hopCount)"
        case .deliveryAck(let a): content = "ACK of \(short(a.messageID)) by \(name(a.receiverID))"
        case .readReceipt(let r): content = "READ of \(short(r.messageID)) by \(name(r.readerID))"
        }
        return "\(content) in \(head)"
    }

    static func short(_ id: UUID) -> String { String(id.uuidString.prefix(8)) }

    /// DUT, T1, S2 ... for the evidence; other ids by their first 8 digits.
    public func name(_ id: UUID) -> String {
        if id == dutAddress.uuid { return "DUT" }
        if let party = party(id) { return party.shortName }
        return Self.short(id)
    }

    /// Which party has device id `id`, if any.
    public func party(_ id: UUID) -> Party? {
        if id == dutAddress.uuid { return .dut }
        for n in Self.testers where self.id(.tester(n)) == id { return .tester(n) }
        for n in Self.strangers where self.id(.stranger(n)) == id { return .stranger(n) }
        return nil
    }
}

extension ChunkAssembler.Rejection {
    /// The wire error code closest to why the tester refused one of the DUT's chunks.
    var code: WireError.Code {
        switch self {
        case .totalOutOfRange, .indexOutOfRange, .totalMismatch: .chunkIndexOutOfRange
        case .conflictingPayload: .lengthMismatch
        case .messageTooLarge: .tooLarge
        }
    }
}

/// A unit's bytes as a dictionary key hashed and compared in one call each: `[UInt8]`'s own
/// conformance goes byte by byte through generic code, which in debug builds was a sixth of a
/// blemesh check's time (every chunk sent and heard is remembered).
struct UnitBytes: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (a: UnitBytes, b: UnitBytes) -> Bool {
        guard a.bytes.count == b.bytes.count else { return false }
        guard !a.bytes.isEmpty else { return true }
        return a.bytes.withUnsafeBytes { x in b.bytes.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }
}
