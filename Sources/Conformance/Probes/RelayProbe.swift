import Foundation
import MeshNode
import MeshWire

/// The tester's side of the `relay` dialect (docs/dialects/relay.md): X25519 identities for
/// the DUT, the testers and the strangers beyond them, sealed frames, acks and beacons.
///
/// Identities are fixed and public (derived with `RelaySimulationKeys` from a name), so a
/// process DUT can be told them in its `start` frame: its own private key as `privateKey` and
/// every tester's and stranger's public key as `contact.<id>` (RELAY-R1, RELAY-W6).
///
/// What a DUT keys its memory on is new in every check of every run (RunIdentifiers): frame
/// seqs start from a per-check base, nonces carry a per-check prefix, and beacons come from
/// per-check origins (a beacon needs no key, and RELAY-R10.2 drops a seqNo at or below the
/// last one heard from its origin, which a DUT remembers for 300 s).
public final class RelayProbe: DialectProbe {
    public let dialect = DialectName.relay
    public private(set) var dutAddress = NodeAddress(bytes: [])
    private var dutPublicKey: [UInt8]?
    private var declaredPublicKey: [UInt8]?
    private var nextSeq: UInt64 = 0
    private var nonceCounter: UInt64 = 0
    private var noncePrefix: UInt32 = 0
    private var beaconOrigins: [Party: UUID] = [:]
    private var sessionKeys: [[Party]: SessionKey] = [:]
    /// Parties a check may use: testers 1...8, strangers 1...9.
    static let testers = 1...8
    static let strangers = 1...9

    public init() {}

    public var unitFormat: FormatID? { "relay.packet" }

    public var relayedDestination: Party? { .stranger(2) }

    /// Every party's identity, derived once: a derivation is an X25519 key computation, and
    /// `describe` looks up every party for each packet of the evidence.
    private static let identities: [Party: RelayIdentity] = Dictionary(uniqueKeysWithValues:
        (testers.map(Party.tester) + strangers.map(Party.stranger) + [.dut]).map { ($0, derive($0)) })

    static func identity(_ party: Party) -> RelayIdentity { identities[party] ?? derive(party) }

    private static func derive(_ party: Party) -> RelayIdentity {
        let name: String
        switch party {
        case .tester(let n): name = "meshconform tester \(n)"
        case .stranger(let n): name = "meshconform stranger \(n)"
        case .dut: name = "meshconform dut"
        }
        return RelaySimulationKeys.identity(for: NodeAddress(bytes: Array(name.utf8)))
    }

    public func setup(capabilities: Capabilities, seed: UInt64, identifiers: RunIdentifiers) throws -> DUTSetup {
        beaconOrigins = Dictionary(uniqueKeysWithValues: (Self.testers.map(Party.tester) + Self.strangers.map(Party.stranger)).map { party in
            let a = identifiers.value("beacon \(party)"), b = identifiers.value("beacon' \(party)")
            var bytes = withUnsafeBytes(of: a.bigEndian, Array.init) + withUnsafeBytes(of: b.bigEndian, Array.init)
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            return (party, NodeAddress(bytes: bytes).uuid!)
        })
        var settings: [String: String] = [:]
        for n in Self.testers { settings["contact.\(address(of: .tester(n)))"] = Hex.encode(Self.identity(.tester(n)).publicKey) }
        for n in Self.strangers { settings["contact.\(address(of: .stranger(n)))"] = Hex.encode(Self.identity(.stranger(n)).publicKey) }
        declaredPublicKey = capabilities.publicKey.flatMap(Hex.decode)
        if let declared = capabilities.address.flatMap(UUID.init(uuidString:)) {
            // The DUT keeps its own identity; frames to it need its public key.
            dutAddress = NodeAddress(declared)
            dutPublicKey = capabilities.publicKey.flatMap(Hex.decode)
        } else {
            let dut = Self.identity(.dut)
            settings["privateKey"] = Hex.encode(dut.privateKey)
            dutAddress = NodeAddress(dut.nodeID)
            dutPublicKey = dut.publicKey
        }
        // Sequence numbers look like the app's (bit pattern of a creation time),
        // spread over 10^6 s at 10 us steps per check: thousands of seqs apart, never shared.
        nextSeq = FrameHeader.seq(createdAt: 1_750_000_000 + Double(identifiers.value("relay.seq") % 100_000_000_000) / 100_000)
        noncePrefix = UInt32(truncatingIfNeeded: identifiers.value("relay.nonce"))
        nonceCounter = 0
        return DUTSetup(dialect: .relay, address: dutAddress, settings: settings, seed: seed)
    }

    /// A DUT's own id says nothing of its key: frames to it stay NA without `publicKey`.
    public func adopt(dutAddress address: NodeAddress) {
        if address != dutAddress { dutPublicKey = declaredPublicKey }
        dutAddress = address
    }

    public func address(of party: Party) -> NodeAddress {
        party == .dut ? dutAddress : NodeAddress(Self.identity(party).nodeID)
    }

    public func message(_ spec: MessageSpec) throws -> ProbeMessage {
        guard let destination = spec.destination else {
            throw CheckNotApplicable("relay has no broadcast (relay.md 2.2)")
        }
        let ttl = spec.ttl ?? 8
        guard (0...255).contains(ttl) else { throw TesterError("relay ttl \(ttl) does not fit a byte") }
        let seq = spec.sequence ?? takeSeq()
        let origin = address(of: spec.origin), dest = address(of: destination)
        let body = try seal(spec.payload, from: spec.origin, to: destination)
        let packet = RelayPacket.frame(FrameHeader(origin: origin.uuid!, dest: dest.uuid!, ttl: UInt8(ttl), seq: seq), body: body)
        return ProbeMessage(key: "\(origin)/\(seq)", ackID: String(seq), origin: origin, destination: dest, ttl: ttl,
                            sequence: seq, body: body, payload: spec.payload, value: .relay(packet))
    }

    /// The same frame with another TTL (a copy that took a longer path).
    public func withTTL(_ message: ProbeMessage, _ ttl: UInt8) -> ProbeMessage {
        guard case .relay(.frame(var header, let body)) = message.value else { return message }
        header.ttl = ttl
        var copy = message
        copy.ttl = Int(ttl)
        copy.value = .relay(.frame(header, body: body))
        return copy
    }

    public func units(of message: ProbeMessage, via tester: Int) -> [[UInt8]] {
        guard case .relay(let packet) = message.value else { return [] }
        return [packet.encoded()]
    }

    /// The ack a destination sends for `message` (RELAY-R7).
    public func ack(for message: ProbeMessage) -> [UInt8] { RelayPacket.ack(RelayAck(seq: message.sequence)).encoded() }

    public func ack(seq: UInt64) -> [UInt8] { RelayPacket.ack(RelayAck(seq: seq)).encoded() }

    /// A beacon from `origin` (RELAY-R9), with `origin`'s beacon id (`beaconOrigin`).
    public func beacon(from origin: Party, seqNo: UInt32, ttl: UInt8 = 8, hop: UInt8 = 0) -> [UInt8] {
        RelayPacket.beacon(Beacon(origin: beaconOrigin(origin), seqNo: seqNo, ttl: ttl, hop: hop)).encoded()
    }

    /// The origin id of `party`'s beacons: the DUT's own id for the DUT; for a tester or a
    /// stranger an id of this check alone, so its seqNo 1 is fresh to a DUT that heard other
    /// checks' beacons (RELAY-R10.2).
    public func beaconOrigin(_ party: Party) -> UUID {
        beaconOrigins[party] ?? address(of: party).uuid!
    }

    public func hear(_ bytes: [UInt8], on link: LinkID) -> HeardPacket? {
        do {
            let packet = try RelayPacket(decoding: bytes[...])
            switch packet {
            case .frame(let h, let body):
                let origin = NodeAddress(h.origin)
                return .message(HeardMessage(key: "\(origin)/\(h.seq)", origin: origin, destination: NodeAddress(h.dest),
                                             ttl: Int(h.ttl), body: body, hopPath: nil, value: .relay(packet)))
            case .ack(let a): return .ack(ackID: String(a.seq), destination: nil, value: .relay(packet))
            case .beacon(let b): return .beacon(b)
            }
        } catch {
            return .malformed(error)
        }
    }

    public func describe(_ bytes: [UInt8]) -> String {
        let packet: RelayPacket
        do { packet = try RelayPacket(decoding: bytes[...]) } catch {
            return "undecodable (\(error.code.rawValue)) \(bytes.count)B: \(Hex.encode(Array(bytes.prefix(24))))\(bytes.count > 24 ? "..." : "")"
        }
        switch packet {
        case .frame(let h, let body):
            return "frame origin=\(name(h.origin)) dest=\(name(h.dest)) ttl=\(h.ttl) seq=\(h.seq) body=\(body.count)B"
        case .ack(let a): return "ack seq=\(a.seq)"
        case .beacon(let b): return "beacon origin=\(name(b.origin)) seqNo=\(b.seqNo) ttl=\(b.ttl) hop=\(b.hop)"
        }
    }

    /// DUT, T1, S2 ... for the evidence; other ids in full.
    private func name(_ id: UUID) -> String {
        if NodeAddress(id) == dutAddress { return "DUT" }
        for n in Self.testers where address(of: .tester(n)).uuid == id { return "T\(n)" }
        for n in Self.strangers where address(of: .stranger(n)).uuid == id { return "S\(n)" }
        if let party = beaconOrigins.first(where: { $0.value == id })?.key { return "\(party.shortName) (beacon id)" }
        return id.uuidString
    }

    /// A seq of this check no frame carried yet: new to the DUT however long it has run.
    public func freshSeq() -> UInt64 { takeSeq() }

    private func takeSeq() -> UInt64 {
        nextSeq &+= 1
        return nextSeq
    }

    private func seal(_ payload: [UInt8], from origin: Party, to destination: Party) throws -> [UInt8] {
        nonceCounter &+= 1
        var nonce = [UInt8](repeating: 0, count: SealedBody.nonceSize)
        withUnsafeBytes(of: noncePrefix.bigEndian) { nonce.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: nonceCounter.bigEndian) { nonce.replaceSubrange(4..<12, with: $0) }
        let peerKey: [UInt8]
        if destination == .dut {
            guard let key = dutPublicKey else {
                throw CheckNotApplicable("frames to the DUT need its public key: declare publicKey in the capabilities file")
            }
            peerKey = key
        } else {
            peerKey = Self.identity(destination).publicKey
        }
        // One X25519 agreement per pair of parties, not per frame (DDP capacity sends a thousand).
        let pair = [origin, destination]
        let key = try sessionKeys[pair] ?? SessionKey(privateKey: Self.identity(origin).privateKey, peerPublicKey: peerKey)
        sessionKeys[pair] = key
        return try SealedBody.seal(payload, key: key, nonce: nonce).encoded()
    }
}
