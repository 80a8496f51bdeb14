import Foundation
import MeshNode
import MeshWire

/// The tester's side of the `peat` dialect (docs/dialects/peat.md): u32 node ids for the DUT,
/// the testers and the strangers beyond them, relay envelopes for messages, and the DUT's
/// documents read as its state.
///
/// The generic checks speak of a TTL; a peat envelope carries a hop budget instead. A message
/// with TTL t is an envelope that may still be sent t times in all, as a relay frame with TTL t
/// may: `max_hops - hop = t - 1`, with `max_hops` 7 unless t needs more. So TTL 8 is hop 0 of
/// 7 (what an originator sends, PEAT-R3), TTL 1 is hop 7 of 7 (spent: not relayed), TTL 0 is
/// hop 8 of 7 (refused, `ttlOutOfRange`), and one relay (hop + 1) is TTL - 1.
///
/// An envelope's payload is a whole value (PEAT-W1): the probe sends a document of the origin
/// that carries the check's payload as its chat section and nothing the DUT could merge, so
/// a relayed message leaves the DUT's own document unchanged.
public final class PeatProbe: DialectProbe {
    public let dialect = DialectName.peat
    public private(set) var dutAddress = NodeAddress(peatNode: PeatProbe.dutID)
    private var nextSeq: UInt64 = 0
    private var checkTag: UInt32 = 0
    /// Parties a check may use: testers 1...8, strangers 1...9.
    static let testers = 1...8
    static let strangers = 1...9
    static let dutID: UInt32 = 0x0D07_0001
    public static let meshID = "DEMO"
    /// Milliseconds since 1970 for the probe's message ids and emergencies (2025-06-15).
    public static let epochMs: UInt64 = 1_750_000_000_000
    /// This session's: `epochMs`, or the wall clock at setup for a DUT on the real date
    /// (`Capabilities.takesEpoch` false), whose emergencies are of today.
    public private(set) var epochMs: UInt64 = PeatProbe.epochMs

    public init() {}

    public var unitFormat: FormatID? { PeatRelayEnvelope.formatID }

    public var relayedDestination: Party? { nil }

    /// A party's u32 node id (PEAT-R1): `7Ecccc nn` for tester n, `5Ecccc nn` for stranger n,
    /// where `cccc` is the check's tag (RunIdentifiers.tag): a DUT merges documents per node
    /// id for as long as it runs, so every check's parties are new to it.
    public func node(_ party: Party) -> UInt32 {
        switch party {
        case .tester(let n): 0x7E00_0000 | checkTag << 8 | UInt32(UInt8(truncatingIfNeeded: n))
        case .stranger(let n): 0x5E00_0000 | checkTag << 8 | UInt32(UInt8(truncatingIfNeeded: n))
        case .dut: dutAddress.peatNode
        }
    }

    public func setup(capabilities: Capabilities, seed: UInt64, identifiers: RunIdentifiers) throws -> DUTSetup {
        // The id the tester assigns (peat's identity is a setting, not a key), unless the DUT
        // keeps its own: then its address as read over the air, the id's 4 bytes in hex.
        if let declared = capabilities.address.flatMap(Hex.decode), declared.count == 4, declared != [0, 0, 0, 0] {
            dutAddress = NodeAddress(bytes: declared)
        } else {
            dutAddress = NodeAddress(peatNode: Self.dutID)
        }
        nextSeq = identifiers.value("peat.seq") % 1_000_000 * 1000
        epochMs = capabilities.takesEpoch ? Self.epochMs : UInt64(Date().timeIntervalSince1970 * 1000)
        checkTag = identifiers.tag(2).reduce(0) { $0 << 8 | UInt32($1) }
        let settings = ["nodeId": String(dutAddress.peatNode), "meshId": Self.meshID]
        return DUTSetup(dialect: .peat, address: dutAddress, settings: settings, seed: seed)
    }

    public func address(of party: Party) -> NodeAddress { NodeAddress(peatNode: node(party)) }

    public func adopt(dutAddress address: NodeAddress) { dutAddress = address }

    /// The testers' clock `time` into the DUT's session, in milliseconds since 1970: what an
    /// emergency raised then carries (PEAT-R6.2 orders emergencies by it).
    public func clockMs(at time: Duration) -> UInt64 {
        epochMs &+ UInt64(max(0, time.components.seconds)) * 1000 &+ UInt64(max(0, time.components.attoseconds / 1_000_000_000_000_000))
    }

    public func message(_ spec: MessageSpec) throws -> ProbeMessage {
        // Envelopes name no destination (peat.md 2.4): every message is for everyone, the DUT's
        // app included (PEAT-R3.3), so one "for the DUT" is a broadcast; one for another node
        // cannot be written.
        guard spec.destination == nil || spec.destination == .dut else {
            throw CheckNotApplicable("peat relay envelopes name no destination (peat.md 2.4): a message cannot be for one other node")
        }
        let ttl = spec.ttl ?? 8
        guard (0...256).contains(ttl) else { throw TesterError("peat ttl \(ttl) does not fit a hop budget (0...256)") }
        let maxHops = UInt8(max(Int(PeatRelayEnvelope.defaultMaxHops), ttl - 1))
        let hop = UInt8(Int(maxHops) + 1 - ttl)
        let seq = spec.sequence ?? takeSeq()
        let origin = node(spec.origin)
        let payload = PeatDocument(version: 1, nodeID: origin, chat: spec.payload).encoded()
        let envelope = PeatRelayEnvelope(broadcast: true,
                                         messageID: PeatRelayEnvelope.messageID(origin: origin, timestampMs: Self.epochMs &+ seq,
                                                                                payloadHash: PeatWire.digest32(payload)),
                                         hop: hop, maxHops: maxHops, origin: origin, payload: payload)
        return ProbeMessage(key: Hex.encode(envelope.messageID), ackID: "", origin: address(of: spec.origin), destination: nil,
                            ttl: ttl, sequence: seq, body: payload, payload: payload, value: .peatEnvelope(envelope))
    }

    /// The same envelope with another hop and budget (a copy that took another path).
    public func with(_ message: ProbeMessage, hop: UInt8, maxHops: UInt8) -> ProbeMessage {
        guard case .peatEnvelope(var envelope) = message.value else { return message }
        envelope.hop = hop
        envelope.maxHops = maxHops
        var copy = message
        copy.ttl = Int(maxHops) - Int(hop) + 1
        copy.value = .peatEnvelope(envelope)
        return copy
    }

    public func units(of message: ProbeMessage, via tester: Int) -> [[UInt8]] {
        guard case .peatEnvelope(let envelope) = message.value else { return [] }
        return [envelope.encoded()]
    }

    /// A document of `party` (PEAT-R2) holding `emergency`, as that node would write it.
    public func document(of party: Party, version: UInt32 = 1, counters: [PeatDocument.Counter] = [], emergency: PeatEmergency? = nil) -> [UInt8] {
        PeatDocument(version: version, nodeID: node(party), counters: counters, emergency: emergency).encoded()
    }

    public func hear(_ bytes: [UInt8], on link: LinkID) -> HeardPacket? {
        if let version = Self.markerVersion(bytes, of: node(.dut)) {
            return .malformed(WireError(.misplacedMarker, "\(Self.markerVersionNote) \(version): its first byte 0x\(String(UInt8(truncatingIfNeeded: version), radix: 16)) is a frame marker, so receivers read it as a frame (PEAT-R2 skips such versions)"))
        }
        let value: PeatValue
        do { value = try PeatValue(decoding: bytes) } catch { return .malformed(error) }
        switch value {
        case .relayEnvelope(let e):
            return .message(HeardMessage(key: Hex.encode(e.messageID), origin: NodeAddress(peatNode: e.origin), destination: nil,
                                         ttl: Int(e.maxHops) - Int(e.hop) + 1, body: e.payload, hopPath: nil, value: .peatEnvelope(e)))
        case .document(let d): return .state(.peatDocument(d))
        // Sealed documents (the probe sets no mesh secret), key exchanges and peer messages:
        // nothing the checks judge.
        case .encrypted, .keyExchange, .peerE2EE, .deltaDocument: return nil
        }
    }

    /// How `hear` names the DUT's document whose version begins with a frame marker.
    public static let markerVersionNote = "the DUT's document of version"

    /// The version of `bytes` when they are a document of `node` whose version's low byte, its
    /// first byte, is a frame marker (PEAT-W1): read as a document once that byte is set aside.
    static func markerVersion(_ bytes: [UInt8], of node: UInt32) -> UInt32? {
        guard let first = bytes.first, PeatWire.frameMarkers.contains(first) else { return nil }
        var patched = bytes
        patched[0] = 0
        guard let d = try? PeatDocument(decoding: patched[...]), d.nodeID == node else { return nil }
        return d.version | UInt32(first)
    }

    public func describe(_ bytes: [UInt8]) -> String {
        let value: PeatValue
        do { value = try PeatValue(decoding: bytes) } catch {
            return "undecodable (\(error.code.rawValue)) \(bytes.count)B: \(Hex.encode(Array(bytes.prefix(24))))\(bytes.count > 24 ? "..." : "")"
        }
        switch value {
        case .relayEnvelope(let e):
            return "envelope origin=\(name(e.origin)) hop=\(e.hop)/\(e.maxHops) id=\(Hex.encode(Array(e.messageID.suffix(8)))) payload=\(e.payload.count)B"
        case .document(let d): return "\(name(d.nodeID))'s " + DialectValue.peatDocument(d).stateSummary
        case .encrypted: return "encrypted document \(bytes.count)B"
        case .keyExchange(let k): return "key exchange from \(name(k.sender))"
        case .peerE2EE(let p): return "peer message \(name(p.sender)) -> \(name(p.recipient)) counter=\(p.counter)"
        case .deltaDocument: return "delta document \(bytes.count)B"
        }
    }

    /// DUT, T1, S2 ... for the evidence; other ids in hex.
    public func name(_ id: UInt32) -> String {
        if id == dutAddress.peatNode { return "DUT" }
        for n in Self.testers where node(.tester(n)) == id { return "T\(n)" }
        for n in Self.strangers where node(.stranger(n)) == id { return "S\(n)" }
        return String(format: "%08X", id)
    }

    private func takeSeq() -> UInt64 {
        nextSeq &+= 1
        return nextSeq
    }
}

extension DialectValue {
    /// One line for a state value in a check's `seen:` text.
    var stateSummary: String {
        guard case .peatDocument(let d) = self else { return "state" }
        let counters = d.counters.map { "\(String(format: "%X", $0.node)):\($0.count)" }.joined(separator: ",")
        var text = "document node=\(String(format: "%08X", d.nodeID)) v\(d.version) counters=[\(counters)]"
        if let e = d.emergency {
            text += " emergency=\(String(format: "%X", e.source))@\(e.timestamp) acks=[" + e.acks.map { "\(String(format: "%X", $0.node)):\($0.acked ? 1 : 0)" }.joined(separator: ",") + "]"
        }
        return text
    }
}
